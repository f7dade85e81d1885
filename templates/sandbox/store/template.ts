// The PGlite template: a data directory already initialised and migrated, dumped as a gzipped tarball by
// `npm run build` (generator/build.ts) into dist/pglite-template/ and shipped in the package. A new
// database (--db memory, or a directory without one) loads it instead of running initdb, which took most
// of the sandbox's start (initdb about 4 s on a quiet 2-core machine; loading the template under 1 s).
// The file is named by a hash of the migrations it holds: a template built from other migrations is not
// used (the database is initialised as before); migrations newer than a template are applied at start.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { MIGRATIONS, migrate } from "./migrations.js";
import type { Db, Row } from "./sql.js";

/**
 * Postgres settings of every PGlite the sandbox opens. PGlite runs no background workers.
 * wal_init_zero=off: a new 16 MB WAL segment is not filled with zeros first (that blocked the event loop
 * for 60-90 ms every few thousand writes). enable_bitmapscan=off: with no autovacuum, dead index entries
 * stay; a plain index scan marks them dead once and skips them after, where a bitmap scan visits every
 * one again (the dispatcher's claim grew with every row ever delivered).
 */
export const PGLITE_SETTINGS = ["wal_init_zero=off", "enable_bitmapscan=off"];

/** The template's file name for the migrations as they are now. */
export function templateName(): string {
  return `pglite-${createHash("sha256").update(JSON.stringify(MIGRATIONS)).digest("hex").slice(0, 16)}.tar.gz`;
}

/** Where the template is looked for: dist/pglite-template/ beside the compiled code, or from the sources. */
function templateDirs(): string[] {
  const here = dirname(fileURLToPath(import.meta.url)); // <root>/templates/sandbox/store or <root>/dist/templates/sandbox/store
  return [join(here, "..", "..", "..", "pglite-template"), join(here, "..", "..", "..", "dist", "pglite-template")];
}

/** The path of a template of the current migrations, or undefined. */
export function templatePath(): string | undefined {
  return templateDirs().map((d) => join(d, templateName())).find((f) => existsSync(f));
}

/** The template's tarball (uncompressed), ready for PGlite's loadDataDir; undefined when there is none. */
export function readTemplate(path = templatePath()): Blob | undefined {
  return path === undefined ? undefined : new Blob([gunzipSync(readFileSync(path))]);
}

interface PGliteLike {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  transaction<T>(fn: (tx: { query: PGliteLike["query"] }) => Promise<T>): Promise<T>;
  dumpDataDir(compression: "none"): Promise<Blob>;
  close(): Promise<void>;
}

/** PGlite in this thread, in memory, from `loadDataDir` when given (test support and the build use it). */
export async function pgliteInMemory(loadDataDir?: Blob): Promise<PGliteLike> {
  const { PGlite } = (await import("@electric-sql/pglite")) as unknown as {
    PGlite: { defaultStartParams: string[]; create(o: object): Promise<PGliteLike> };
  };
  return PGlite.create({ ...(loadDataDir ? { loadDataDir } : {}), startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ["-c", s])] });
}

/** The Db interface over a PGlite of this thread (exclusive, as store/pglite.ts makes it). */
export function pgliteDb(pg: PGliteLike): Db {
  const wrap = (q: { query: PGliteLike["query"] }) => ({
    query: async <T extends Row>(text: string, params?: readonly unknown[]) => (await q.query<T>(text, params ? [...params] : [])).rows,
  });
  return { kind: "pglite", exclusive: true, query: wrap(pg).query, transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))), close: () => pg.close() };
}

/** Initialises a database, applies every migration and writes its dump to `dir` (atomically). Returns the file. */
export async function writeTemplate(dir: string): Promise<string> {
  const pg = await pgliteInMemory();
  try {
    await migrate(pgliteDb(pg));
    const tar = Buffer.from(await (await pg.dumpDataDir("none")).arrayBuffer());
    mkdirSync(dir, { recursive: true });
    const file = join(dir, templateName());
    const part = `${file}.${process.pid}.${Date.now()}.part`;
    writeFileSync(part, gzipSync(tar, { level: 9 }));
    renameSync(part, file);
    return file;
  } finally {
    await pg.close();
  }
}
