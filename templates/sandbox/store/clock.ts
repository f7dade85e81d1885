// The sandbox clock's offset, kept across restarts (sandbox_meta), one per tenant: an account's control
// API moves its own clock only. The one-account case (DEFAULT_TENANT) keeps the key it always had.
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
