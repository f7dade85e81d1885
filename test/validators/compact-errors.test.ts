// The generated code keeps each error's fixed part (schemaPath, keyword, params, the literal part of the
// instancePath) in per-function tables (compactErrors); the error objects must be the very ones Ajv's
// code writes out: same keys, same order, same values, on every fixture and on hostile input, plus the
// number of the error (`row`, last, unique in the module), on which the mapping keys its cache (quick-map.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactErrors, compileValidators, compiledDocument, pascalId } from "../../generator/emit/validators/index.js";
import { reachOf } from "../../generator/emit/validators/reach.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { schemaIds } from "../../generated/validators/index.js";
import type { RawValidate } from "../../templates/validators/types.js";
import { propertyRuns } from "../support/runs.js";
import { loadFixtures, ROOT } from "./helpers.js";

type Module = Record<string, RawValidate>;
const fixtures = loadFixtures();
let dir: string;
let plain: Module;
let compact: Module;

async function load(code: string, name: string): Promise<Module> {
  const runtime = pathToFileURL(join(ROOT, "generated", "validators", "runtime.js")).href;
  const file = join(dir, name);
  writeFileSync(file, code.replaceAll('from "./runtime.js"', `from "${runtime}"`));
  return (await import(pathToFileURL(file).href)) as Module;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "verispec-compact-"));
  const doc = compiledDocument(modelFromSpec(join(ROOT, "spec")));
  plain = await load(compileValidators(doc, { compact: false }), "plain.js");
  compact = await load(compileValidators(doc), "compact.js");
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixedOfRow = new Map<number, string>();

function sameErrors(id: string, data: unknown, abnChecksum = false): void {
  const a = plain[`raw${pascalId(id)}`]!;
  const b = compact[`raw${pascalId(id)}`]!;
  const va = a.call({ abnChecksum }, data);
  const vb = b.call({ abnChecksum }, data);
  expect(vb).toBe(va);
  // One key more, last: `row`, the error's number (null where its params come from the document).
  for (const e of b.errors ?? []) {
    expect(Object.keys(e).at(-1)).toBe("row");
    expect(e.row === null || (Number.isInteger(e.row) && e.row! >= 0)).toBe(true);
    // One number, one fixed part, across every schema of the module: the mapping's cache keys on it.
    if (e.row != null) {
      const fixed = JSON.stringify([e.schemaPath, e.keyword, e.at ?? null, e.params]);
      expect(fixedOfRow.get(e.row) ?? fixed).toBe(fixed);
      fixedOfRow.set(e.row, fixed);
    }
  }
  const withoutRow = (errors: RawValidate["errors"]) => errors?.map(({ row: _row, ...rest }) => rest) ?? null;
  expect(withoutRow(b.errors)).toEqual(a.errors ?? null);
  expect(JSON.stringify(withoutRow(b.errors))).toBe(JSON.stringify(a.errors ?? null)); // key order too
}

describe("compactErrors", () => {
  it("is what generated/validators/ajv.js holds", () => {
    const doc = compiledDocument(modelFromSpec(join(ROOT, "spec")));
    // All of it that some schema id reaches (validators/reach.ts drops the rest).
    const reached = reachOf(compileValidators(doc)).code(doc.published.map((id) => `raw${pascalId(id)}`));
    expect(readFileSync(join(ROOT, "generated", "validators", "ajv.js"), "utf8")).toContain(reached.trimEnd());
  });

  it("gives the error objects of Ajv's code on every fixture (twice: tables read on first use)", () => {
    for (let round = 0; round < 2; round++) for (const f of fixtures) sameErrors(f.schema, f.data, f.options?.abnChecksum);
  });

  it("gives the error objects of Ajv's code on hostile input across the schemas (2,000 runs)", () => {
    const doc = fc.oneof(
      fc.jsonValue(),
      fc.tuple(fc.constantFrom(...fixtures), fc.jsonValue(), fc.nat()).map(([f, v, n]) => {
        const data = structuredClone(f.data) as Record<string, unknown>;
        if (data && typeof data === "object" && !Array.isArray(data)) {
          const keys = Object.keys(data);
          if (keys.length) data[keys[n % keys.length]!] = v;
        }
        return { id: f.schema, data };
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...schemaIds), doc, (anyId, d) => {
        const [id, data] =
          d !== null && typeof d === "object" && "id" in (d as object) ? [(d as { id: string }).id, (d as { data: unknown }).data] : [anyId, d];
        sameErrors(id, data);
      }),
      { numRuns: propertyRuns(2_000), seed: 20260103 },
    );
  });

  it("leaves no error object literal in the generated code, and no non-ASCII character", () => {
    const code = readFileSync(join(ROOT, "generated", "validators", "ajv.js"), "utf8");
    expect(code).not.toMatch(/const err\d+ = \{/);
    expect(code).toMatch(/^[\x00-\x7f]*$/);
  });

  it("keeps params that name the document inline and shares the fixed ones", () => {
    const code = [
      'function validate1(data, {instancePath=""}={}){let vErrors = null;let errors = 0;',
      'const err0 = {instancePath:instancePath+"/a",base:instancePath,at:"/a",schemaPath:"#/$defs/t/properties/a/type",keyword:"type",params:{type: "string"}};(vErrors ??= []).push(err0);errors++;',
      'const err1 = {instancePath,schemaPath:"#/$defs/t/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0}};(vErrors ??= []).push(err1);errors++;',
      'const err2 = {instancePath,schemaPath:"#/$defs/t/pattern",keyword:"pattern",params:{pattern: "^[0-9]{11}$"}};(vErrors ??= []).push(err2);errors++;',
      "}",
    ].join("");
    const out = compactErrors(code);
    expect(out).not.toMatch(/const err\d/);
    expect(out).toContain("$spent(this) ? $OVER : $errAt(validate1_errors,instancePath,0)");
    expect(out).toContain("$spent(this) ? $OVER : $errP(validate1_errors,instancePath,1,{additionalProperty: key0})");
    expect(out).toContain("$spent(this) ? $OVER : $err(validate1_errors,instancePath,2)");
  });
});
