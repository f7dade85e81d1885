// The embedded database: PGlite (Postgres compiled to WebAssembly) in a directory or in memory. Loaded
// only by the sandbox command (a dynamic import), so the rest of verispec never pays for it.
import { mkdirSync } from "node:fs";
import type { Db, Row, Sql } from "./sql.js";

interface PGliteQueryable {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}
interface PGliteClass {
  readonly defaultStartParams: readonly string[];
  create(dataDir: string, options: { startParams: string[] }): Promise<PGliteLike>;
}
interface PGliteLike extends PGliteQueryable {
  transaction<T>(fn: (tx: PGliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const wrap = (q: PGliteQueryable): Sql => ({
  query: async <T extends Row>(text: string, params?: readonly unknown[]) => (await q.query<T>(text, params ? [...params] : [])).rows,
});

/**
 * PGlite runs no background workers. wal_init_zero=off: a new 16 MB WAL segment is not filled with zeros
 * first (that blocked the event loop for 60-90 ms every few thousand writes). enable_bitmapscan=off: with
 * no autovacuum, dead index entries stay; a plain index scan marks them dead once and skips them after,
 * where a bitmap scan visits every one again (the dispatcher's claim grew with every row ever delivered).
 */
const SETTINGS = ["wal_init_zero=off", "enable_bitmapscan=off"];

/** `dir` undefined: in memory. */
export async function openPglite(dir: string | undefined): Promise<Db> {
  const { PGlite } = (await import("@electric-sql/pglite")) as unknown as { PGlite: PGliteClass };
  if (dir !== undefined) mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir ?? "memory://", { startParams: [...PGlite.defaultStartParams, ...SETTINGS.flatMap((s) => ["-c", s])] });
  const sql = wrap(db);
  return {
    kind: "pglite",
    exclusive: true,
    query: sql.query,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}
