// The sandbox clock's offset, kept in the shared store (sandbox_meta), one per tenant: an account's control
// API moves its own clock only, and every instance on the same database reads the current offset (an
// advance through one is seen by the others). The one-account case (DEFAULT_TENANT) keeps the key it always had.
// The clock's operations are written once (offsetOps, over an OffsetCell): a store provides only the cell,
// where the offset is kept (these SQL statements, or a field of the memory store, store/memory.ts).
import type { StoreOps } from "./port.js";
import { DEFAULT_TENANT, type Db, type Sql } from "./sql.js";

export type ClockOps = Pick<StoreOps, "saveClockOffset" | "loadClockOffset" | "advanceClockOffset">;

/** Where one tenant's offset is kept: the storage primitive of a store. */
export interface OffsetCell {
  /** The stored offset, or undefined when none is stored. */
  read(): Promise<number | undefined>;
  write(offset: number): Promise<void>;
  /** Adds `ms` in one step (beside other instances, where there are any) unless the sum passes `max`: the new offset, or undefined. */
  addAtMost(ms: number, max: number): Promise<number | undefined>;
}

/** An advance's rule: the offset moved by `ms`, or undefined past `max` (the SQL statement states it in its WHERE clause). */
export function advancedOffset(offset: number, ms: number, max: number): number | undefined {
  const next = offset + ms;
  return next > max ? undefined : next;
}

/** The clock's operations over a cell: an offset never stored is 0. */
export function offsetOps(cell: OffsetCell): ClockOps {
  return {
    saveClockOffset: (offset) => cell.write(offset),
    loadClockOffset: async () => (await cell.read()) ?? 0,
    advanceClockOffset: (ms, max) => cell.addAtMost(ms, max),
  };
}

const keyOf = (tenant: string) => (tenant === DEFAULT_TENANT ? "clockOffset" : `clockOffset:${tenant}`);

export async function saveClockOffset(sql: Sql, tenant: string, offset: number): Promise<void> {
  await sql.query("INSERT INTO sandbox_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [
    keyOf(tenant),
    String(offset),
  ]);
}

/** The stored offset, or undefined when none is stored. */
async function storedClockOffset(sql: Sql, tenant: string): Promise<number | undefined> {
  const rows = await sql.query("SELECT value FROM sandbox_meta WHERE key = $1", [keyOf(tenant)]);
  return rows[0] ? Number(rows[0].value) : undefined;
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

/** The tenant's offset in sandbox_meta, through these statements. */
export function sqlOffsetCell(sql: Sql, tenant: string): OffsetCell {
  return {
    read: () => storedClockOffset(sql, tenant),
    write: (offset) => saveClockOffset(sql, tenant, offset),
    addAtMost: (ms, max) => advanceClockOffset(sql, tenant, ms, max),
  };
}

/** The stored offset, 0 when none is stored. */
export function loadClockOffset(sql: Sql, tenant: string): Promise<number> {
  return offsetOps(sqlOffsetCell(sql, tenant)).loadClockOffset();
}

/** Per embedded database, per tenant: the offset last read, and a count of changes (a read that raced a change is not kept). */
const embeddedClocks = new WeakMap<Db, { readonly offsets: Map<string, number>; changes: number }>();

/** `direct`'s operations, the offset read kept until the next change through any of `db`'s clock operations. */
function keptOffsets(db: Db, tenant: string, direct: ClockOps): ClockOps {
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

/**
 * The clock's operations on `db`. A request reads its account's offset first (server.ts); when one process
 * owns the database (PGlite, `exclusive`), so every change passes through here and the offset read is kept until
 * the next change instead of costing each request a statement on the one connection (a third of the
 * create rate). A Postgres server may be shared by instances: its offset is read every time.
 */
export function clockOps(db: Db, tenant: string): ClockOps {
  const direct = offsetOps(sqlOffsetCell(db, tenant));
  return db.exclusive ? keptOffsets(db, tenant, direct) : direct;
}
