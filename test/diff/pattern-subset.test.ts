// acceptsAll(wider, narrower): true only when `wider` provably accepts every string `narrower` does. Each
// case states the answer; every "true" is also checked by sampling: the strings the narrower pattern
// accepts among a set of probes are all accepted by the wider one.
import { describe, expect, it } from "vitest";
import { acceptsAll } from "../../generator/diff/pattern-subset.js";

const CASES: [string, { wider: string; narrower: string; want: boolean }][] = [
  ["identical text", { wider: "^[0-9]{6,13}$", narrower: "^[0-9]{6,13}$", want: true }],
  ["a wider count", { wider: "^[0-9]{6,13}$", narrower: "^[0-9]{13}$", want: true }],
  ["a narrower count (nzbn {6,13} -> {13})", { wider: "^[0-9]{13}$", narrower: "^[0-9]{6,13}$", want: false }],
  ["an open upper bound", { wider: "^[0-9]{6,}$", narrower: "^[0-9]{6,13}$", want: true }],
  ["+ against {1,}", { wider: "^a+$", narrower: "^a{1,}$", want: true }],
  ["* is wider than +", { wider: "^a*$", narrower: "^a+$", want: true }],
  ["+ is not wider than *", { wider: "^a+$", narrower: "^a*$", want: false }],
  ["a wider class", { wider: "^[0-9A-F]{4}$", narrower: "^[0-9]{4}$", want: true }],
  ["\\d is [0-9]", { wider: "^\\d{11}$", narrower: "^[0-9]{11}$", want: true }],
  ["a narrower class", { wider: "^[0-9]{4}$", narrower: "^[0-9A-F]{4}$", want: false }],
  ["an optional suffix added (5 -> 5 or 5+4 digits)", { wider: "^[0-9]{5}(-[0-9]{4})?$", narrower: "^[0-9]{5}$", want: true }],
  ["an optional suffix removed", { wider: "^[0-9]{5}$", narrower: "^[0-9]{5}(-[0-9]{4})?$", want: false }],
  ["an alternative added", { wider: "^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9}|X)$", narrower: "^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$", want: true }],
  ["an alternative removed", { wider: "^(?:[0-9]{9})$", narrower: "^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$", want: false }],
  ["anchors dropped widen", { wider: "[0-9]{11}", narrower: "^[0-9]{11}$", want: true }],
  ["anchors added narrow", { wider: "^[0-9]{11}$", narrower: "[0-9]{11}", want: false }],
  ["only the end anchor dropped", { wider: "^[0-9]{11}", narrower: "^[0-9]{11}$", want: true }],
  ["a negated class against a class it excludes", { wider: "^[^x]+$", narrower: "^[a-w]+$", want: true }],
  ["a negated class against a class it does not exclude", { wider: "^[^x]+$", narrower: "^[a-z]+$", want: false }],
  ["escaped syntax characters", { wider: "^[a-z.]+\\.[a-z]+$", narrower: "^[a-z]+\\.[a-z]+$", want: true }],
  ["a group spelt out", { wider: "^(?:ab)c$", narrower: "^abc$", want: true }],
  ["outside the subset (a lookahead): not proven", { wider: "^(?=a)a+$", narrower: "^a$", want: false }],
  ["outside the subset (\\p{L}): not proven", { wider: "^\\p{L}+$", narrower: "^[a-z]+$", want: false }],
  ["a broken pattern: not proven", { wider: "^[0-9{2$", narrower: "^[0-9]{2}$", want: false }],
];

const PROBES = [
  "",
  "a",
  "aa",
  "abc",
  "x",
  "wxy",
  "AB12",
  "0",
  "1234",
  "12345",
  "12345-6789",
  "123456",
  "123-45-6789",
  "123456789",
  "X",
  "12345678901",
  "1234567890123",
  "123456789012345",
  "a.b",
  "ab.cd",
  "F00D",
  "abcabc",
];

describe("acceptsAll", () => {
  for (const [name, { wider, narrower, want }] of CASES) {
    it(`${name}: ${want}`, () => {
      expect(acceptsAll(wider, narrower)).toBe(want);
      if (!want) return;
      for (const probe of PROBES) {
        if (new RegExp(narrower, "u").test(probe)) expect(new RegExp(wider, "u").test(probe), probe).toBe(true);
      }
    });
  }

  it("every pattern of spec/rules.yaml is read and accepts itself", async () => {
    const { modelFromSpec } = await import("../../generator/pipeline.js");
    const model = modelFromSpec(new URL("../../spec", import.meta.url).pathname);
    const patterns = Object.values(model.rules).flatMap((r) => (r.pattern ? [r.pattern] : []));
    expect(patterns.length).toBeGreaterThan(5);
    // A pattern read by the subset: the same text with a trailing optional piece is provably wider.
    for (const p of patterns) expect(acceptsAll(p.replace(/\$$/, "(?:Z)?$"), p), p).toBe(true);
  });
});
