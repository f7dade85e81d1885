// The body's shape measured on its text before parsing (templates/sandbox/body-shape.ts, spec/sandbox.yaml
// requestArrays): the first array over 1,000 items is a 422 at its path, more than 20,000 values a 400;
// a hostile body is refused without being parsed (its memory and latency: bench/hostile-body.bench.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ShapeScanner, shapeProblem } from "../../templates/sandbox/body-shape.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { inputSize } from "../support/runs.js";
import { call, olderBody, request } from "./helpers.js";
import { harness, memoryDb, type Harness } from "./inprocess.js";

const limits = { maxItems: 3, maxValues: 20 };

describe("shapeProblem", () => {
  it("finds the first array over maxItems at its path: keys, indexes, escaped keys", () => {
    expect(shapeProblem("[1,2,3]", limits)).toBeUndefined();
    expect(shapeProblem("[1,2,3,4]", limits)).toEqual({ kind: "items", path: [] });
    expect(shapeProblem('{"a":1,"tags":["x","y","z","w"]}', limits)).toEqual({ kind: "items", path: ["tags"] });
    expect(shapeProblem('{"s":[{"t":[1]},{"t":[1,2,[],{}]}]}', limits)).toEqual({ kind: "items", path: ["s", 1, "t"] });
    expect(shapeProblem('{"a\\"b":[[1,2,3,4]]}', limits)).toEqual({ kind: "items", path: ['a"b', 0] });
    expect(shapeProblem('{"k":[{"x":1,"y":2,"z":3,"w":4}]}', limits)).toBeUndefined(); // an object's keys are not items
    expect(shapeProblem("[[],[],[]]", limits)).toBeUndefined();
    expect(shapeProblem("[[],[],[],[]]", limits)).toEqual({ kind: "items", path: [] });
  });

  it("nesting deeper than maxDepth, when given", () => {
    expect(shapeProblem("[[[1]]]", { ...limits, maxDepth: 3 })).toBeUndefined();
    expect(shapeProblem("[[[[1]]]]", { ...limits, maxDepth: 3 })).toEqual({ kind: "depth" });
    expect(shapeProblem(`${"[".repeat(5_000_000)}${"]".repeat(5_000_000)}`, { ...limits, maxDepth: 64 })).toEqual({ kind: "depth" });
  });

  it("fed in chunks cut anywhere (inside a key, after a backslash, inside a character), finds the same", () => {
    const text = '{"na\\"më":"x\\"],","tagß":[1,2,3,4]}';
    for (let cut = 1; cut < Buffer.byteLength(text); cut++) {
      const bytes = Buffer.from(text, "utf8");
      const scanner = new ShapeScanner(limits);
      const first = scanner.feed(bytes.subarray(0, cut));
      expect(first ?? scanner.feed(bytes.subarray(cut)), String(cut)).toEqual({ kind: "items", path: ["tagß"] });
    }
    // Once found, the answer stays.
    const s = new ShapeScanner(limits);
    expect(s.feed(Buffer.from("[1,2,3,4"))).toEqual({ kind: "items", path: [] });
    expect(s.feed(Buffer.from("]"))).toEqual({ kind: "items", path: [] });
  });

  it("does not count commas or brackets inside strings", () => {
    expect(shapeProblem('["a,b,c,d,e", "[1,2,3,4,5]"]', limits)).toBeUndefined();
    expect(shapeProblem('["\\\\", "x", "y"]', limits)).toBeUndefined();
  });

  it("never throws on text that is not JSON (the parse refuses it after): a stray comma, a container where a key goes, a bad escape", () => {
    expect(shapeProblem("1,2,3,4,5", limits)).toBeUndefined();
    expect(shapeProblem("{,,}", limits)).toBeUndefined();
    // An object's container before any key is at the key "" (its bytes are not yet read).
    expect(shapeProblem("{[1,2,3,4]}", limits)).toEqual({ kind: "items", path: [""] });
    expect(shapeProblem('{"a\\x":[1,2,3,4]}', limits)).toEqual({ kind: "items", path: ["a\\x"] });
    // The first string of all may be empty: its closing quote is not taken as escaped.
    expect(shapeProblem('["",1,2,3]', limits)).toEqual({ kind: "items", path: [] });
  });

  it("counts values in all: arrays within the item bound still add up", () => {
    const nested = `[${Array.from({ length: 3 }, () => "[1,2,3]").join(",")}]`;
    expect(shapeProblem(nested, limits)).toBeUndefined();
    expect(shapeProblem(`{${Array.from({ length: 21 }, (_, i) => `"k${i}":1`).join(",")}}`, limits)).toEqual({ kind: "values" });
    expect(shapeProblem(`[${Array.from({ length: 7 }, () => "[1,2,3]").join(",")}]`, { maxItems: 100, maxValues: 20 })).toEqual({ kind: "values" });
  });

  // Its time and memory beside JSON.parse are bench/hostile-body.bench.ts's.
  it("reads five million items in one pass without making them", () => {
    const items = inputSize(5_000_000);
    const text = `{"tags":[${"1,".repeat(items - 1)}1]}`;
    expect(shapeProblem(text, { maxItems: 1000, maxValues: 20000 })).toEqual({ kind: "items", path: ["tags"] });
    expect(shapeProblem(text, { maxItems: items * 2, maxValues: 20000 })).toEqual({ kind: "values" });
    expect(shapeProblem(text, { maxItems: items, maxValues: items })).toBeUndefined();
    expect(shapeProblem(text, { maxItems: items - 1, maxValues: items })).toEqual({ kind: "items", path: ["tags"] });
  });
});

describe("the sandbox refuses a body by its shape", () => {
  let db: Db;
  let h: Harness;
  beforeAll(async () => {
    db = await memoryDb();
    h = await harness(db, { dispatch: false });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await db?.close();
  });

  const v5 = (extra: Record<string, unknown>) => ({
    type: "individual",
    subType: "data",
    country: "AUS",
    name: "Shape Person",
    website: "https://example.com",
    ...extra,
  });

  it("tags over 1,000 items: 422 validation_error at tags, the validators' maxItems wording; 1,000 are accepted", async () => {
    const over = await call(h.url, "POST", "/v5/verifications", v5({ tags: Array(1001).fill("k:v") }));
    expect(over.status).toBe(422);
    expect(over.body.error).toEqual({
      type: "validation_error",
      details: [{ message: "Too big: expected array to have <=1000 items", code: "too_big", path: ["tags"] }],
    });
    expect((await call(h.url, "POST", "/v5/verifications", v5({ tags: Array(1000).fill("k:v") }))).status).toBe(200);
  });

  it("five million invalid tags in 10 MB: the same 422", async () => {
    const r = await request(h.url, "POST", "/v5/verifications", `{"type":"individual","tags":[${"1,".repeat(inputSize(5_000_000) - 1)}1]}`, {
      authorization: `Basic ${Buffer.from("sandbox-test-uid:sandbox-test-secret-9f8e7d").toString("base64")}`,
    });
    expect([r.status, r.body.error.details]).toEqual([422, [{ message: "Too big: expected array to have <=1000 items", code: "too_big", path: ["tags"] }]]);
  });

  it("many short arrays: more than 20,000 values in all is a 400", async () => {
    const r = await call(h.url, "POST", "/v5/verifications", v5({ identifiers: Object.fromEntries(Array.from({ length: 20_001 }, (_, i) => [`k${i}`, "v"])) }));
    expect([r.status, r.body.error.message]).toEqual([400, "The request body holds more than 20000 values."]);
  });

  it("a stakeholder's array, the older interface and the hosted form's fields are measured too", async () => {
    const deep = await call(h.url, "POST", "/v5/verifications", v5({ stakeholders: [{ type: "individual", name: "A", roles: Array(1001).fill("r") }] }));
    expect([deep.status, deep.body.error.details[0].path]).toEqual([422, ["stakeholders", 0, "roles"]]);
    const older = await request(h.url, "POST", "/verify", olderBody({ type: "individual", metadata_tags: Array(1001).fill("t") }));
    expect([older.status, older.body.type, older.body.details]).toEqual([
      422,
      "validation_error",
      [{ message: "Too big: expected array to have <=1000 items", code: "too_big", path: ["metadata_tags"] }],
    ]);
    const form = await fetch(`${h.url}/_form/00000000-0000-4000-8000-000000000000`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1&".repeat(20_001),
    });
    expect(form.status).toBe(400);
    expect(await form.text()).toContain("The request body holds more than 20000 values.");
  });
});
