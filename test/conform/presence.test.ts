// Presence as conform reads it from any schema (generator/conform/judge.ts): `required` fields absent are a
// failed check, `x-presence-not-shown` fields absent a warning; through `$ref` (beside sibling keywords),
// `allOf`, nested objects and arrays. A fixture schema, so the rule is pinned whatever the spec holds.
import { describe, expect, it } from "vitest";
import { absentFields, presenceChecks, type SchemaNode } from "../../generator/conform/judge.js";

const fixture: SchemaNode = {
  $ref: "#/$defs/Base",
  required: ["top"],
  "x-presence-not-shown": ["maybe"],
  properties: { data: { $ref: "#/$defs/Detail" }, list: { type: "array", items: { $ref: "#/$defs/Item" } } },
  allOf: [{ required: ["fromAllOf"] }],
  $defs: {
    Base: { required: ["timestamp"], properties: { timestamp: { type: "string" } } },
    Detail: { required: ["trace"], "x-presence-not-shown": ["submissionId"] },
    Item: { required: ["id"] },
  },
};

describe("presence from a schema's required and x-presence-not-shown", () => {
  it("names every absent always-present field by path, and the unsure ones apart", () => {
    const { missing, unsure } = absentFields(fixture, { data: {}, list: [{ id: 1 }, {}] });
    expect(missing.sort()).toEqual(["data.trace", "fromAllOf", "list[1].id", "timestamp", "top"]);
    expect(unsure.sort()).toEqual(["data.submissionId", "maybe"]);
    expect(absentFields(fixture, { top: 1, timestamp: "t", fromAllOf: 1, maybe: 1, data: { trace: "x", submissionId: "s" }, list: [] })).toEqual({
      missing: [],
      unsure: [],
    });
  });

  it("a missing required field fails; a missing not-shown field is a warning, never a failure", () => {
    const schemaOf = (id: string) => (id === "Fixture" ? fixture : undefined);
    const all = { top: 1, timestamp: "t", fromAllOf: 1, data: { trace: "x" } };
    expect(presenceChecks(schemaOf, "c", "op", "Fixture", all).map((r) => [r.id, r.outcome, r.got])).toEqual([
      ["c#presence", "held", undefined],
      ["c#presence-not-shown", "warned", "absent: maybe, data.submissionId"],
    ]);
    const { timestamp: _t, ...noTimestamp } = all;
    expect(presenceChecks(schemaOf, "c", "op", "Fixture", noTimestamp)[0]).toMatchObject({ outcome: "failed", got: "missing: timestamp" });
    expect(presenceChecks(schemaOf, "c", "op", "Unknown", all)).toEqual([]);
    expect(presenceChecks(schemaOf, "c", "op", "Fixture", "not an object")).toEqual([]);
  });
});
