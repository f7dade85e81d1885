// The hand-written runtime of the validators (templates/validators/), function by function, with exact
// outputs: abnChecksum, the pieces of map-errors.ts, mapErrors' filtering, grouping and cut, unknown keys
// and createValidator. Each test loads the modules afresh (fresh.ts), so that their module-level
// constants and caches are built under the test.
import { describe, expect, it } from "vitest";
import type { AjvError, ErrorTable, KeyShapes, MessageTemplates, RawValidate } from "../../templates/validators/types.js";
import { MESSAGES as GENERATED_MESSAGES } from "../../generated/validators/errors.js";
import { fresh } from "./fresh.js";

const runtime = () => fresh(() => import("../../templates/validators/index.js"));
const mapErrorsModule = () => fresh(() => import("../../templates/validators/map-errors.js"));

// The templates of spec/errors.yaml (`validationMessages.defaults`, as generated); `required` takes a
// {received} placeholder here, so that the value toIssue fills in shows.
const MESSAGES: MessageTemplates = {
  ...GENERATED_MESSAGES,
  required: { code: "invalid_type", message: "Invalid input: expected {expected}, received {received}" },
};
const err = (instancePath: string, schemaPath: string, keyword: string, params: Record<string, unknown> = {}): AjvError => ({
  instancePath,
  schemaPath,
  keyword,
  params,
});
const minLength = (instancePath: string, schemaPath = `#/properties${instancePath}/minLength`) => err(instancePath, schemaPath, "minLength", { limit: 2 });
const TOO_SHORT = "Too small: expected string to have >=2 characters";
// Each mapErrors call gets its own table, so that no schema-location answer is carried over from another test.
const table = (rows: ErrorTable = {}): ErrorTable => ({ ...rows });

describe("abnChecksum", () => {
  it("accepts the ATO's example ABN and nothing longer, shorter or with a non-digit", async () => {
    const { abnChecksum } = await runtime();
    // "5 824753566" and "5:524753556" have weighted sums divisible by 89 (a space counts -16, a colon 10):
    // only the digit check rejects them.
    const cases: [string, boolean][] = [
      ["51824753556", true],
      ["518247535560", false],
      ["5182475355", false],
      ["5 824753566", false],
      ["5:524753556", false],
      ["51824753557", false],
    ];
    expect(cases.map(([s]) => [s, abnChecksum(s)])).toEqual(cases);
  });
});

describe("map-errors: the exported pieces", () => {
  it("parsedType names NaN as Zod does", async () => {
    const { parsedType } = await runtime();
    expect([NaN, 0, "NaN"].map(parsedType)).toEqual(["NaN", "number", "string"]);
  });

  it("stringifyPrimitive quotes strings only", async () => {
    const { stringifyPrimitive } = await runtime();
    expect(["a", 1, true, null].map(stringifyPrimitive)).toEqual(['"a"', "1", "true", "null"]);
  });

  it("resolvePath: below null or a string there is no value (own properties of objects only)", async () => {
    const { resolvePath } = await runtime();
    expect(resolvePath({ a: null }, "/a/b")).toEqual({ path: ["a", "b"], value: undefined });
    expect(resolvePath({ s: "abc" }, "/s/length")).toEqual({ path: ["s", "length"], value: undefined });
    expect(resolvePath({ s: "abc" }, "/s/0")).toEqual({ path: ["s", "0"], value: undefined });
  });

  it("applicators: each applicator keyword with its prefix; names under properties and $defs are not keywords", async () => {
    const { applicators } = await runtime();
    expect(applicators("#/properties/a/contains/properties/b/oneOf/0/anyOf/1/not/if/type")).toEqual([
      { keyword: "contains", prefix: "#/properties/a/contains" },
      { keyword: "oneOf", prefix: "#/properties/a/contains/properties/b/oneOf" },
      { keyword: "anyOf", prefix: "#/properties/a/contains/properties/b/oneOf/0/anyOf" },
      { keyword: "not", prefix: "#/properties/a/contains/properties/b/oneOf/0/anyOf/1/not" },
      { keyword: "if", prefix: "#/properties/a/contains/properties/b/oneOf/0/anyOf/1/not/if" },
    ]);
    expect(applicators("#/$defs/not/properties/oneOf/required")).toEqual([]);
  });
});

describe("map-errors: toIssue by keyword", () => {
  it("required without a table entry: expected unknown, received undefined, path to the missing key", async () => {
    const { toIssue } = await runtime();
    expect(toIssue(err("/a", "#/properties/a/required", "required", { missingProperty: "b" }), { a: {} }, {}, MESSAGES)).toEqual({
      code: "invalid_type",
      message: "Invalid input: expected unknown, received undefined",
      path: ["a", "b"],
    });
  });

  it("required with a nested entry but no expected types", async () => {
    const { toIssue } = await runtime();
    const rows = { "#/required": { nested: { addresses: ["registeredAddress"] } } };
    expect(toIssue(err("", "#/required", "required", { missingProperty: "addresses" }), {}, rows, MESSAGES)).toEqual({
      code: "invalid_type",
      message: "Invalid input: expected unknown, received undefined",
      path: ["addresses", "registeredAddress"],
    });
  });

  it("type: the non-null member of a nullable type; `unknown` when only null is named", async () => {
    const { toIssue } = await runtime();
    expect(toIssue(err("/a", "#/properties/a/type", "type", { type: ["null", "string"] }), { a: 1 }, {}, MESSAGES).message).toBe(
      "Invalid input: expected string, received number",
    );
    expect(toIssue(err("/a", "#/properties/a/type", "type", { type: "null" }), { a: 1 }, {}, MESSAGES).message).toBe(
      "Invalid input: expected unknown, received number",
    );
  });

  it("pattern and format (the format's own message first, else the generic one)", async () => {
    const { toIssue } = await runtime();
    expect(toIssue(err("/p", "#/properties/p/pattern", "pattern", { pattern: "^a$" }), {}, {}, MESSAGES)).toEqual({
      code: "invalid_format",
      message: "Invalid string: must match pattern /^a$/u",
      path: ["p"],
    });
    expect(toIssue(err("/u", "#/properties/u/format", "format", { format: "uri" }), {}, {}, MESSAGES)).toEqual({
      code: "invalid_format",
      message: "Invalid URL",
      path: ["u"],
    });
    expect(toIssue(err("/d", "#/properties/d/format", "format", { format: "date" }), {}, {}, MESSAGES)).toEqual({
      code: "invalid_format",
      message: "Invalid date",
      path: ["d"],
    });
  });

  it("minItems and maxItems fill their limits", async () => {
    const { toIssue } = await runtime();
    expect(toIssue(err("/l", "#/properties/l/minItems", "minItems", { limit: 1 }), {}, {}, MESSAGES).message).toBe(
      "Too small: expected array to have >=1 items",
    );
    expect(toIssue(err("/l", "#/properties/l/maxItems", "maxItems", { limit: 9 }), {}, {}, MESSAGES).message).toBe("Too big: expected array to have <=9 items");
  });

  it("discriminator without table options lists none", async () => {
    const { toIssue } = await runtime();
    expect(toIssue(err("", "#/discriminator", "discriminator", { tag: "role" }), {}, {}, MESSAGES)).toEqual({
      code: "invalid_union",
      message: "Invalid discriminator value. Expected ",
      path: ["role"],
    });
  });

  it("another keyword takes its own template, else `custom` (errors.yaml must hold it: test/generator/diagnostics.test.ts)", async () => {
    const { toIssue } = await runtime();
    expect(toIssue(err("/x", "#/properties/x/uniqueItems", "uniqueItems"), {}, {}, MESSAGES)).toEqual({
      code: "custom",
      message: "Invalid input",
      path: ["x"],
    });
    expect(toIssue(err("/x", "#/properties/x/uniqueItems", "uniqueItems"), {}, {}, { uniqueItems: { code: "not_unique", message: "Duplicates" } })).toEqual({
      code: "not_unique",
      message: "Duplicates",
      path: ["x"],
    });
  });
});

describe("mapErrors: which errors are reported", () => {
  it("paths: array indices become numbers, ~1 and ~0 are unescaped; errors without base/at are read from instancePath", async () => {
    const { mapErrors } = await mapErrorsModule();
    const data = { items: ["x"], "a/b": { "c~d": "y" } };
    expect(
      mapErrors(
        [minLength("/items/0", "#/properties/items/items/minLength"), minLength("/a~1b/c~0d", "#/properties/a~1b/properties/c~0d/minLength")],
        data,
        table(),
        MESSAGES,
      ),
    ).toEqual([
      { message: TOO_SHORT, code: "too_small", path: ["items", 0] },
      { message: TOO_SHORT, code: "too_small", path: ["a/b", "c~d"] },
    ]);
  });

  it("a path of indices only into a root array gives numbers", async () => {
    const { mapErrors } = await mapErrorsModule();
    expect(mapErrors([minLength("/0/1", "#/items/items/minLength")], [["", "x"]], table(), MESSAGES)).toEqual([
      { message: TOO_SHORT, code: "too_small", path: [0, 1] },
    ]);
  });

  it("a type error below null, a string or nothing reads no value there (received undefined), as resolvePath", async () => {
    const { mapErrors } = await mapErrorsModule();
    const typeError = (instancePath: string) => err(instancePath, "#/type", "type", { type: "string" });
    const received = (instancePath: string, data: unknown) => mapErrors([typeError(instancePath)], data, table(), MESSAGES).map((i) => [i.path, i.message]);
    expect(received("/a/b", { a: null })).toEqual([[["a", "b"], "Invalid input: expected string, received undefined"]]);
    expect(received("/s/length", { s: "abc" })).toEqual([[["s", "length"], "Invalid input: expected string, received undefined"]]);
    expect(received("/x/y", {})).toEqual([[["x", "y"], "Invalid input: expected string, received undefined"]]);
  });

  it("the null branch of a nullable is noise; another type error in a branch, or a null type outside one, is not", async () => {
    const { mapErrors } = await mapErrorsModule();
    expect(mapErrors([err("/a", "#/properties/a/oneOf/12/type", "type", { type: "null" })], { a: 1 }, table(), MESSAGES)).toEqual([]);
    expect(mapErrors([err("/a", "#/properties/a/anyOf/0/type", "type", { type: "null" })], { a: 1 }, table(), MESSAGES)).toEqual([]);
    expect(mapErrors([err("/a", "#/properties/a/oneOf/1/type", "type", { type: "string" })], { a: 1 }, table(), MESSAGES)).toEqual([
      { message: "Invalid input: expected string, received number", code: "invalid_type", path: ["a"] },
    ]);
    expect(mapErrors([err("/a", "#/properties/a/type", "type", { type: "null" })], { a: 1 }, table(), MESSAGES)).toEqual([
      { message: "Invalid input: expected unknown, received number", code: "invalid_type", path: ["a"] },
    ]);
  });

  it("a branch error is kept while no union error covers it (another union's failure elsewhere does not)", async () => {
    const { mapErrors } = await mapErrorsModule();
    const errors = [err("", "#/oneOf", "oneOf"), minLength("/b", "#/properties/b/anyOf/0/minLength")];
    expect(mapErrors(errors, { b: "x" }, table(), MESSAGES)).toEqual([{ message: TOO_SHORT, code: "too_small", path: ["b"] }]);
    const alone = [minLength("/c", "#/properties/c/anyOf/1/minLength"), err("/d", "#/properties/d/oneOf", "oneOf")];
    expect(mapErrors(alone, { c: "x", d: 1 }, table(), MESSAGES)).toEqual([
      { message: TOO_SHORT, code: "too_small", path: ["c"] },
      { message: "Invalid input", code: "invalid_union", path: ["d"] },
    ]);
  });

  it("a root union drops the errors of its branches anywhere below the root", async () => {
    const { mapErrors } = await mapErrorsModule();
    expect(mapErrors([minLength("/a", "#/oneOf/0/properties/a/minLength"), err("", "#/oneOf", "oneOf")], { a: "x" }, table(), MESSAGES)).toEqual([
      { message: "Invalid input", code: "invalid_union", path: [] },
    ]);
  });

  it("a union error is not at a sibling path: /ab is not below /a", async () => {
    const { mapErrors } = await mapErrorsModule();
    const errors = [err("/a", "#/properties/a/oneOf", "oneOf"), minLength("/ab")];
    expect(mapErrors(errors, { a: 1, ab: "x" }, table(), MESSAGES)).toEqual([
      { message: "Invalid input", code: "invalid_union", path: ["a"] },
      { message: TOO_SHORT, code: "too_small", path: ["ab"] },
    ]);
  });

  it("a union's own error gives way to a non-union error below it, not to another union's", async () => {
    const { mapErrors } = await mapErrorsModule();
    const nested = [err("/a", "#/properties/a/oneOf", "oneOf"), err("/a/b", "#/properties/a/properties/b/anyOf", "anyOf")];
    expect(mapErrors(nested, { a: { b: 1 } }, table(), MESSAGES)).toEqual([
      { message: "Invalid input", code: "invalid_union", path: ["a"] },
      { message: "Invalid input", code: "invalid_union", path: ["a", "b"] },
    ]);
    const below = [err("/a", "#/properties/a/oneOf", "oneOf"), minLength("/a/c", "#/properties/a/properties/c/minLength")];
    expect(mapErrors(below, { a: { c: "x" } }, table(), MESSAGES)).toEqual([{ message: TOO_SHORT, code: "too_small", path: ["a", "c"] }]);
  });

  it("a union with an override is reported even with an error below it", async () => {
    const { mapErrors } = await mapErrorsModule();
    const rows = table({ "#/properties/a/oneOf": { override: { code: "invalid_union", message: "Give a or b." } } });
    const errors = [err("/a", "#/properties/a/oneOf", "oneOf"), minLength("/a/c", "#/properties/a/properties/c/minLength")];
    expect(mapErrors(errors, { a: { c: "x" } }, rows, MESSAGES)).toEqual([
      { message: "Give a or b.", code: "invalid_union", path: ["a"] },
      { message: TOO_SHORT, code: "too_small", path: ["a", "c"] },
    ]);
  });

  it("a wrong type hides the other checks of that value, but not a required key (Zod reports both)", async () => {
    const { mapErrors } = await mapErrorsModule();
    const errors = [
      err("/a", "#/properties/a/type", "type", { type: "object" }),
      err("/a", "#/properties/a/required", "required", { missingProperty: "k" }),
      minLength("/a"),
    ];
    expect(mapErrors(errors, { a: "s" }, table(), MESSAGES)).toEqual([
      { message: "Invalid input: expected object, received string", code: "invalid_type", path: ["a"] },
      { message: "Invalid input: expected unknown, received undefined", code: "invalid_type", path: ["a", "k"] },
    ]);
  });

  it("a schema location seen again with another keyword is read again", async () => {
    const { mapErrors } = await mapErrorsModule();
    const rows = table();
    expect(mapErrors([err("/x", "#/x", "minLength", { limit: 2 })], { x: "" }, rows, MESSAGES)).toEqual([
      { message: TOO_SHORT, code: "too_small", path: ["x"] },
    ]);
    expect(mapErrors([err("/x", "#/x", "maxLength", { limit: 3 })], { x: "abcd" }, rows, MESSAGES)).toEqual([
      { message: "Too big: expected string to have <=3 characters", code: "too_big", path: ["x"] },
    ]);
  });
});

describe("mapErrors: grouping", () => {
  it("one issue per path and code: a longer path with the same code is another issue", async () => {
    const { mapErrors } = await mapErrorsModule();
    const errors = [minLength("/a/b"), err("/a", "#/properties/a/minItems", "minItems", { limit: 2 })];
    expect(mapErrors(errors, { a: { b: "x" } }, table(), MESSAGES)).toEqual([
      { message: TOO_SHORT, code: "too_small", path: ["a", "b"] },
      { message: "Too small: expected array to have >=2 items", code: "too_small", path: ["a"] },
    ]);
  });

  it("the unknown keys of one object, even the first issue, are one issue", async () => {
    const { mapErrors } = await mapErrorsModule();
    const errors = [
      err("", "#/additionalProperties", "additionalProperties", { additionalProperty: "x" }),
      err("", "#/additionalProperties", "additionalProperties", { additionalProperty: "y" }),
    ];
    expect(mapErrors(errors, {}, table(), MESSAGES)).toEqual([{ message: 'Unrecognized keys: "x", "y"', code: "unrecognized_keys", path: [] }]);
  });

  it("an unknown-key template without ': ' still gives its message", async () => {
    const { mapErrors } = await mapErrorsModule();
    const messages = { ...MESSAGES, additionalProperties: { code: "unrecognized_keys", message: "Unknown key {keys}" } };
    expect(mapErrors([err("", "#/additionalProperties", "additionalProperties", { additionalProperty: "x" })], {}, table(), messages)).toEqual([
      { message: 'Unknown key "x"', code: "unrecognized_keys", path: [] },
    ]);
  });

  it("past 16 issues (the map index): the same paths, names not run together (ab/c, a/bc), a repeat still merged", async () => {
    const { mapErrors } = await mapErrorsModule();
    const errors = Array.from({ length: 16 }, (_, i) => minLength(`/f${i}`));
    const data = { arr: ["x"], obj: { "0": "x" }, ab: { c: "x" }, a: { bc: "x" } };
    errors.push(
      minLength("/arr/0", "#/properties/arr/items/minLength"),
      minLength("/obj/0", "#/properties/obj/properties/0/minLength"),
      minLength("/ab/c"),
      minLength("/a/bc"),
      err("/a/bc", "#/properties/a/properties/bc/minimum", "minimum", { limit: 2 }),
    );
    const out = mapErrors(errors, data, table(), MESSAGES);
    expect(out.slice(16)).toEqual([
      { message: TOO_SHORT, code: "too_small", path: ["arr", 0] },
      { message: TOO_SHORT, code: "too_small", path: ["obj", "0"] },
      { message: TOO_SHORT, code: "too_small", path: ["ab", "c"] },
      { message: TOO_SHORT, code: "too_small", path: ["a", "bc"] },
    ]);
  });
});

describe("mapErrors: the cut at maxErrors", () => {
  it("counts each other error, and the unknown keys of one object once", async () => {
    const { mapErrors } = await mapErrorsModule();
    const errors = [
      minLength("/x"),
      err("", "#/required", "required", { missingProperty: "a" }),
      err("", "#/required", "required", { missingProperty: "b" }),
      err("", "#/required", "required", { missingProperty: "c" }),
      err("/o", "#/properties/o/additionalProperties", "additionalProperties", { additionalProperty: "k1" }),
      err("/o", "#/properties/o/additionalProperties", "additionalProperties", { additionalProperty: "k2" }),
      err("/p", "#/properties/p/additionalProperties", "additionalProperties", { additionalProperty: "k3" }),
    ];
    expect(mapErrors(errors, { o: {}, p: {} }, table(), MESSAGES, 1)).toEqual([
      { message: TOO_SHORT, code: "too_small", path: ["x"] },
      { message: "... and 5 more errors", code: "too_many_errors", path: [] },
    ]);
  });

  it("one more error is singular", async () => {
    const { mapErrors, TOO_MANY_ERRORS } = await mapErrorsModule();
    expect(TOO_MANY_ERRORS).toBe("too_many_errors");
    const errors = [minLength("/x"), err("/o", "#/properties/o/additionalProperties", "additionalProperties", { additionalProperty: "k" })];
    expect(mapErrors(errors, { o: {} }, table(), MESSAGES, 1)).toEqual([
      { message: TOO_SHORT, code: "too_small", path: ["x"] },
      { message: "... and 1 more error", code: "too_many_errors", path: [] },
    ]);
  });
});

describe("unknownKeyIssues", () => {
  const shapes: KeyShapes = {
    root: {
      keys: ["a", "list", "pick", "open", "s"],
      props: {
        a: { shape: "leaf" },
        list: { items: { shape: "leaf" } },
        pick: { select: { field: "kind", then: "leaf", else: "other" } },
        open: { shape: "open" },
        s: { shape: "leaf" },
      },
    },
    leaf: { keys: ["k"], props: {} },
    other: { keys: ["z"], props: {} },
    open: { keys: null, props: { inner: { shape: "leaf" } } },
  };

  it("reports unknown keys per object, singular and plural, through shapes, items and selects", async () => {
    const { unknownKeyIssues } = await runtime();
    const data = { a: { k: 1, x: 1 }, list: [{ y: 1, w: 2 }], pick: { kind: 1, k: 1, q: 1 }, open: { anything: 1, inner: { v: 1 } }, extra: 1 };
    expect(unknownKeyIssues(data, { shape: "root" }, shapes, MESSAGES)).toEqual([
      { code: "unrecognized_keys", message: 'Unrecognized key: "extra"', path: [] },
      { code: "unrecognized_keys", message: 'Unrecognized key: "x"', path: ["a"] },
      { code: "unrecognized_keys", message: 'Unrecognized keys: "y", "w"', path: ["list", 0] },
      { code: "unrecognized_keys", message: 'Unrecognized keys: "kind", "q"', path: ["pick"] },
      { code: "unrecognized_keys", message: 'Unrecognized key: "v"', path: ["open", "inner"] },
    ]);
  });

  it("a select without its field takes the else shape", async () => {
    const { unknownKeyIssues } = await runtime();
    expect(unknownKeyIssues({ pick: { z: 1, k: 1 } }, { shape: "root" }, shapes, MESSAGES)).toEqual([
      { code: "unrecognized_keys", message: 'Unrecognized key: "k"', path: ["pick"] },
    ]);
  });

  it("values that are not objects (null, strings, arrays, objects where a list is) are passed over", async () => {
    const { unknownKeyIssues } = await runtime();
    expect(unknownKeyIssues({ a: null, list: { 0: { y: 1 } }, pick: "ab", s: "ab", open: [{ x: 1 }] }, { shape: "root" }, shapes, MESSAGES)).toEqual([]);
    expect(unknownKeyIssues({ a: ["x"], list: "ab", pick: null }, { shape: "root" }, shapes, MESSAGES)).toEqual([]);
  });

  it("the plural template for several keys, the singular for one", async () => {
    const { unknownKeyIssues } = await runtime();
    const messages = { additionalProperties: { code: "k1", message: "One: {keys}" }, "additionalProperties:plural": { code: "k2", message: "Many: {keys}" } };
    expect(unknownKeyIssues({ q: 1, r: 2, a: { s: 1 } }, { shape: "root" }, shapes, messages)).toEqual([
      { code: "k2", message: 'Many: "q", "r"', path: [] },
      { code: "k1", message: 'One: "s"', path: ["a"] },
    ]);
  });
});

describe("createValidator", () => {
  // A raw validate function that fails with the given errors (Ajv sets `errors` on the function).
  const failing = (errors: readonly AjvError[] | null): RawValidate => Object.assign(() => false, { errors }) as unknown as RawValidate;
  const keys = { root: { shape: "root" }, shapes: { root: { keys: ["x", "y", "z"], props: {} } } };

  it("an invalid document without error objects has no issues", async () => {
    const { createValidator } = await runtime();
    expect(createValidator(failing(null), {}, MESSAGES)({})).toEqual({ valid: false, errors: [] });
  });

  it("a bad maxErrors is a RangeError with its message", async () => {
    const { createValidator } = await runtime();
    expect(() => createValidator(failing([]), {}, MESSAGES)({}, { maxErrors: 0 })).toThrow(new RangeError("maxErrors must be at least 1"));
  });

  it("unknown keys follow the schema's issues, cut as mapErrors cuts: maxErrors listed, then the count of the rest", async () => {
    const { createValidator } = await runtime();
    const nested = { root: { shape: "root" }, shapes: { root: { keys: ["x", "o"], props: { o: { shape: "o" } } }, o: { keys: [], props: {} } } };
    const validate = createValidator(failing([minLength("/x")]), table(), MESSAGES, undefined, nested);
    const data = { x: "", a: 1, o: { b: 1 } };
    const issue = { message: TOO_SHORT, code: "too_small", path: ["x"] };
    const a = { code: "unrecognized_keys", message: 'Unrecognized key: "a"', path: [] };
    const b = { code: "unrecognized_keys", message: 'Unrecognized key: "b"', path: ["o"] };
    expect(validate(data, { unknownKeys: "report", maxErrors: 3 })).toEqual({ valid: false, errors: [issue, a, b] });
    expect(validate(data, { unknownKeys: "report", maxErrors: 2 })).toEqual({
      valid: false,
      errors: [issue, a, { message: "... and 1 more error", code: "too_many_errors", path: [] }],
    });
    expect(validate(data, { unknownKeys: "report", maxErrors: 1 })).toEqual({
      valid: false,
      errors: [issue, { message: "... and 2 more errors", code: "too_many_errors", path: [] }],
    });
  });

  it("when the schema's issues were already cut, the unknown keys are counted in its last item", async () => {
    const { createValidator } = await runtime();
    const validate = createValidator(failing([minLength("/x"), minLength("/y"), minLength("/z")]), table(), MESSAGES, undefined, keys);
    const shortX = { message: TOO_SHORT, code: "too_small", path: ["x"] };
    const shortY = { message: TOO_SHORT, code: "too_small", path: ["y"] };
    const cut = validate({ x: "", y: "", z: "", a: 1 }, { unknownKeys: "report", maxErrors: 2 });
    expect(cut).toEqual({ valid: false, errors: [shortX, shortY, { message: "... and 2 more errors", code: "too_many_errors", path: [] }] });
    // Without unknown keys reported, the same cut counts the schema's issue alone.
    const plain = validate({ x: "", y: "", z: "", a: 1 }, { maxErrors: 2 });
    expect(plain).toEqual({ valid: false, errors: [shortX, shortY, { message: "... and 1 more error", code: "too_many_errors", path: [] }] });
  });

  it("unknown keys after schema errors that were all noise", async () => {
    const { createValidator } = await runtime();
    const validate = createValidator(failing([err("", "#/if", "if")]), table(), MESSAGES, undefined, keys);
    expect(validate({ a: 1 }, { unknownKeys: "report" })).toEqual({
      valid: false,
      errors: [{ code: "unrecognized_keys", message: 'Unrecognized key: "a"', path: [] }],
    });
  });
});
