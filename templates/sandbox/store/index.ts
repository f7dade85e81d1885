// Opens the store named by --db: a directory (PGlite), "memory" (PGlite in memory) or a postgres:// URL.
import { resolve } from "node:path";
import { migrate } from "./migrations.js";
import type { Db } from "./sql.js";

export type { Db, Row, Sql } from "./sql.js";
export { DEFAULT_TENANT } from "./sql.js";

export function describeDb(option: string): string {
  if (option === "memory") return "PGlite in memory";
  if (/^postgres(ql)?:\/\//.test(option)) return "Postgres";
  return `PGlite in ${option}`;
}

export async function openStore(option: string, cwd: string): Promise<Db> {
  const db = /^postgres(ql)?:\/\//.test(option)
    ? await (await import("./postgres.js")).openPostgres(option)
    : await (await import("./pglite.js")).openPglite(option === "memory" ? undefined : resolve(cwd, option));
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}

/**
 * Closes a store that is still opening (started early, while the rest loads), once it has opened, when the
 * start fails meanwhile. Never rejects: a store that failed to open has nothing to close, and its error is
 * the caller's to report.
 */
export function closeWhenOpen(opening: Promise<Db>): Promise<void> {
  return opening.then((db) => db.close()).catch(() => {});
}
