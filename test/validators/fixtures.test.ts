// Every fixture (a valid and invalid set per seed table) through the generated validators, and the
// same verdict from Ajv compiling the published schemas at run time (seed: 2, 7, 8).
import { describe, expect, it } from "vitest";
import { validate } from "../../generated/validators/index.js";
import type { SchemaId } from "../../generated/validators/index.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { join } from "node:path";
import { loadFixtures, publishedSchema, ROOT, runtimeAjv, type ExpectedIssue } from "./helpers.js";

const fixtures = loadFixtures();

function matches(actual: { message: string; code: string; path: readonly (string | number)[] }, expected: ExpectedIssue): boolean {
  if (actual.code !== expected.code || JSON.stringify(actual.path) !== JSON.stringify(expected.path)) return false;
  return expected.message !== undefined ? actual.message === expected.message : actual.message.startsWith(expected.messagePrefix ?? "\u0000");
}

describe("fixtures through the generated validators", () => {
  it("has a valid and an invalid fixture for every seed table", () => {
    for (const seed of ["2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.11", "7", "8"]) {
      const here = fixtures.filter((f) => f.seed === seed);
      expect(
        here.some((f) => f.valid),
        `valid ${seed}`,
      ).toBe(true);
      if (seed !== "2.5" && seed !== "2.3")
        expect(
          here.some((f) => !f.valid),
          `invalid ${seed}`,
        ).toBe(true);
    }
  });
  for (const f of fixtures) {
    it(`${f.name} (seed: ${f.seed})`, () => {
      const result = validate(f.schema as SchemaId, f.data, f.options);
      expect(result.valid).toBe(f.valid);
      const errors = result.valid ? [] : result.errors;
      expect(errors).toHaveLength(f.errors.length);
      for (const e of f.errors)
        expect(
          errors.some((a) => matches(a, e)),
          `${JSON.stringify(e)} in ${JSON.stringify(errors)}`,
        ).toBe(true);
      for (const e of errors) expect(Object.keys(e)).toEqual(["message", "code", "path"]);
    });
  }
});

describe("standalone code and Ajv compiling at run time agree", () => {
  const ajv = runtimeAjv();
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const runtime = (id: string) => {
    if (!compiled.has(id)) compiled.set(id, ajv.compile(publishedSchema(id)));
    return compiled.get(id)!;
  };
  for (const f of fixtures) {
    it(f.name, () => {
      // The opt-in ABN checksum is not JSON Schema; without it both must give the same verdict.
      const standalone = validate(f.schema as SchemaId, f.data).valid;
      expect(runtime(f.schema)(f.data)).toBe(standalone);
      if (!f.options) expect(standalone).toBe(f.valid);
    });
  }
});

describe("the section 7 table, row by row (seed: 7)", () => {
  const model = modelFromSpec(join(ROOT, "spec"));
  for (const row of model.messages.observed) {
    for (const path of row.paths) {
      it(`${row.code} | ${row.message} | ${path.join(", ")}`, () => {
        const hits = fixtures.filter(
          (f) => f.seed === "7" && f.errors.some((e) => e.message === row.message && e.code === row.code && JSON.stringify(e.path) === JSON.stringify(path)),
        );
        expect(hits.length).toBeGreaterThan(0);
        for (const f of hits) {
          const result = validate(f.schema as SchemaId, f.data);
          expect(result).toEqual({ valid: false, errors: [{ message: row.message, code: row.code, path }] });
        }
      });
    }
  }
});
