// The sandbox clock's offset, kept in the shared store (sandbox_meta), one per tenant: an account's control
// API moves its own clock only, and every instance on the same database reads the current offset (an
// advance through one is seen by the others). The one-account case (DEFAULT_TENANT) keeps the key it always had.
import type { StoreOps } from "./port.js";
import { DEFAULT_TENANT, type Db, type Sql } from "./sql.js";

const keyOf = (tenant: string) => (tenant === DEFAULT_TENANT ? "clockOffset" : `clockOffset:${tenant}`);

export async function saveClockOffset(sql: Sql, tenant: string, offset: number): Promise<void> {
  await sql.query("INSERT INTO sandbox_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [
    keyOf(tenant),
    String(offset),
  ]);
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

type ClockOps = Pick<StoreOps, "saveClockOffset" | "loadClockOffset" | "advanceClockOffset">;

/** Per embedded database, per tenant: the offset last read, and a count of changes (a read that raced a change is not kept). */
const embeddedClocks = new WeakMap<Db, { readonly offsets: Map<string, number>; changes: number }>();

/**
 * The clock's operations on `db`. A request reads its account's offset first (server.ts); when one process
 * owns the database (PGlite, `exclusive`), so every change passes through here and the offset read is kept until
 * the next change instead of costing each request a statement on the one connection (a third of the
 * create rate). A Postgres server may be shared by instances: its offset is read every time.
 */
export function clockOps(db: Db, tenant: string): ClockOps {
  const direct: ClockOps = {
    saveClockOffset: (offset) => saveClockOffset(db, tenant, offset),
    loadClockOffset: () => loadClockOffset(db, tenant),
    advanceClockOffset: (ms, max) => advanceClockOffset(db, tenant, ms, max),
  };
  if (!db.exclusive) return direct;
  let cache = embeddedClocks.get(db);
  if (!cache) embeddedClocks.set(db, (cache = { offsets: new Map(), changes: 0 }));
  const own = cache;
  const changed = <T>(result: Promise<T>): Promise<T> => {
    own.changes++;
    own.offsets.clear();
    return result.finally(() => {
      own.changes++;
      own.offsets.clear();
    });
  };
  return {
    saveClockOffset: (offset) => changed(direct.saveClockOffset(offset)),
    advanceClockOffset: (ms, max) => changed(direct.advanceClockOffset(ms, max)),
    loadClockOffset: async () => {
      const kept = own.offsets.get(tenant);
      if (kept !== undefined) return kept;
      const before = own.changes;
      const offset = await direct.loadClockOffset();
      if (own.changes === before) own.offsets.set(tenant, offset);
      return offset;
    },
  };
}
