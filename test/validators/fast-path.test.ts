// The performance work keeps every answer: the error mapping's hot path (mapErrors) gives exactly what
// the reference pipeline (filterNoise, toIssue, groupIssues) gives, on every fixture and on hostile
// input, and the generated code's counting-only condition failures give the same verdicts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as raw from "../../generated/validators/ajv.js";
import { MESSAGES, TABLE } from "../../generated/validators/errors.js";
import { schemaIds } from "../../generated/validators/index.js";
import type { SchemaId } from "../../generated/validators/index.js";
import { dropPlaceholderErrors, pascalId } from "../../generator/emit/validators/index.js";
import { mapErrors } from "../../templates/validators/map-errors.js";
import { toIssue } from "../../templates/validators/to-issue.js";
import { quickIssues, quickSites } from "../../templates/validators/quick-map.js";
import { filterNoise, groupIssues } from "./reference-pipeline.js";
import type { AjvError, RawValidate } from "../../templates/validators/types.js";
import { propertyRuns } from "../support/runs.js";
import { loadFixtures, ROOT } from "./helpers.js";

const fixtures = loadFixtures();
const rawOf = (id: string) => (raw as unknown as Record<string, RawValidate>)[`raw${pascalId(id)}`]!;

/** Ajv's errors for a document, or undefined when it is valid. */
function ajvErrors(id: string, data: unknown, abnChecksum = false): readonly AjvError[] | undefined {
  const fn = rawOf(id);
  return fn.call({ abnChecksum }, data) ? undefined : [...(fn.errors ?? [])];
}

// The reference shares toIssue with the module under test: this file pins the fast path's filtering,
// grouping and caching against it, not the messages. The messages (toIssue, format:<name> included)
// are pinned by the payload fixtures (fixtures.test.ts), whose expected issues are written out by hand.
const reference = (errors: readonly AjvError[], data: unknown) =>
  groupIssues(
    filterNoise(errors, TABLE).map((e) => toIssue(e, data, TABLE, MESSAGES)),
    MESSAGES,
  );

describe("mapErrors (the hot path) answers as the reference pipeline", () => {
  it("on every invalid fixture, twice (the second time from what the first worked out)", () => {
    let invalid = 0;
    for (const f of fixtures) {
      const errors = ajvErrors(f.schema, f.data, f.options?.abnChecksum);
      if (!errors) continue;
      invalid++;
      const expected = reference(errors, f.data);
      expect(mapErrors(errors, f.data, TABLE, MESSAGES), f.name).toEqual(expected);
      expect(JSON.stringify(mapErrors(errors, f.data, TABLE, MESSAGES)), f.name).toBe(JSON.stringify(expected)); // key order too
    }
    expect(invalid).toBeGreaterThan(50);
  });

  it("on hostile input across the schemas (3,000 runs)", () => {
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
      fc.property(fc.constantFrom(...(schemaIds as readonly SchemaId[])), doc, (anyId, d) => {
        const [id, data] =
          d !== null && typeof d === "object" && "id" in (d as object) ? [(d as { id: string }).id, (d as { data: unknown }).data] : [anyId, d];
        const errors = ajvErrors(id, data);
        if (errors) expect(JSON.stringify(mapErrors(errors, data, TABLE, MESSAGES))).toBe(JSON.stringify(reference(errors, data)));
      }),
      { numRuns: propertyRuns(3_000), seed: 20260102 },
    );
  });

  it("the one-pass path (quickIssues) answers as mapErrors whenever it answers, on every fixture and hostile input", () => {
    const sites = quickSites(TABLE, MESSAGES);
    let answered = 0;
    let declined = 0;
    const same = (errors: readonly AjvError[], data: unknown, maxErrors: number) => {
      const quick = quickIssues(errors, data, sites, TABLE, maxErrors);
      const full = mapErrors(errors, data, TABLE, MESSAGES, maxErrors);
      if (quick === undefined) return void declined++;
      answered++;
      expect(JSON.stringify(quick)).toBe(JSON.stringify(full));
      expect(JSON.stringify(quick)).toBe(JSON.stringify(reference(errors, data)));
    };
    // Three times: first met, then from what mapErrors worked out, then from what both did.
    for (let round = 0; round < 3; round++) {
      for (const f of fixtures) {
        const errors = ajvErrors(f.schema, f.data, f.options?.abnChecksum);
        if (errors) same(errors, f.data, Infinity);
      }
    }
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), fc.jsonValue(), fc.nat(), (f, v, n) => {
        const data = structuredClone(f.data) as Record<string, unknown>;
        if (data && typeof data === "object" && !Array.isArray(data)) {
          const keys = Object.keys(data);
          if (keys.length) data[keys[n % keys.length]!] = v;
        }
        const errors = ajvErrors(f.schema, data);
        if (errors) same(errors, data, (n % 4) + 1); // small maxErrors too: a cut list is never the quick path's
      }),
      { numRuns: propertyRuns(2_000), seed: 20261128 },
    );
    expect(answered).toBeGreaterThan(50); // the path is taken...
    expect(declined).toBeGreaterThan(10); // ...and declined where it must be
  });

  it("groups and de-duplicates past the linear-scan size, with array indices as numbers", () => {
    const errors: AjvError[] = [];
    for (let i = 0; i < 40; i++) {
      errors.push({ instancePath: `/items/${i}`, schemaPath: "#/$defs/t/properties/items/items/type", keyword: "type", params: { type: "string" } });
      errors.push({ instancePath: `/items/${i}`, schemaPath: "#/$defs/t/properties/items/items/minLength", keyword: "minLength", params: { limit: 1 } });
      errors.push({
        instancePath: "/obj",
        schemaPath: "#/$defs/t/properties/obj/additionalProperties",
        keyword: "additionalProperties",
        params: { additionalProperty: `k${i}` },
      });
    }
    const data = { items: Array.from({ length: 40 }, () => 1), obj: {} };
    const ours = mapErrors(errors, data, TABLE, MESSAGES);
    expect(ours).toEqual(reference(errors, data));
    expect(ours).toHaveLength(41);
    expect(ours[0]!.path).toEqual(["items", 0]);
  });
});

describe("quickIssues' slots (each error number keeps its issue at one place, per validator)", () => {
  const id = "v4.VerifyRequest";
  // The older API's USA individual (the service's specification, section 2.2), three fields wrong.
  const fields = { country: "USA", firstName: "a".repeat(80), lastName: "Citizen", dateOfBirth: "15/07/1985", streetNumber: "12" };
  const place = { streetName: "Main", suburb: "Springfield", postcode: "1234", state: "IL", gender: "x" };
  const data = { metadata_version: "4", metadata_serviceUid: "svc", metadata_secretKey: "key", type: "individual", fields: { ...fields, ...place } };
  const sites = quickSites(TABLE, MESSAGES);

  it("answers as mapErrors, and a second call gives the same issues, shared and frozen", () => {
    const first = quickIssues(ajvErrors(id, data)!, data, sites, TABLE, 100)!;
    const second = quickIssues(ajvErrors(id, data)!, data, sites, TABLE, 100)!;
    expect(first).toEqual(mapErrors(ajvErrors(id, data)!, data, TABLE, MESSAGES));
    expect(first.length).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < first.length; i++) {
      expect(second[i]).toBe(first[i]);
      expect(Object.isFrozen(first[i]) && Object.isFrozen(first[i]!.path)).toBe(true);
    }
    expect(second).not.toBe(first); // the list itself is the caller's
  });

  it("answers an error whose slot was filled at another place from its own place, alternately", () => {
    const errors = ajvErrors(id, data)!;
    expect(errors.every((e) => e.row != null)).toBe(true);
    // The same error numbers (the same slots) reported under another base, as a shared definition is.
    const moved = errors.map((e) => (e.base === "/fields" ? { ...e, base: "/other", instancePath: `/other${e.at}` } : e));
    const movedData = { ...data, other: data.fields };
    for (let round = 0; round < 3; round++) {
      expect(quickIssues(errors, data, sites, TABLE, 100)).toEqual(mapErrors(errors, data, TABLE, MESSAGES));
      const there = quickIssues(moved, movedData, sites, TABLE, 100)!;
      expect(there).toEqual(mapErrors(moved, movedData, TABLE, MESSAGES));
      expect(there.some((issue) => issue.path[0] === "other")).toBe(true);
    }
  });

  it("answers as mapErrors once its numbering of codes and paths is full (bounded: paths under free keys are unbounded)", () => {
    const full = quickSites(TABLE, MESSAGES);
    for (let i = 0; full.same.size < 31; i++) full.same.set(`filler ${i}`, full.same.size);
    const errors = ajvErrors(id, data)!;
    const twice = [...errors, ...errors];
    for (let round = 0; round < 3; round++) expect(quickIssues(twice, data, full, TABLE, 100)).toEqual(mapErrors(errors, data, TABLE, MESSAGES));
    expect(full.same.size).toBe(31);
  });

  it("keeps one issue per code and path, whether they come from slots or not", () => {
    const errors = ajvErrors(id, data)!;
    const twice = [...errors, ...errors];
    expect(quickIssues(twice, data, sites, TABLE, 100)).toEqual(mapErrors(errors, data, TABLE, MESSAGES));
    const slotless = errors.map((e) => ({ ...e, row: null }));
    expect(quickIssues([...errors, ...slotless], data, sites, TABLE, 100)).toEqual(mapErrors(errors, data, TABLE, MESSAGES));
    expect(quickIssues([...slotless, ...errors], data, sites, TABLE, 100)).toEqual(mapErrors(errors, data, TABLE, MESSAGES));
  });
});

describe("generated code", () => {
  it("counts a failed if/not condition without allocating a placeholder error", () => {
    const code = readFileSync(join(ROOT, "generated", "validators", "ajv.js"), "utf8");
    expect(code).not.toMatch(/const err\d+ = \{\};/);
    expect(dropPlaceholderErrors("{const err3 = {};(vErrors ??= []).push(err3);errors++;}")).toBe("{errors++;}");
  });
});
