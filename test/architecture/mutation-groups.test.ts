// The sandbox's mutation groups (test/support/mutate-sandbox.ts) cover every file Stryker mutates there,
// once, so the groups' table is the folder's figure; and the table counts as the docs say.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { GROUPS, table } from "../support/mutate-sandbox.js";

const root = join(import.meta.dirname, "..", "..");

function sandboxSources(dir = join(root, "templates", "sandbox")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sandboxSources(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")
        ? [relative(join(root, "templates", "sandbox"), join(dir, e.name)).replace(/\.ts$/, "")]
        : [],
  );
}

describe("mutation groups of templates/sandbox/", () => {
  it("name every mutated file exactly once (the files stryker.config.json leaves out excepted)", () => {
    const config = JSON.parse(readFileSync(join(root, "stryker.config.json"), "utf8")) as { mutate: string[] };
    const left = new Set(
      config.mutate.filter((m) => m.startsWith("!templates/sandbox/")).map((m) => m.slice("!templates/sandbox/".length).replace(/\.ts$/, "")),
    );
    const grouped = Object.values(GROUPS).flat();
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual(
      sandboxSources()
        .filter((f) => !left.has(f))
        .sort(),
    );
  });

  it("table: per file and total, score = (killed + timed out) / (killed + timed out + survived + no coverage), ignored left out", () => {
    const m = (status: string, n: number) => Array.from({ length: n }, () => ({ status }));
    const text = table([
      {
        files: {
          "/x/templates/sandbox/a.ts": { mutants: [...m("Killed", 6), ...m("Timeout", 1), ...m("Survived", 2), ...m("NoCoverage", 1), ...m("Ignored", 5)] },
        },
      },
      { files: { "/x/templates/sandbox/store/b.ts": { mutants: m("Survived", 2) } } },
    ] as never);
    expect(text.split("\n").slice(2)).toEqual([
      "| `a.ts` | 10 | 6 | 1 | 2 | 1 | 70.00 % |",
      "| `store/b.ts` | 2 | 0 | 0 | 2 | 0 | 0.00 % |",
      "| **total** | 12 | 6 | 1 | 4 | 1 | 58.33 % |",
    ]);
  });
});
