// Each schema id's module holds only the compiled code that id reaches (generator/emit/validator-reach.ts):
// it must answer exactly as the shared module does, on every fixture, and hold nothing of other ids.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { reachOf } from "../../generator/emit/validators/reach.js";
import { validatorName } from "../../generator/emit/validators/index.js";
import * as all from "../../generated/validators/index.js";
import type { Validator } from "../../templates/validators/types.js";
import { loadFixtures, ROOT } from "./helpers.js";

const fixtures = loadFixtures();
const moduleOf = async (id: string) => (await import(pathToFileURL(join(ROOT, "generated", "validators", `${id}.js`)).href)) as Record<string, Validator>;

describe("reachOf", () => {
  const code = [
    'import * as lib from "./lib.js";',
    "const unused = 1;function helper(x){return lib.f(x) + shared;}const shared = 2;",
    "export const rawA = validate1;function validate1(d){return helper(d);}",
    "export const rawB = validate2;function validate2(d){const shared = 3;return d === shared;}",
  ].join("\n");

  it("keeps what an export reaches, transitively, in the original order", () => {
    expect(reachOf(code).code(["rawA"])).toBe(
      'import * as lib from "./lib.js";\nfunction helper(x){return lib.f(x) + shared;}const shared = 2;export const rawA = validate1;function validate1(d){return helper(d);}',
    );
  });

  it("leaves out imports and declarations nothing reached names, and can drop the export keyword", () => {
    // `shared` is kept for rawB because a local of the same name reads as a reference: one declaration too many, never one too few.
    expect(reachOf(code).code(["rawB"], { unexport: true })).toBe(
      "const shared = 2;const rawB = validate2;function validate2(d){const shared = 3;return d === shared;}",
    );
  });

  it("refuses an export the code does not declare", () => {
    expect(() => reachOf(code).code(["rawC"])).toThrow(/declares no rawC/);
  });
});

describe("one module per schema id", () => {
  it("answers every fixture exactly as the shared module does", async () => {
    let checked = 0;
    for (const f of fixtures) {
      const own = (await moduleOf(f.schema))[validatorName(f.schema)]!;
      const shared = (all as unknown as Record<string, Validator>)[validatorName(f.schema)]!;
      expect(JSON.stringify(own(f.data, f.options)), f.name).toBe(JSON.stringify(shared(f.data, f.options)));
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("holds only its own schemas' code (a v5 module names no older schema)", () => {
    for (const id of all.schemaIds.filter((i) => i.startsWith("v5."))) {
      const text = readFileSync(join(ROOT, "generated", "validators", `${id}.js`), "utf8");
      expect(text, id).not.toContain("#/$defs/v4.");
      expect(text, id).not.toContain('from "./ajv.js"');
    }
  });
});
