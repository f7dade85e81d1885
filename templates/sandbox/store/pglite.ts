// The embedded database: PGlite (Postgres compiled to WebAssembly) in a directory or in memory. Loaded
// only by the sandbox command (a dynamic import), so the rest of verispec never pays for it.
import { mkdirSync } from "node:fs";
import type { Db, Row, Sql } from "./sql.js";

interface PGliteQueryable {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}
interface PGliteLike extends PGliteQueryable {
  transaction<T>(fn: (tx: PGliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const wrap = (q: PGliteQueryable): Sql => ({
  query: async <T extends Row>(text: string, params?: readonly unknown[]) => (await q.query<T>(text, params ? [...params] : [])).rows,
});

/** `dir` undefined: in memory. */
export async function openPglite(dir: string | undefined): Promise<Db> {
  const { PGlite } = (await import("@electric-sql/pglite")) as unknown as { PGlite: { create(dataDir?: string): Promise<PGliteLike> } };
  if (dir !== undefined) mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir ?? "memory://");
  const sql = wrap(db);
  return {
    kind: "pglite",
    exclusive: true,
    query: sql.query,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}
