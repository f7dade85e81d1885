// The hand-written runtime (templates/validators): error mapping pieces and the ABN checksum.
import { describe, expect, it } from "vitest";
import { abnChecksum } from "../../templates/validators/abn.js";
import { fill, parsedType } from "../../templates/validators/messages.js";
import { applicators, resolvePath, toIssue } from "../../templates/validators/to-issue.js";
import { filterNoise, groupIssues } from "./reference-pipeline.js";
import { createValidator } from "../../templates/validators/validator.js";
import type { AjvError, MessageTemplates, RawValidate } from "../../templates/validators/types.js";

const MESSAGES: MessageTemplates = {
  required: { code: "invalid_type", message: "Invalid input: expected {expected}, received undefined" },
  type: { code: "invalid_type", message: "Invalid input: expected {expected}, received {received}" },
  additionalProperties: { code: "unrecognized_keys", message: "Unrecognized key: {keys}" },
  "additionalProperties:plural": { code: "unrecognized_keys", message: "Unrecognized keys: {keys}" },
  oneOf: { code: "invalid_union", message: "Invalid input" },
  custom: { code: "custom", message: "Invalid input" },
};
const err = (instancePath: string, schemaPath: string, keyword: string, params: Record<string, unknown> = {}): AjvError => ({
  instancePath,
  schemaPath,
  keyword,
  params,
});

describe("resolvePath", () => {
  it("turns array indices into numbers and keeps numeric-looking property names as strings", () => {
    const data = { stakeholders: [{ role: "x" }], map: { "0": "zero" } };
    expect(resolvePath(data, "/stakeholders/0/role")).toEqual({ path: ["stakeholders", 0, "role"], value: "x" });
    expect(resolvePath(data, "/map/0")).toEqual({ path: ["map", "0"], value: "zero" });
  });
  it("reads own properties only (never the prototype chain) and unescapes ~1 ~0", () => {
    expect(resolvePath({}, "/constructor").value).toBeUndefined();
    expect(resolvePath({}, "/__proto__").value).toBeUndefined();
    expect(resolvePath({ "a/b": { "c~d": 1 } }, "/a~1b/c~0d")).toEqual({ path: ["a/b", "c~d"], value: 1 });
  });
});

describe("messages", () => {
  it("fills placeholders and leaves unknown ones", () => {
    expect(fill("expected {expected}, got {other}", { expected: "string" })).toBe("expected string, got {other}");
  });
  it("names types as Zod 4 does", () => {
    expect([null, [], 1, "s", true, {}, undefined].map(parsedType)).toEqual(["null", "array", "number", "string", "boolean", "object", "undefined"]);
  });
  it("a required error points at the missing property, with its expected type (seed: 7)", () => {
    const table = { "#/required": { expected: { website: "string" } } };
    expect(toIssue(err("", "#/required", "required", { missingProperty: "website" }), {}, table, MESSAGES)).toEqual({
      code: "invalid_type",
      message: "Invalid input: expected string, received undefined",
      path: ["website"],
    });
  });
  it("a nested requirement reports the innermost key (seed: 7, addresses, registeredAddress)", () => {
    const table = { "#/then/required": { expected: { addresses: "string" }, nested: { addresses: ["registeredAddress"] } } };
    expect(toIssue(err("", "#/then/required", "required", { missingProperty: "addresses" }), {}, table, MESSAGES).path).toEqual([
      "addresses",
      "registeredAddress",
    ]);
  });
  it("an override replaces code and message", () => {
    const table = { "#/pattern": { override: { code: "invalid_format", message: "ABN must be exactly 11 digits." } } };
    expect(toIssue(err("/abn", "#/pattern", "pattern", { pattern: "x" }), { abn: "1" }, table, MESSAGES)).toEqual({
      code: "invalid_format",
      message: "ABN must be exactly 11 digits.",
      path: ["abn"],
    });
  });
});

describe("filterNoise", () => {
  it("drops if-wrappers, errors inside contains, and branch errors of a failed union", () => {
    const errors = [
      err("", "#/allOf/0/if", "if"),
      err("/s/0/role", "#/allOf/0/contains/properties/role/const", "const"),
      err("/s", "#/allOf/0/contains", "contains"),
      err("/o", "#/properties/o/oneOf/0/required", "required"),
      err("/o", "#/properties/o/oneOf", "oneOf"),
    ];
    expect(filterNoise(errors, {}).map((e) => e.keyword)).toEqual(["contains", "oneOf"]);
  });
  it("drops a union's own error when a more precise one is at or below it", () => {
    const errors = [
      err("/x", "#/$defs/A/type", "type", { type: "object" }),
      err("/x", "#/properties/x/anyOf/1/type", "type", { type: "null" }),
      err("/x", "#/properties/x/anyOf", "anyOf"),
    ];
    expect(filterNoise(errors, {}).map((e) => e.schemaPath)).toEqual(["#/$defs/A/type"]);
  });
  it("keeps only the type error of a value of the wrong type (Zod checks nothing more)", () => {
    const errors = [err("/v", "#/properties/v/type", "type", { type: "string" }), err("/v", "#/properties/v/const", "const", { allowedValue: "4" })];
    expect(filterNoise(errors, {}).map((e) => e.keyword)).toEqual(["type"]);
  });
  it("reads keywords, not property names, in a schemaPath", () => {
    expect(applicators("#/properties/contains/oneOf/1/type").map((a) => a.keyword)).toEqual(["oneOf"]);
  });
});

describe("groupIssues", () => {
  it("reports the unknown keys of one object in one issue", () => {
    const a = { code: "unrecognized_keys", message: 'Unrecognized key: "a"', path: ["f"] };
    const b = { code: "unrecognized_keys", message: 'Unrecognized key: "b"', path: ["f"] };
    expect(groupIssues([a, b], MESSAGES)).toEqual([{ message: 'Unrecognized keys: "a", "b"', code: "unrecognized_keys", path: ["f"] }]);
  });
  it("reports one issue per path and code", () => {
    const x = { code: "invalid_value", message: "one", path: ["t"] };
    expect(groupIssues([x, { ...x, message: "two" }], MESSAGES)).toHaveLength(1);
  });
});

describe("createValidator", () => {
  it("answers a valid document from the first-error variant alone", () => {
    let allCalls = 0;
    const all = (() => (allCalls++, true)) as unknown as RawValidate;
    const first = (() => true) as unknown as RawValidate;
    expect(createValidator(all, {}, MESSAGES, first)({})).toEqual({ valid: true });
    expect(allCalls).toBe(0);
  });
  it("passes the options as `this` (Ajv passContext)", () => {
    let seen: unknown;
    const raw = function (this: unknown) {
      seen = this;
      return true;
    } as unknown as RawValidate;
    createValidator(raw, {}, MESSAGES)({}, { abnChecksum: true });
    // With the all-errors run's error budget for the default maxErrors (100): 10 x 100 + 1000.
    expect(seen).toEqual({ abnChecksum: true, $errorBudget: 2000 });
  });
});

describe("abnChecksum (ATO weighted modulus 89)", () => {
  it("accepts published ABNs and rejects a changed digit", () => {
    for (const abn of ["51824753556", "53004085616", "49004028077"]) expect(abnChecksum(abn)).toBe(true);
    expect(abnChecksum("51824753557")).toBe(false);
    expect(abnChecksum("5182475355")).toBe(false);
    expect(abnChecksum("5182475355a")).toBe(false);
  });
});
