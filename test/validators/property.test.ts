// Hostile input (issue item 6): no throw on any JSON value, no prototype access or pollution, and
// work that grows linearly with input size (counted in calls, not measured in time).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { schemaIds, validate } from "../../generated/validators/index.js";
import type { SchemaId } from "../../generated/validators/index.js";
import { propertyRuns } from "../support/runs.js";
import { loadFixtures } from "./helpers.js";

const fixtures = loadFixtures();
const ids = schemaIds as readonly SchemaId[];

/** JSON values, JSON texts with `__proto__`/`constructor` keys, and fixtures with one part replaced. */
const hostile = fc.oneof(
  fc.jsonValue(),
  fc
    .jsonValue()
    .map((v) => JSON.parse(`{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"x":${JSON.stringify(v) ?? "null"}}`) as unknown),
  fc.tuple(fc.constantFrom(...fixtures), fc.jsonValue()).map(([f, v]) => {
    const data = structuredClone(f.data) as Record<string, unknown>;
    if (data && typeof data === "object" && !Array.isArray(data)) {
      const keys = Object.keys(data);
      if (keys.length) data[keys[keys.length % 3 === 0 ? 0 : keys.length - 1]!] = v;
    }
    return data;
  }),
);

describe("hostile input", () => {
  it("never throws, always answers in the service's shape, never pollutes a prototype (10,000 runs)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ids), hostile, fc.boolean(), (id, data, abnChecksum) => {
        const result = validate(id, data, { abnChecksum });
        if (!result.valid) {
          expect(result.errors.length).toBeGreaterThan(0);
          for (const e of result.errors) {
            expect(typeof e.message).toBe("string");
            expect(typeof e.code).toBe("string");
            expect(e.path.every((p) => typeof p === "string" || typeof p === "number")).toBe(true);
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: propertyRuns(10_000), seed: 20260101 },
    );
  });

  it("treats a JSON `__proto__` key as data: an unknown key of a closed object, nothing inherited", () => {
    const data = JSON.parse('{"type":"individual","fields":{"__proto__":{"country":"USA"}}}') as unknown;
    // The own `__proto__` key is not a prototype: `country` is missing, so the discriminator reports.
    const result = validate("v4.entities.Individual", data);
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors[0]!.path).toEqual(["fields", "country"]);
    const trust = JSON.parse(
      '{"type":"trust","fields":{"country":"GBR","name":"T","registeredOfficeRequired":"1 St","trustDeed":"data:application/pdf;base64,JVBERi0xLjQK","__proto__":{"x":1}},"stakeholders":[{"type":"individual","role":"trustee","fields":{}}]}',
    ) as unknown;
    expect(validate("v4.entities.Trust", trust)).toEqual({
      valid: false,
      errors: [{ message: 'Unrecognized key: "__proto__"', code: "unrecognized_keys", path: ["fields"] }],
    });
    expect(({} as Record<string, unknown>).country).toBeUndefined();
  });

  // Linear time on long strings is not timed here: every pattern is checked for catastrophic
  // backtracking by recheck (patterns.test.ts), and speed is measured in bench/.

  it("answers deep nesting without recursion into unknown content (no stack overflow)", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(validate("v5.VerificationCreateRequest", { website: "https://x", extra: deep })).toEqual({ valid: true });
    expect(validate("v4.VerifyRequest", { type: "individual", fields: deep }).valid).toBe(false);
  });
});
