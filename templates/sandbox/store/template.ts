// The PGlite template: a data directory already initialised and migrated, archived (a tar) by
// `npm run build` (generator/build.ts) into dist/pglite-template/ and shipped in the package. A new
// database (--db memory, or a directory without one) loads it instead of running initdb (initdb about 4 s
// on a quiet 2-core machine). The file is named by the migrations it holds (their count and a hash of
// them): a template whose migrations are the first ones of the current list is used, and the migrations
// newer than it are applied at start; any other template is not used (the database is initialised).
//
// Kept small, because every start unpacks it: 1 MB WAL segments (initdb --wal-segsize=1) and only the
// segment of the last checkpoint, no template0/template1 databases (the sandbox creates none), and shut
// down cleanly before it is archived, so that a start replays nothing: about 10 MB, where the dump of a
// running PGlite was 40 MB (three databases' catalogs and a 16 MB WAL segment). Not compressed: unzipping
// it took about 0.1 s of every start; the package's own archive compresses it (to about 1.5 MB) for download.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MIGRATIONS, migrate, type Migration } from "./migrations.js";
import { ARRAY_TYPES_SQL, openPgliteHere, pgliteDb, type ArrayType, type PGliteLike } from "./pglite-open.js";

/** The template's file name for the first `count` migrations (all of them by default). */
export function templateName(migrations: readonly Migration[] = MIGRATIONS): string {
  return `pglite-${migrations.length}-${createHash("sha256").update(JSON.stringify(migrations)).digest("hex").slice(0, 16)}.tar`;
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

/** A new database's template: its archive (PGlite's loadDataDir, or extracted into a new directory), and its catalog's array types. */
export interface Template {
  readonly tar: Buffer<ArrayBuffer>;
  readonly arrayTypes: readonly ArrayType[] | undefined;
}

/** The template at `path` (the current one by default); undefined when there is none. */
export function readTemplate(path = templatePath()): Template | undefined {
  return path === undefined ? undefined : { tar: readFileSync(path), arrayTypes: readArrayTypes(arrayTypesPath(path)) };
}

/** The template's array types file: `pglite-<n>-<hash>.array-types.json` beside `pglite-<n>-<hash>.tar`. */
export function arrayTypesPath(template: string): string {
  return template.replace(/\.tar$/, ".array-types.json");
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

/** PGlite in this thread, in memory, from `template` when given (test support uses it). */
export function pgliteInMemory(template?: Template): Promise<PGliteLike> {
  return openPgliteHere(undefined, template ? { loadDataDir: template.tar, arrayTypes: template.arrayTypes } : {});
}

const TAR_BLOCK = 512;
/** Every entry's mtime (the archive is the same bytes for the same files). */
const TAR_MTIME = 1_700_000_000;

/** One ustar header: `name` (at most 100 bytes), a file of `size` bytes or a directory. */
function tarHeader(name: string, size: number, directory: boolean): Buffer {
  const block = Buffer.alloc(TAR_BLOCK);
  const put = (text: string, at: number, width: number) => block.write(text.slice(0, width), at, "latin1");
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
  for (const byte of block) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return block;
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

/**
 * Writes the template's files into `dir` (a new database's directory), PG_VERSION last: a directory is a
 * database once it has PG_VERSION, so an extraction cut short is extracted again at the next start.
 * Native file writes are faster than PGlite loading the archive through its file system layer (about
 * 0.3 s of a start); the directory is then opened as an existing one. Reads what tarOf writes: ustar
 * files and directories named "/<path>", nothing else.
 */
export function extractTemplate(tar: Buffer, dir: string): void {
  let last: { path: string; data: Buffer } | undefined;
  for (let at = 0; at + TAR_BLOCK <= tar.length; ) {
    const header = tar.subarray(at, at + TAR_BLOCK);
    if (header.every((b) => b === 0)) break;
    const name = header.toString("latin1", 0, 100).replace(/\0.*$/s, "");
    const size = parseInt(header.toString("latin1", 124, 136).replace(/\0.*$/s, "").trim() || "0", 8);
    const type = header.toString("latin1", 156, 157);
    const parts = name.split("/").slice(1);
    if (!name.startsWith("/") || parts.some((p) => p === "" || p === "." || p === "..") || !(type === "0" || type === "5") || !Number.isSafeInteger(size)) {
      throw new Error(`the template's entry ${JSON.stringify(name)} is not one of its files`);
    }
    const path = join(dir, ...parts);
    const data = tar.subarray(at + TAR_BLOCK, at + TAR_BLOCK + size);
    at += TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    if (type === "5") mkdirSync(path, { recursive: true, mode: 0o700 });
    else if (name === "/PG_VERSION") last = { path, data };
    else writeFileSync(path, data, { mode: 0o600 });
  }
  if (!last) throw new Error("the template has no PG_VERSION");
  writeFileSync(last.path, last.data, { mode: 0o600 });
}

/** The WAL segment after `segment` (24 hex digits: timeline, log, segment; 1 MB segments: 4096 a log). */
export function nextSegment(segment: string): string {
  // The segment number is log * 4096 + segment (Postgres's XLogFileName), not the 16 digits read as one number.
  const segmentNumber = BigInt(`0x${segment.slice(8, 16)}`) * 4096n + BigInt(`0x${segment.slice(16)}`) + 1n;
  const log = segmentNumber / 4096n;
  const seg = segmentNumber % 4096n;
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
    writeAtomically(file, tar);
    return file;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
