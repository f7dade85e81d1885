// The bench method's arithmetic (bench/lib): what the README figures are computed with.
import { describe, expect, it } from "vitest";
import { agreement, type SuiteResult } from "../../bench/lib/harness.js";
import { median, quantile, relativeDifference, shuffled, spread } from "../../bench/lib/stats.js";

describe("bench statistics", () => {
  it("median and quantiles interpolate between order statistics", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(quantile([10, 20, 30, 40, 50], 0.25)).toBe(20);
    expect(quantile([0, 100], 0.25)).toBe(25);
    expect(Number.isNaN(median([]))).toBe(true);
  });

  it("a bimodal peer: the median of the rounds stays in the fast mode while the slow processes are fewer than half", () => {
    // Each run: 11 rounds, the peer's process in the fast mode (4.0) or the slow one (8.0): 4 of 11 slow, then 1 of 11.
    const runA = [4, 8, 4, 8, 4, 4, 8, 4, 8, 4, 4];
    const runB = [4, 4, 4, 4, 4, 4, 4, 4, 4, 8, 4];
    expect(median(runA)).toBe(4);
    expect(relativeDifference(spread(runA).center, spread(runB).center)).toBe(0);
  });

  it("spread is half the range over the median", () => {
    expect(spread([9, 10, 11, 30])).toEqual({ center: 10.5, min: 9, max: 30, relative: 1 });
  });

  it("relative difference is over the mean of the two", () => {
    expect(relativeDifference(1.0, 1.1)).toBeCloseTo(0.1 / 1.05, 10);
    expect(relativeDifference(0, 0)).toBe(0);
  });

  it("shuffles deterministically by seed, keeping every item", () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    expect(shuffled(items, 7)).toEqual(shuffled(items, 7));
    expect(shuffled(items, 7)).not.toEqual(shuffled(items, 8));
    expect([...shuffled(items, 7)].sort((a, b) => a - b)).toEqual(items);
  });
});

describe("agreement of repeated runs", () => {
  const run = (ratio: number, ms: number): SuiteResult[] => [
    {
      suite: { kind: "import", id: "s", title: "", notes: [], modules: [], baseline: "e", samplesPerRound: 1, targets: {} },
      raw: new Map(),
      figures: [
        { suite: "s", key: "ratio p peer", label: "p: verispec vs peer", perRound: [ratio], summary: spread([ratio]) },
        { suite: "s", key: "over m", label: "m: ms over e", perRound: [ms], summary: spread([ms]) },
        { suite: "s", key: "ns p peer", label: "p / peer: ns", perRound: [1], summary: spread([1]) },
      ],
    },
  ];

  it("compares every ratio and import figure of the runs, largest difference first, and no raw time", () => {
    const rows = agreement([run(2.0, 10), run(2.1, 14)]);
    expect(rows.map((r) => r.label)).toEqual(["m: ms over e", "p: verispec vs peer"]);
    expect(rows[1]!.values).toEqual([2.0, 2.1]);
    expect(rows[1]!.difference).toBeCloseTo(0.1 / 2.05, 10);
  });
});
