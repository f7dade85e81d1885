// Issue 36: the reference page names the cases of a conditional and the unnamed alternatives of a oneOf by
// what they are (Redoc would say "case 1", "case 2", "object (2)"), and the names change no verdict.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { alternativeName, conditionalCaseNames, withNamedConditionalCases } from "../../generator/emit/conditional-names.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("conditional case names", () => {
  it("names a case by its condition and the other case by its negation", () => {
    expect(conditionalCaseNames({ properties: { type: { const: "individual" } }, required: ["type"] })).toEqual({
      then: "type individual",
      else: "type other than individual",
    });
    expect(conditionalCaseNames({ properties: { country: { enum: ["AUS"] }, type: { const: "association" } } })).toEqual({
      then: "country AUS, type association",
      else: "not country AUS, type association",
    });
    expect(conditionalCaseNames({ properties: { role: {} }, required: ["role"] })).toEqual({ then: "role given", else: "no role" });
    expect(conditionalCaseNames({ properties: { c: { enum: ["A", "B"] } } })).toEqual({ then: "c A or B", else: "c other than A or B" });
    expect(conditionalCaseNames({ required: ["x"] })).toBeUndefined();
    expect(alternativeName({ properties: { trace: {} }, required: ["trace"] })).toBe("with trace");
    expect(alternativeName({ properties: {} })).toBeUndefined();
  });

  it("adds titles only, keeps titles already there, and never rewrites data (const, enum, examples)", () => {
    const schema = {
      allOf: [{ if: { properties: { type: { const: "trust" } }, required: ["type"] }, then: { required: ["deed"] } }],
      oneOf: [{ properties: { a: {} }, required: ["a"] }, { title: "kept", required: ["b"] }, { $ref: "#/x" }],
      examples: [{ if: { properties: { type: { const: "no" } } } }],
    };
    const named = withNamedConditionalCases({ s: schema }).s as unknown as {
      allOf: Record<string, { title?: string }>[];
      oneOf: { title?: string }[];
      examples: unknown;
    };
    expect(named.allOf[0]!.if!.title).toBe("type trust");
    expect(named.allOf[0]!.else!.title).toBe("type other than trust");
    expect(named.oneOf.map((m) => m.title)).toEqual(["with a", "kept", undefined]);
    expect(named.examples).toEqual(schema.examples);
    // The same verdicts: a title and an else of only a title change nothing.
    const ajv = new Ajv2020({ strict: false });
    const before = ajv.compile({ allOf: schema.allOf });
    const after = ajv.compile({ allOf: named.allOf });
    for (const doc of [{ type: "trust" }, { type: "trust", deed: 1 }, { type: "other" }, {}]) expect(after(doc)).toBe(before(doc));
  });

  it("leaves generated/openapi.json with no unnamed conditional case", () => {
    const doc = JSON.parse(readFileSync(join(ROOT, "generated", "openapi.json"), "utf8")) as unknown;
    const unnamed: string[] = [];
    const walk = (v: unknown, at: string): void => {
      if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}/${i}`));
      if (!v || typeof v !== "object") return;
      const o = v as Record<string, { title?: string } | undefined>;
      if (o.if && (!o.if.title || !o.else?.title)) unnamed.push(at);
      for (const [k, x] of Object.entries(o)) if (k !== "examples" && k !== "example") walk(x, `${at}/${k}`);
    };
    walk(doc, "");
    expect(unnamed).toEqual([]);
  });
});
