// maxErrors: a hostile document gets at most `maxErrors` issues and one last item saying how many more.
import { describe, expect, it } from "vitest";
import { validate } from "../../generated/validators/index.js";
import { OVER_BUDGET } from "../../templates/validators/types.js";
import { DEFAULT_MAX_ERRORS, errorBudget, splitAtBudget } from "../../templates/validators/validator.js";

const body = (tags: unknown[], extra: Record<string, unknown> = {}) => ({ type: "individual", tags, ...extra });
const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);
type Issues = { valid: false; errors: { message: string; code: string; path: unknown[] }[] };
const run = (data: unknown, options?: object) => validate("v5.VerificationCreateRequest", data, options as never) as Issues;

describe("maxErrors", () => {
  it("lists 100 issues by default, then '... and N more errors'", () => {
    expect(DEFAULT_MAX_ERRORS).toBe(100);
    const all = run(body(numbers(250)), { maxErrors: Infinity }).errors;
    const cut = run(body(numbers(250))).errors;
    expect(cut).toHaveLength(101);
    expect(cut.slice(0, 100)).toEqual(all.slice(0, 100));
    expect(cut[100]).toEqual({ message: `... and ${all.length - 100} more errors`, code: "too_many_errors", path: [] });
  });

  it("counts exactly what maxErrors: Infinity would have listed beyond the cut", () => {
    for (const max of [1, 3, 10]) {
      const data = body(numbers(12), { unknownA: 1, unknownB: 2 });
      const all = run(data, { maxErrors: Infinity }).errors;
      const cut = run(data, { maxErrors: max }).errors;
      expect(cut.slice(0, max)).toEqual(all.slice(0, max));
      expect(cut[max]!.message).toBe(`... and ${all.length - max} more error${all.length - max === 1 ? "" : "s"}`);
      expect(cut).toHaveLength(max + 1);
    }
  });

  it("no extra item when the issues fit; a bad maxErrors is a RangeError", () => {
    const few = run(body(numbers(3))).errors;
    expect(few.every((e) => e.code !== "too_many_errors")).toBe(true);
    expect(run(body(numbers(3)), { maxErrors: few.length }).errors).toEqual(few);
    expect(() => run(body([1]), { maxErrors: 0 })).toThrow(RangeError);
    expect(() => run(body([1]), { maxErrors: Number.NaN })).toThrow(RangeError);
  });

  it("10^5 invalid items give 101 issues (the work past the cut is counting only)", () => {
    const cut = run(body(numbers(100_000))).errors;
    expect(cut).toHaveLength(101);
    expect(cut[100]!.message).toMatch(/^\.\.\. and \d+ more errors$/);
  });

  it("the all-errors run builds at most the budget's error objects; the rest are placeholders, counted", () => {
    expect([errorBudget(1), errorBudget(100), errorBudget(Infinity)]).toEqual([1010, 2000, Infinity]);
    const over = { instancePath: "", schemaPath: "", keyword: OVER_BUDGET, params: {} };
    const a = { instancePath: "/a", schemaPath: "#/type", keyword: "type", params: {} };
    expect(splitAtBudget([a, a, over, over, over])).toEqual({ built: [a, a], counted: 3 });
    const all = [a, a];
    expect(splitAtBudget(all).built).toBe(all);
    // 10^5 invalid items, maxErrors 1: the count past the budget is exact for errors that map one to one.
    const cut = run(body(numbers(100_000)), { maxErrors: 1 }).errors;
    const full = run(body(numbers(100_000)), { maxErrors: Infinity }).errors;
    expect(cut).toEqual([full[0], { message: `... and ${full.length - 1} more errors`, code: "too_many_errors", path: [] }]);
  });
});
