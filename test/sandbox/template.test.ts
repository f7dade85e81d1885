// The shipped PGlite template (templates/sandbox/store/template.ts, built by npm run build): a new
// database, in memory or in a new directory, is loaded from it (its migrations were applied when it was
// built, before this test started) instead of being initialised; an existing directory is opened as it is.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../templates/sandbox/store/index.js";
import { appliedMigration, migrate, MIGRATIONS } from "../../templates/sandbox/store/migrations.js";
import type { Db } from "../../templates/sandbox/store/sql.js";
import { openPgliteHere, pgliteDb } from "../../templates/sandbox/store/pglite-open.js";
import {
  arrayTypesPath,
  extractTemplate,
  pgliteInMemory,
  readArrayTypes,
  readTemplate,
  tarOf,
  templateName,
  templatePath,
  writeTemplate,
} from "../../templates/sandbox/store/template.js";
import { ROOT } from "./helpers.js";

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), "verispec-template-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function migrations(option: string): Promise<{ version: number; appliedAt: number }[]> {
  const db = await openStore(option, ROOT);
  try {
    return (await db.query("SELECT version, applied_at FROM schema_migrations ORDER BY version")).map((r) => ({
      version: Number(r.version),
      appliedAt: Number(r.applied_at),
    }));
  } finally {
    await db.close();
  }
}

describe("the PGlite template", { timeout: 120_000 }, () => {
  it("is built for the current migrations and named by them", () => {
    expect(templatePath()).toMatch(new RegExp(`dist/pglite-template/${templateName().replace(/\./g, "\\.")}$`));
  });

  it.each([["memory"], ["a new directory"]])("starts a database in %s from it, every migration applied", async (where) => {
    const rows = await migrations(where === "memory" ? "memory" : join(dir, "new"));
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(rows.every((r) => r.appliedAt < started)).toBe(true); // applied when the template was built
  });

  it("is small: one database (no template0/template1), shut down cleanly, the WAL of its last checkpoint only", async () => {
    const db = pgliteDb(await pgliteInMemory(readTemplate()));
    try {
      expect(await db.query("SELECT datname FROM pg_database ORDER BY datname")).toEqual([{ datname: "postgres" }]);
      expect(await db.query("SELECT current_setting('wal_segment_size') AS size")).toEqual([{ size: "1MB" }]);
      expect(Number((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_ls_waldir()"))[0]!.n)).toBeLessThanOrEqual(3);
    } finally {
      await db.close();
    }
  });

  it("a template of the first migrations is used, the newer ones applied at open; one of other migrations is not used", async () => {
    const older = MIGRATIONS.slice(0, -1);
    const templates = join(dir, "templates");
    const file = await writeTemplate(templates, older);
    expect(file).toBe(join(templates, templateName(older)));
    expect(templatePath([templates])).toBe(file);
    const db = pgliteDb(await pgliteInMemory(readTemplate(file)));
    try {
      expect(await appliedMigration(db)).toBe(older.at(-1)!.version);
      expect(await migrate(db)).toBe(MIGRATIONS.at(-1)!.version);
      expect(await appliedMigration(db)).toBe(MIGRATIONS.at(-1)!.version);
    } finally {
      await db.close();
    }
    const other = [{ ...MIGRATIONS[0]!, sql: `${MIGRATIONS[0]!.sql};\nSELECT 1` }];
    const elsewhere = join(dir, "other");
    rmSync(file);
    writeFileSync(join(templates, templateName(other)), "");
    expect(templatePath([templates, elsewhere])).toBeUndefined();
  }, 240_000);

  it("migrate on an up-to-date database reads once: no transaction, no lock, no DDL", async () => {
    const db = pgliteDb(await pgliteInMemory(readTemplate()));
    const seen: string[] = [];
    const spy: Db = {
      ...db,
      query: (text, params) => (seen.push(text), db.query(text, params)),
      transaction: (fn) => (seen.push("transaction"), db.transaction(fn)),
    };
    try {
      expect(await migrate(spy)).toBe(MIGRATIONS.at(-1)!.version);
      expect(seen).toEqual([expect.stringMatching(/^SELECT count\(\*\)::int AS n FROM schema_migrations /)]);
    } finally {
      await db.close();
    }
  });

  it("keeps its catalog's array types beside it: a database loaded with the list parses and serialises arrays as one that asks", async () => {
    const template = readTemplate()!;
    expect(template.arrayTypes!.length).toBeGreaterThan(50);
    expect(template.arrayTypes).toContainEqual({ oid: 25, typarray: 1009 }); // text, text[]
    const listed = await openPgliteHere(undefined, { loadDataDir: template.tar, arrayTypes: template.arrayTypes });
    const asked = await openPgliteHere(undefined, { loadDataDir: template.tar });
    try {
      for (const table of ["parsers", "serializers"] as const) expect(Object.keys(listed[table]).sort()).toEqual(Object.keys(asked[table]).sort());
      const q = `SELECT $1::text[] AS t, $2::bigint[] AS b, $3::int[] AS i, ARRAY['a,b', NULL, '"q"']::text[] AS quoted, ARRAY[[1, 2], [3, 4]]::int[] AS nested`;
      const params = [
        ["x", "y z", ""],
        [1, 2 ** 40],
        [-1, 0],
      ];
      const rows = (await listed.query<Record<string, unknown>>(q, params)).rows;
      expect(rows).toEqual((await asked.query(q, params)).rows);
      expect(rows[0]).toMatchObject({
        t: ["x", "y z", ""],
        i: [-1, 0],
        quoted: ["a,b", null, '"q"'],
        nested: [
          [1, 2],
          [3, 4],
        ],
      });
    } finally {
      await listed.close();
      await asked.close();
    }
  });

  it("a missing or unreadable array types list is no list: PGlite then asks the database", () => {
    expect(arrayTypesPath("/t/pglite-6-0123456789abcdef.tar")).toBe("/t/pglite-6-0123456789abcdef.array-types.json");
    const file = join(dir, "types.json");
    expect(readArrayTypes(join(dir, "absent.json"))).toBeUndefined();
    for (const text of ["{", "{}", '[{"oid":25}]', '[{"oid":"25","typarray":1009}]', '[{"oid":25,"typarray":1009.5}]', "[null]"]) {
      writeFileSync(file, text);
      expect(readArrayTypes(file)).toBeUndefined();
    }
    writeFileSync(file, '[{"oid":25,"typarray":1009}]');
    expect(readArrayTypes(file)).toEqual([{ oid: 25, typarray: 1009 }]);
  });

  it("a new directory gets the template's files as they are archived, PG_VERSION among them; other entries are refused", () => {
    const template = readTemplate()!;
    const into = join(dir, "extracted");
    extractTemplate(template.tar, into);
    expect(readFileSync(join(into, "PG_VERSION"), "utf8")).toMatch(/^\d+\n$/);
    expect(tarOf(into).equals(template.tar)).toBe(true); // every file and directory, byte for byte
    const entry = (name: string, type: string) => {
      const h = Buffer.alloc(512);
      h.write(name, 0, "latin1");
      h.write("00000000000\0", 124, "latin1");
      h.write(type, 156, "latin1");
      return Buffer.concat([h, Buffer.alloc(1024)]);
    };
    for (const [name, type] of [
      ["/../escape", "0"],
      ["relative", "0"],
      ["/a//b", "0"],
      ["/link", "2"],
    ] as const) {
      expect(() => extractTemplate(entry(name, type), join(dir, "refused"))).toThrow(`the template's entry ${JSON.stringify(name)} is not one of its files`);
    }
    expect(() => extractTemplate(entry("/base", "5"), join(dir, "refused"))).toThrow("the template has no PG_VERSION");
  });

  it("a new directory whose extraction was cut short (no PG_VERSION yet) is extracted again at the next start", async () => {
    const path = join(dir, "cut-short");
    extractTemplate(readTemplate()!.tar, path);
    rmSync(join(path, "PG_VERSION"));
    writeFileSync(join(path, "global", "pg_control"), "torn");
    const rows = await migrations(path);
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it("opens an existing directory as it is", async () => {
    const path = join(dir, "kept");
    const db = await openStore(path, ROOT);
    await db.query("INSERT INTO sandbox_meta (key, value) VALUES ('kept', 'yes')");
    await db.close();
    const again = await openStore(path, ROOT);
    try {
      expect(await again.query("SELECT value FROM sandbox_meta WHERE key = 'kept'")).toEqual([{ value: "yes" }]);
    } finally {
      await again.close();
    }
  });
});
