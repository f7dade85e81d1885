// Opens PGlite in this thread (the store's worker thread, the template's build, the tests): the settings
// of every PGlite the sandbox opens, and the registration of a known catalog's array types. The template
// itself (its archive, its array types file, its extraction) is store/template.ts.
import type { Db, Row } from "./sql.js";

/**
 * Postgres settings of every PGlite the sandbox opens. PGlite runs no background workers.
 * wal_init_zero=off: a new WAL segment is not filled with zeros first (that blocked the event loop
 * for 60-90 ms every few thousand writes). enable_bitmapscan=off: with no autovacuum, dead index entries
 * stay; a plain index scan marks them dead once and skips them after, where a bitmap scan visits every
 * one again (the dispatcher's claim grew with every row ever delivered). shared_buffers=16MB and
 * max_connections=5: Postgres sets up its shared memory, sized by these two (128 MB and 100 by default),
 * at every start, and in WebAssembly that is CPU time (about 0.4 s less with these on a 2-core machine:
 * docs/engineering/sandbox-start.md); PGlite runs one backend, and a page not in Postgres's buffers is
 * read from memory (in memory) or the system's file cache (a directory).
 */
export const PGLITE_SETTINGS = ["wal_init_zero=off", "enable_bitmapscan=off", "shared_buffers=16MB", "max_connections=5"];

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
export const ARRAY_TYPES_SQL = `SELECT b.oid, b.typarray FROM pg_catalog.pg_type a LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem
  WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`;

export interface PGliteLike {
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
  types: {
    arraySerializer(value: unknown, element: Convert | undefined, typarray: number): unknown;
    arrayParser(value: unknown, element: Convert | undefined, typarray: number): unknown;
  };
}

/** What a PGlite is opened with: Postgres settings (`name=value`), a template's archive to load, its array types. */
export interface PgliteOptions {
  readonly settings?: readonly string[];
  readonly loadDataDir?: Buffer<ArrayBuffer>;
  /** The catalog's array types when known (a database just made from a template); else PGlite asks the database. */
  readonly arrayTypes?: readonly ArrayType[];
  readonly initDbStartParams?: readonly string[];
}

/**
 * Opens PGlite (in this thread): `dataDir` undefined is in memory. Known array types are registered from
 * the list (PGlite's _initArrayTypes, the documented hook its subclasses implement) instead of being asked
 * of the new backend.
 */
export async function openPgliteHere(dataDir: string | undefined, o: PgliteOptions = {}): Promise<PGliteInstance> {
  const { PGlite, types } = (await import("@electric-sql/pglite")) as unknown as PGliteModule;
  const arrayTypes = o.arrayTypes;
  const Class =
    arrayTypes === undefined
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
    ...(o.loadDataDir ? { loadDataDir: new Blob([o.loadDataDir]) } : {}),
    ...(o.initDbStartParams ? { initDbStartParams: [...o.initDbStartParams] } : {}),
  });
  await db.waitReady;
  return db;
}

/** The Db interface over a PGlite of this thread (exclusive, as store/pglite.ts makes it). */
export function pgliteDb(pg: PGliteLike): Db {
  const wrap = (q: { query: PGliteLike["query"] }) => ({
    query: async <T extends Row>(text: string, params?: readonly unknown[]) => (await q.query<T>(text, params ? [...params] : [])).rows,
  });
  return { kind: "pglite", exclusive: true, query: wrap(pg).query, transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))), close: () => pg.close() };
}
