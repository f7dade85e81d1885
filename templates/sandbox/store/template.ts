// The PGlite template: a data directory already initialised and migrated, archived (gzipped tar) by
// `npm run build` (generator/build.ts) into dist/pglite-template/ and shipped in the package. A new
// database (--db memory, or a directory without one) loads it instead of running initdb (initdb about 4 s
// on a quiet 2-core machine). The file is named by the migrations it holds (their count and a hash of
// them): a template whose migrations are the first ones of the current list is used, and the migrations
// newer than it are applied at start; any other template is not used (the database is initialised).
//
// Kept small, because every start unpacks it: 1 MB WAL segments (initdb --wal-segsize=1) and only the
// segment of the last checkpoint, no template0/template1 databases (the sandbox creates none), and shut
// down cleanly before it is archived, so that a start replays nothing: about 10 MB unpacked, where the
// dump of a running PGlite was 40 MB (three databases' catalogs and a 16 MB WAL segment).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { MIGRATIONS, migrate, type Migration } from "./migrations.js";
import type { Db, Row } from "./sql.js";

/**
 * Postgres settings of every PGlite the sandbox opens. PGlite runs no background workers.
 * wal_init_zero=off: a new WAL segment is not filled with zeros first (that blocked the event loop
 * for 60-90 ms every few thousand writes). enable_bitmapscan=off: with no autovacuum, dead index entries
 * stay; a plain index scan marks them dead once and skips them after, where a bitmap scan visits every
 * one again (the dispatcher's claim grew with every row ever delivered). shared_buffers=16MB and
 * max_connections=5: Postgres sets up its shared memory, sized by these two (128 MB and 100 by default),
 * at every start, and in WebAssembly that is CPU time (about 0.2 s less with these, measured:
 * docs/engineering/sandbox-start.md); PGlite runs one backend, and a page not in Postgres's buffers is
 * read from memory (in memory) or the system's file cache (a directory).
 */
export const PGLITE_SETTINGS = ["wal_init_zero=off", "enable_bitmapscan=off", "shared_buffers=16MB", "max_connections=5"];

/** The template's file name for the first `count` migrations (all of them by default). */
export function templateName(migrations: readonly Migration[] = MIGRATIONS): string {
  return `pglite-${migrations.length}-${createHash("sha256").update(JSON.stringify(migrations)).digest("hex").slice(0, 16)}.tar.gz`;
}

/** Where the template is looked for: dist/pglite-template/ beside the compiled code, or from the sources. */
function templateDirs(): string[] {
  const here = dirname(fileURLToPath(import.meta.url)); // <root>/templates/sandbox/store or <root>/dist/templates/sandbox/store
  return [join(here, "..", "..", "..", "pglite-template"), join(here, "..", "..", "..", "dist", "pglite-template")];
}

/** The path of the template holding the most of the current migrations (a prefix of them), or undefined. */
export function templatePath(dirs: readonly string[] = templateDirs()): string | undefined {
  for (let count = MIGRATIONS.length; count > 0; count--) {
    const name = templateName(MIGRATIONS.slice(0, count));
    const found = dirs.map((d) => join(d, name)).find((f) => existsSync(f));
    if (found) return found;
  }
  return undefined;
}

/** A new database's template: its tarball (uncompressed) for PGlite's loadDataDir, and its catalog's array types. */
export interface Template {
  readonly tar: Blob;
  readonly arrayTypes: readonly ArrayType[] | undefined;
}

/** The template at `path` (the current one by default); undefined when there is none. */
export function readTemplate(path = templatePath()): Template | undefined {
  return path === undefined ? undefined : { tar: new Blob([gunzipSync(readFileSync(path))]), arrayTypes: readArrayTypes(arrayTypesPath(path)) };
}

/**
 * An array type of the catalog: `oid` the element's type, `typarray` the array's. PGlite looks them up with
 * this query when it opens a database (to parse and serialise arrays); on a new backend it is the first
 * query and fills the catalog caches: about 0.3 s of a 1.5 s start. A template keeps its catalog's answer
 * beside it (the same catalog answers the same), and a database loaded from it registers those instead.
 */
export interface ArrayType {
  readonly oid: number;
  readonly typarray: number;
}
const ARRAY_TYPES_SQL = `SELECT b.oid, b.typarray FROM pg_catalog.pg_type a LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem
  WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`;

/** The template's array types file: `pglite-<n>-<hash>.array-types.json` beside `pglite-<n>-<hash>.tar.gz`. */
export function arrayTypesPath(template: string): string {
  return template.replace(/\.tar\.gz$/, ".array-types.json");
}

const isArrayTypes = (v: unknown): v is ArrayType[] =>
  Array.isArray(v) && v.every((t) => Number.isInteger((t as ArrayType)?.oid) && Number.isInteger((t as ArrayType)?.typarray));

/** The array types file's list; undefined when it is missing or not such a list (PGlite then asks the database). */
export function readArrayTypes(file: string): ArrayType[] | undefined {
  try {
    const list: unknown = JSON.parse(readFileSync(file, "utf8"));
    return isArrayTypes(list) ? list : undefined;
  } catch {
    return undefined;
  }
}

interface PGliteLike {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: { query: PGliteLike["query"] }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
type Convert = (value: unknown) => unknown;
interface PGliteInstance extends PGliteLike {
  readonly waitReady: Promise<void>;
  serializers: Record<number, Convert>;
  parsers: Record<number, Convert>;
  _initArrayTypes(options?: { force?: boolean }): Promise<void>;
}
interface PGliteModule {
  PGlite: { readonly defaultStartParams: readonly string[]; new (options: object): PGliteInstance };
  types: { arraySerializer(value: unknown, element: Convert | undefined, typarray: number): unknown; arrayParser(value: unknown, element: Convert | undefined, typarray: number): unknown };
}

/** What a PGlite is opened with: Postgres settings (`name=value`), and a template for a new database. */
export interface PgliteOptions {
  readonly settings?: readonly string[];
  readonly template?: Template;
  readonly initDbStartParams?: readonly string[];
}

/**
 * Opens PGlite (in this thread): `dataDir` undefined is in memory. With a template, the database is loaded
 * from it, and its array types are registered from the template's list (PGlite's _initArrayTypes, the
 * documented hook its subclasses implement) instead of being asked of the new backend.
 */
export async function openPgliteHere(dataDir: string | undefined, o: PgliteOptions = {}): Promise<PGliteInstance> {
  const { PGlite, types } = (await import("@electric-sql/pglite")) as unknown as PGliteModule;
  const arrayTypes = o.template?.arrayTypes;
  const Class = arrayTypes === undefined
    ? PGlite
    : class extends PGlite {
        override async _initArrayTypes(options?: { force?: boolean }): Promise<void> {
          if (options?.force) return super._initArrayTypes(options);
          for (const { oid, typarray } of arrayTypes) {
            this.serializers[typarray] = (v) => types.arraySerializer(v, this.serializers[oid], typarray);
            this.parsers[typarray] = (v) => types.arrayParser(v, this.parsers[oid], typarray);
          }
        }
      };
  const db = new Class({
    ...(dataDir === undefined ? {} : { dataDir }),
    startParams: [...PGlite.defaultStartParams, ...(o.settings ?? PGLITE_SETTINGS).flatMap((s) => ["-c", s])],
    ...(o.template ? { loadDataDir: o.template.tar } : {}),
    ...(o.initDbStartParams ? { initDbStartParams: [...o.initDbStartParams] } : {}),
  });
  await db.waitReady;
  return db;
}

/** PGlite in this thread, in memory, from `template` when given (test support uses it). */
export function pgliteInMemory(template?: Template): Promise<PGliteLike> {
  return openPgliteHere(undefined, template ? { template } : {});
}

/** The Db interface over a PGlite of this thread (exclusive, as store/pglite.ts makes it). */
export function pgliteDb(pg: PGliteLike): Db {
  const wrap = (q: { query: PGliteLike["query"] }) => ({
    query: async <T extends Row>(text: string, params?: readonly unknown[]) => (await q.query<T>(text, params ? [...params] : [])).rows,
  });
  return { kind: "pglite", exclusive: true, query: wrap(pg).query, transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))), close: () => pg.close() };
}

const TAR_BLOCK = 512;
/** Every entry's mtime (the archive is the same bytes for the same files). */
const TAR_MTIME = 1_700_000_000;

/** One ustar header: `name` (at most 100 bytes), a file of `size` bytes or a directory. */
function tarHeader(name: string, size: number, directory: boolean): Buffer {
  const h = Buffer.alloc(TAR_BLOCK);
  const put = (text: string, at: number, width: number) => h.write(text.slice(0, width), at, "latin1");
  const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;
  put(name, 0, 100);
  put(octal(directory ? 0o700 : 0o600, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(TAR_MTIME, 12), 136, 12);
  put(directory ? "5" : "0", 156, 1);
  put("ustar\u000000", 257, 8);
  put(" ".repeat(8), 148, 8);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return h;
}

/** A ustar archive of the tree under `root`, entries named "/<path>" as PGlite's own dumps name them, without those `skip` names. */
export function tarOf(root: string, skip: (path: string) => boolean = () => false): Buffer {
  const parts: Buffer[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel)).sort()) {
      const path = `${rel}/${entry}`;
      if (skip(path)) continue;
      const full = join(root, path);
      if (statSync(full).isDirectory()) {
        parts.push(tarHeader(path, 0, true));
        walk(path);
        continue;
      }
      const data = readFileSync(full);
      parts.push(tarHeader(path, data.length, false), data, Buffer.alloc((TAR_BLOCK - (data.length % TAR_BLOCK)) % TAR_BLOCK));
    }
  };
  walk("");
  parts.push(Buffer.alloc(2 * TAR_BLOCK));
  return Buffer.concat(parts);
}

function writeAtomically(file: string, data: string | Buffer): void {
  const part = `${file}.${process.pid}.${Date.now()}.part`;
  writeFileSync(part, data);
  renameSync(part, file);
}

/** The WAL segment after `segment` (24 hex digits: timeline, log, segment; 1 MB segments: 4096 a log). */
function nextSegment(segment: string): string {
  const n = BigInt(`0x${segment.slice(8)}`) + 1n;
  const log = n / 4096n;
  const seg = n % 4096n;
  return `${segment.slice(0, 8)}${log.toString(16).toUpperCase().padStart(8, "0")}${seg.toString(16).toUpperCase().padStart(8, "0")}`;
}

/**
 * Initialises a database in a scratch directory, applies `migrations`, drops the template databases,
 * shuts it down cleanly and writes its archive to `dir` (atomically), keeping of the WAL only the
 * segments the shutdown checkpoint can be in. Returns the file.
 */
export async function writeTemplate(dir: string, migrations: readonly Migration[] = MIGRATIONS): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "verispec-template-build-"));
  try {
    const data = join(scratch, "pgdata");
    const pg = await openPgliteHere(data, { initDbStartParams: ["--wal-segsize=1"] });
    let wal: string;
    let arrayTypes: ArrayType[];
    try {
      await migrate(pgliteDb(pg), migrations);
      for (const d of ["template0", "template1"]) {
        await pg.exec(`ALTER DATABASE ${d} IS_TEMPLATE false`);
        await pg.exec(`DROP DATABASE ${d}`); // alone: not in a transaction block
      }
      arrayTypes = (await pg.query<ArrayType>(ARRAY_TYPES_SQL)).rows;
      await pg.exec("CHECKPOINT");
      wal = (await pg.query<{ wal: string }>("SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS wal")).rows[0]!.wal;
    } finally {
      await pg.close();
    }
    const kept = new Set([wal, nextSegment(wal)]);
    const tar = tarOf(data, (path) => /^\/pg_wal\/[0-9A-F]{24}$/.test(path) && !kept.has(path.slice("/pg_wal/".length)));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, templateName(migrations));
    // The list first: a template is found by its tarball, which then has its list beside it.
    writeAtomically(arrayTypesPath(file), `${JSON.stringify(arrayTypes)}\n`);
    writeAtomically(file, gzipSync(tar, { level: 9 }));
    return file;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
