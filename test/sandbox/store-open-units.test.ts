// Opening the store (templates/sandbox/store/index.ts, migrations.ts, pglite.ts, pglite-open.ts), each database
// opened inside its test: migrations added, missing, failing or on a new database; the embedded database's
// thread (its errors, transactions, answers to concurrent queries, its close, a directory it cannot open); the
// settings every PGlite is opened with; where a relative --db directory goes.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeWhenOpen, type Db, describeDb, openStore } from "../../templates/sandbox/store/index.js";
import { appliedMigration, MIGRATIONS, type Migration, migrate } from "../../templates/sandbox/store/migrations.js";
import { DatabaseError, OPEN_FAILED, openPglite } from "../../templates/sandbox/store/pglite.js";
import { openPgliteHere, pgliteDb } from "../../templates/sandbox/store/pglite-open.js";
import { readTemplate, templateName, writeTemplate } from "../../templates/sandbox/store/template.js";
import { memoryDb } from "./inprocess.js";

const LATEST = MIGRATIONS.at(-1)!.version;
const tables = async (db: Db, like: string) =>
  (await db.query("SELECT tablename FROM pg_tables WHERE tablename LIKE $1 ORDER BY tablename", [like])).map((r) => r.tablename);
const versions = async (db: Db) => (await db.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).map((r) => r.version);

/** The run's template (as memoryDb loads it). */
async function template() {
  const dir = process.env.VERISPEC_PGLITE_TEMPLATE!;
  const file = join(dir, templateName());
  if (!existsSync(file)) await writeTemplate(dir);
  return readTemplate(file)!;
}

describe("describeDb: the store in words", () => {
  it("names Postgres for either URL scheme, PGlite in memory, and PGlite in a directory as given", () => {
    expect(describeDb("postgres://u@h/db")).toBe("Postgres");
    expect(describeDb("postgresql://u@h/db")).toBe("Postgres");
    expect(describeDb("memory")).toBe("PGlite in memory");
    expect(describeDb(".verispec/sandbox")).toBe("PGlite in .verispec/sandbox");
    expect(describeDb("my-postgres://x")).toBe("PGlite in my-postgres://x");
    expect(describeDb("memory2")).toBe("PGlite in memory2");
  });
});

describe("closeWhenOpen", () => {
  it("closes a store once it has opened, and never rejects for one that failed to open", async () => {
    let closed = 0;
    await closeWhenOpen(Promise.resolve({ close: async () => void (closed += 1) } as unknown as Db));
    expect(closed).toBe(1);
    await expect(closeWhenOpen(Promise.reject(new Error("no store")))).resolves.toBeUndefined();
    await expect(closeWhenOpen(Promise.resolve({ close: () => Promise.reject(new Error("closing failed")) } as unknown as Db))).resolves.toBeUndefined();
  });
});

describe("migrate", () => {
  const m = (version: number, sql: string): Migration => ({ version, sql });

  it("applies migrations newer than the database's, each statement of each (a ';' inside a line is not a split), and records them", async () => {
    const db = await memoryDb();
    try {
      expect(await appliedMigration(db)).toBe(LATEST);
      const before = Date.now();
      const newest = await migrate(db, [...MIGRATIONS, m(LATEST + 1, "CREATE TABLE extra_a (x int);\nCREATE TABLE extra_b (s text DEFAULT 'a;b');\n")]);
      expect(newest).toBe(LATEST + 1);
      expect(await tables(db, "extra_%")).toEqual(["extra_a", "extra_b"]);
      await db.query("INSERT INTO extra_b DEFAULT VALUES");
      expect(await db.query("SELECT s FROM extra_b")).toEqual([{ s: "a;b" }]);
      expect(await appliedMigration(db)).toBe(LATEST + 1);
      const [row] = await db.query("SELECT applied_at FROM schema_migrations WHERE version = $1", [LATEST + 1]);
      expect(Number(row!.applied_at)).toBeGreaterThanOrEqual(before);
      expect(Number(row!.applied_at)).toBeLessThanOrEqual(Date.now());
      // Up to date: nothing is applied again (a second CREATE TABLE would fail).
      expect(await migrate(db, [...MIGRATIONS, m(LATEST + 1, "CREATE TABLE extra_a (x int)")])).toBe(LATEST + 1);
      expect(await migrate(db, [])).toBe(0);
    } finally {
      await db.close();
    }
  });

  it("a database missing an older migration than its newest gets that one applied, and the others not again", async () => {
    const db = await memoryDb();
    try {
      expect(await migrate(db, [m(101, "CREATE TABLE m101 (x int)")])).toBe(101);
      expect(await migrate(db, [m(100, "CREATE TABLE m100 (x int)"), m(101, "CREATE TABLE m101 (x int)")])).toBe(101);
      expect(await tables(db, "m10_")).toEqual(["m100", "m101"]);
      expect((await versions(db)).filter((v) => v >= 100)).toEqual([100, 101]);
    } finally {
      await db.close();
    }
  });

  it("a migration that fails is undone whole and not recorded; the ones before it stay", async () => {
    const db = await memoryDb();
    try {
      const failing = [m(200, "CREATE TABLE m200 (x int)"), m(201, "CREATE TABLE m201 (x int);\nSELECT * FROM no_such_table")];
      await expect(migrate(db, failing)).rejects.toMatchObject({ code: "42P01" });
      expect(await tables(db, "m20_")).toEqual(["m200"]);
      expect((await versions(db)).filter((v) => v >= 200)).toEqual([200]);
    } finally {
      await db.close();
    }
  });

  it("a new database (no table of migrations yet) gets the table and every migration; no migration recorded reads as 0", async () => {
    const db = await memoryDb();
    try {
      await db.query("DELETE FROM schema_migrations");
      expect(await appliedMigration(db)).toBe(0);
      await db.query("DROP TABLE schema_migrations");
      expect(await migrate(db, [m(300, "CREATE TABLE m300 (x int)"), m(301, "CREATE TABLE m301 (x int)")])).toBe(301);
      expect(await versions(db)).toEqual([300, 301]);
    } finally {
      await db.close();
    }
  });

  it("any other failure of the first read is the caller's: nothing is created", async () => {
    const seen: string[] = [];
    const down = {
      query: async (text: string) => {
        seen.push(text);
        throw Object.assign(new Error("the database is shutting down"), { code: "57P01" });
      },
    } as unknown as Db;
    await expect(migrate(down, [m(1, "CREATE TABLE a (x int)")])).rejects.toThrow("the database is shutting down");
    expect(seen.some((s) => s.includes("CREATE"))).toBe(false);
  });
});

describe("PGlite on its own thread (store/pglite.ts)", { timeout: 180_000 }, () => {
  it("answers each query its own rows, an error with its SQLSTATE, runs transactions, and after close refuses with one line", async () => {
    const db = await openPglite(undefined);
    try {
      expect([db.kind, db.exclusive]).toEqual(["pglite", true]);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => db.query("SELECT $1::int AS n", [i])));
      expect(answers.map((rows) => rows[0]!.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      const err = await db.query("SELECT * FROM no_such_table").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DatabaseError);
      expect([(err as DatabaseError).name, (err as DatabaseError).code, (err as DatabaseError).message]).toEqual([
        "DatabaseError",
        "42P01",
        'relation "no_such_table" does not exist',
      ]);
      await db.query("CREATE TABLE t (x int)");
      expect(
        await db.transaction(async (tx) => {
          await tx.query("INSERT INTO t VALUES ($1)", [1]);
          return (await tx.query("SELECT count(*)::int AS n FROM t"))[0];
        }),
      ).toEqual({ n: 1 });
      await expect(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO t VALUES (2)");
          throw new Error("undo");
        }),
      ).rejects.toThrow("undo");
      expect(await db.query("SELECT x FROM t")).toEqual([{ x: 1 }]);
      // A failed statement inside a transaction rejects the transaction with the database's error.
      await expect(db.transaction((tx) => tx.query("INSERT INTO t VALUES ('not a number')"))).rejects.toMatchObject({ code: "22P02" });
      expect(await db.query("SELECT x FROM t")).toEqual([{ x: 1 }]);
    } finally {
      await db.close();
    }
    await expect(db.query("SELECT 1")).rejects.toThrow(new DatabaseError("the database is closed"));
    await expect(db.close()).resolves.toBeUndefined();
  });

  it("a directory that is not a database: one line naming it, with the store's code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verispec-open-units-"));
    try {
      writeFileSync(join(dir, "PG_VERSION"), "not a data directory\n");
      const err = await openPglite(dir).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DatabaseError);
      expect([(err as DatabaseError).message, (err as DatabaseError).code]).toEqual([
        `PGlite cannot open ${dir}: PGlite failed to initialize properly`,
        OPEN_FAILED,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("openStore: a relative --db directory is made under the working directory, with the migrations applied", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "verispec-open-units-"));
    try {
      const db = await openStore("nested/db", cwd);
      try {
        expect(existsSync(join(cwd, "nested", "db", "PG_VERSION"))).toBe(true);
        expect(await appliedMigration(db)).toBe(LATEST);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("PGlite's settings (store/pglite-open.ts)", { timeout: 120_000 }, () => {
  it("every PGlite the sandbox opens has bitmap scans off and small shared memory; settings given replace them", async () => {
    const t = await template();
    const names = ["enable_bitmapscan", "max_connections", "shared_buffers", "wal_init_zero", "work_mem"];
    const SHOW = `SELECT ${names.map((n) => `current_setting('${n}') AS ${n}`).join(", ")}`;
    const sandboxs = pgliteDb(await openPgliteHere(undefined, { loadDataDir: t.tar, arrayTypes: t.arrayTypes }));
    try {
      expect((await sandboxs.query(SHOW))[0]).toMatchObject({ enable_bitmapscan: "off", max_connections: "5", shared_buffers: "16MB", wal_init_zero: "off" });
    } finally {
      await sandboxs.close();
    }
    const given = pgliteDb(await openPgliteHere(undefined, { loadDataDir: t.tar, settings: ["work_mem=5MB"] }));
    try {
      expect((await given.query(SHOW))[0]).toMatchObject({ enable_bitmapscan: "on", work_mem: "5MB" });
      // Parameters are passed as given (a readonly list is copied), and none is none.
      expect(await given.query("SELECT $1::text AS a, $2::int AS b", Object.freeze(["x", 2]))).toEqual([{ a: "x", b: 2 }]);
      expect(await given.query("SELECT 3 AS c")).toEqual([{ c: 3 }]);
    } finally {
      await given.close();
    }
  });
});
