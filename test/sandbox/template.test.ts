// The shipped PGlite template (templates/sandbox/store/template.ts, built by npm run build): a new
// database, in memory or in a new directory, is loaded from it (its migrations were applied when it was
// built, before this test started) instead of being initialised; an existing directory is opened as it is.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../templates/sandbox/store/index.js";
import { MIGRATIONS } from "../../templates/sandbox/store/migrations.js";
import { templateName, templatePath } from "../../templates/sandbox/store/template.js";
import { ROOT } from "./helpers.js";

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), "verispec-template-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function migrations(option: string): Promise<{ version: number; appliedAt: number }[]> {
  const db = await openStore(option, ROOT);
  try {
    return (await db.query("SELECT version, applied_at FROM schema_migrations ORDER BY version")).map((r) => ({ version: Number(r.version), appliedAt: Number(r.applied_at) }));
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
