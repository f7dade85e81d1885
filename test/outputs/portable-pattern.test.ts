// Issue 24, item 6: every `pattern` of openapi.json means the same in JavaScript with and without the
// `u` flag and in Python `re` (OpenAPI tools compile without `u`); a rule whose exact pattern needs `u`
// keeps it as `x-verispec-pattern`, which verispec/ajv-vocabulary enforces, so that Ajv with the
// vocabulary gives the generated validators' verdict, and the standalone JSON Schemas keep the exact one.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ANY_ASTRAL, portablePattern } from "../../generator/emit/portable-pattern.js";
import { needProgram } from "../support/services.js";
import { OPENAPI, ROOT, SCHEMAS } from "./helpers.js";
import type { LooseJson } from "../support/loose.js";

const python = needProgram("python3", "apt-get install -y python3");
type Json = LooseJson;
const doc = JSON.parse(readFileSync(OPENAPI, "utf8")) as Json;
const components = doc.components.schemas as Record<string, Json>;
const addVerispecVocabulary = createRequire(import.meta.url)(join(ROOT, "generated", "ajv-vocabulary.cjs")) as (ajv: Ajv2020) => Ajv2020;

/** Letters of every plane, astral non-letters (emoji, a private-use character), lone surrogates, the rule's other characters. */
const SAMPLES = [
  "",
  "a",
  "José",
  "O'Brien",
  "O\u2019Brien",
  "Anne-Marie",
  "Ж",
  "中文",
  "\u{20000}",
  "a\u{20000}b",
  "𝒜",
  "\u{1D400}",
  "😀",
  "a😀",
  "\u{F0000}",
  "\u{E0001}",
  "\uD800",
  "a\uDC00",
  "\uDC00\uD800",
  "1",
  "a_b",
  " ",
];

/** Every `pattern` value in a document. */
function patternsOf(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => patternsOf(x, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) k === "pattern" && typeof x === "string" ? out.add(x) : patternsOf(x, out);
  return out;
}

function pythonVerdicts(patterns: readonly string[]): boolean[][] {
  const script = "import json,re,sys\nd=json.load(sys.stdin)\nprint(json.dumps([[re.search(p,s) is not None for s in d['samples']] for p in d['patterns']]))";
  const r = spawnSync(python.path, ["-c", script], { input: JSON.stringify({ patterns, samples: SAMPLES }), encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as boolean[][];
}

describe("portablePattern", () => {
  it("leaves a pattern without astral characters alone", () => {
    expect(portablePattern("^[0-9]{5}$")).toBeUndefined();
    expect(portablePattern("^[\\u0041-\\u005A]+$")).toBeUndefined();
  });

  it("keeps a class's Basic Multilingual Plane items and admits any astral character instead of its astral ones", () => {
    expect(portablePattern("^[a-z\u{20000}-\u{2A6DF}\u{1D400}'-]+$")).toBe(`^(?:[a-z'-]|${ANY_ASTRAL})+$`);
    expect(portablePattern("^[\u{20000}]$")).toBe(`^(?:${ANY_ASTRAL})$`);
    expect(portablePattern("^\\[[\u{20000}]$")).toBe(`^\\[(?:${ANY_ASTRAL})$`);
  });

  it("refuses what it cannot make portable", () => {
    expect(() => portablePattern("^[^\u{20000}]$")).toThrow(/negated/);
    expect(() => portablePattern("^\u{20000}$")).toThrow(/outside a class/);
    expect(() => portablePattern("^[\\uFFF0-\u{20000}]$")).toThrow(/crosses/);
  });
});

describe("openapi.json's patterns under every engine", () => {
  const patterns = [...patternsOf(doc)];

  it("every pattern compiles without the u flag and means the same with it", () => {
    expect(patterns.length).toBeGreaterThanOrEqual(8);
    const differ = patterns.flatMap((p) =>
      SAMPLES.filter((s) => new RegExp(p).test(s) !== new RegExp(p, "u").test(s)).map((s) => `${p.slice(0, 40)} ${JSON.stringify(s)}`),
    );
    expect(differ).toEqual([]);
  });

  it.skipIf(!python.found)("Python re agrees with JavaScript on every pattern and sample", () => {
    const py = pythonVerdicts(patterns);
    const differ = patterns.flatMap((p, i) =>
      SAMPLES.filter((s, j) => new RegExp(p, "u").test(s) !== py[i]![j]).map((s) => `${p.slice(0, 40)} ${JSON.stringify(s)}`),
    );
    expect(differ).toEqual([]);
  });

  it("the name rule keeps its exact pattern as x-verispec-pattern, the one the JSON Schemas state", () => {
    const name = components["rules.personName"]!;
    const standalone = JSON.parse(readFileSync(join(SCHEMAS, "v4.IdFormRequest.json"), "utf8")) as Json;
    expect(name["x-verispec-pattern"]).toBe(standalone.$defs["rules.personName"].pattern);
    expect(name.pattern).toBe(portablePattern(name["x-verispec-pattern"]));
    expect(name.description).toContain("`x-verispec-pattern`");
    const exact = new RegExp(name["x-verispec-pattern"], "u");
    const portable = new RegExp(name.pattern);
    // A superset: everything the rule accepts, plus astral characters that are not letters.
    expect(SAMPLES.filter((s) => exact.test(s) && !portable.test(s))).toEqual([]);
    expect(SAMPLES.filter((s) => portable.test(s) && !exact.test(s))).toEqual(["😀", "a😀", "\u{F0000}", "\u{E0001}"]);
  });

  it("Ajv with verispec/ajv-vocabulary gives the exact rule's verdict on openapi.json's schema", () => {
    const name = components["rules.personName"]!;
    const withVocabulary = addVerispecVocabulary(new Ajv2020({ strict: true })).compile(name);
    const exact = new RegExp(name["x-verispec-pattern"], "u");
    expect(SAMPLES.filter((s) => withVocabulary(s) !== (s.length >= 1 && exact.test(s)))).toEqual([]);
    expect(withVocabulary("😀")).toBe(false);
    expect(withVocabulary.errors?.[0]?.keyword).toBe("x-verispec-pattern");
    expect(withVocabulary("\u{20000}")).toBe(true);
  });
});
