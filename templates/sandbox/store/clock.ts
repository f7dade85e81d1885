// The sandbox clock's offset, kept in the shared store (sandbox_meta), one per tenant: an account's control
// API moves its own clock only, and every instance on the same database reads the current offset (an
// advance through one is seen by the others). The one-account case (DEFAULT_TENANT) keeps the key it always had.
import { DEFAULT_TENANT, type Sql } from "./sql.js";

const keyOf = (tenant: string) => (tenant === DEFAULT_TENANT ? "clockOffset" : `clockOffset:${tenant}`);

export async function saveClockOffset(sql: Sql, tenant: string, offset: number): Promise<void> {
  await sql.query("INSERT INTO sandbox_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [keyOf(tenant), String(offset)]);
}

/** The stored offset, 0 when none is stored. */
export async function loadClockOffset(sql: Sql, tenant: string): Promise<number> {
  const rows = await sql.query("SELECT value FROM sandbox_meta WHERE key = $1", [keyOf(tenant)]);
  return rows[0] ? Number(rows[0].value) : 0;
}

/**
 * Moves the stored offset forward by `ms` in one statement (two instances advancing at once both count),
 * unless that would pass `max`; the new offset, or undefined when it would pass `max`.
 */
export async function advanceClockOffset(sql: Sql, tenant: string, ms: number, max: number): Promise<number | undefined> {
  const rows = await sql.query(
    `INSERT INTO sandbox_meta (key, value) SELECT $1, $2::bigint::text WHERE $2::bigint <= $3::bigint
     ON CONFLICT (key) DO UPDATE SET value = (sandbox_meta.value::bigint + $2::bigint)::text WHERE sandbox_meta.value::bigint + $2::bigint <= $3::bigint
     RETURNING value`,
    [keyOf(tenant), String(ms), String(max)],
  );
  return rows[0] ? Number(rows[0].value) : undefined;
}
