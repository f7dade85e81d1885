// Retention's loop (templates/sandbox/retention.ts sweep) over a stub store that counts its deletes: the
// totals, one batch after another until nothing is left, each tenant on its own clock, the pause between
// batches and a stop between tenants. browse.test.ts and tenants.test.ts run it against PGlite.
import { afterEach, describe, expect, it, vi } from "vitest";
import { sweep } from "../../templates/sandbox/retention.js";
import type { Db, Row } from "../../templates/sandbox/store/index.js";

const DAY = 86_400_000;

/** A store whose DELETEs remove from `left` (per table and tenant) at most the batch asked for; the calls seen. */
function countingDb(left: Record<string, number>, exclusive = false) {
  const calls: { table: string; params: readonly unknown[] }[] = [];
  const query = async <T extends Row>(text: string, params: readonly unknown[] = []): Promise<T[]> => {
    const table = /^DELETE FROM (\w+)/.exec(text)?.[1];
    if (table === undefined || table === "history" || table === "delivery_attempts") return [];
    calls.push({ table, params });
    const key = table === "outbox" ? "outbox" : `${table}:${String(params[2])}`;
    const n = Math.min(left[key] ?? 0, Number(params[1]));
    left[key] = (left[key] ?? 0) - n;
    return Array.from({ length: n }, (_, i) => ({ trace: `t${i}`, id: String(i) })) as unknown as T[];
  };
  const db: Db = { query, transaction: (fn) => fn({ query }), close: async () => {}, kind: exclusive ? "pglite" : "postgres", exclusive };
  return { db, calls, left };
}

afterEach(() => vi.useRealTimers());

describe("sweep", () => {
  it("deletes batch after batch until none is left and returns the totals of each kind", async () => {
    const s = countingDb({ "verifications:default": 1200, outbox: 700, "forms:default": 3 });
    const total = await sweep(s.db, { days: 30, now: () => 100 * DAY, pauseMs: 0 });
    expect(total).toEqual({ verifications: 1200, deliveries: 700, forms: 3 });
    expect(s.calls.filter((c) => c.table === "verifications")).toHaveLength(4); // 500, 500, 200, then 0
    expect(s.calls.filter((c) => c.table === "verifications").map((c) => c.params)).toContainEqual([70 * DAY, 500, "default"]);
  });

  it("a pass that removed rows of any kinds runs another: one verification and one form, or one verification and one delivery", async () => {
    const cases: Record<string, number>[] = [
      { "verifications:default": 1, "forms:default": 1 },
      { "verifications:default": 1, outbox: 1 },
    ];
    for (const left of cases) {
      const s = countingDb(left);
      await sweep(s.db, { days: 30, now: () => 100 * DAY, pauseMs: 0 });
      expect(s.calls.filter((c) => c.table === "verifications")).toHaveLength(2);
    }
  });

  it("a store one process owns (PGlite) deletes 100 rows a statement: a request waits behind a whole statement there", async () => {
    const s = countingDb({ "verifications:default": 250 }, true);
    expect(await sweep(s.db, { days: 30, now: () => 100 * DAY, pauseMs: 0 })).toEqual({ verifications: 250, deliveries: 0, forms: 0 });
    expect(s.calls.filter((c) => c.table === "verifications").map((c) => c.params[1])).toEqual([100, 100, 100, 100]);
  });

  it("each tenant by its own clock; finished deliveries by wall time", async () => {
    const s = countingDb({ "verifications:a": 2, "verifications:b": 1, "forms:b": 1 });
    const total = await sweep(s.db, {
      days: 1,
      now: () => 0,
      pauseMs: 0,
      tenants: [
        { name: "a", now: () => 10 * DAY },
        { name: "b", now: () => 20 * DAY },
      ],
    });
    expect(total).toEqual({ verifications: 3, deliveries: 0, forms: 1 });
    const first = s.calls.slice(0, 6).map((c) => [c.table, c.params[0], c.params[2]]);
    expect(first.filter(([t]) => t !== "outbox")).toEqual([
      ["verifications", 9 * DAY, "a"],
      ["forms", 9 * DAY, "a"],
      ["verifications", 19 * DAY, "b"],
      ["forms", 19 * DAY, "b"],
    ]);
    const wall = Number(s.calls.find((c) => c.table === "outbox")!.params[0]);
    expect(Math.abs(wall - (Date.now() - DAY))).toBeLessThan(60_000);
  });

  it("stops before the next tenant once `stopped` says so, with what it removed so far", async () => {
    const s = countingDb({ "verifications:a": 5, "verifications:b": 5 });
    let checks = 0;
    const total = await sweep(s.db, {
      days: 1,
      now: () => 10 * DAY,
      pauseMs: 0,
      tenants: [
        { name: "a", now: () => 10 * DAY },
        { name: "b", now: () => 10 * DAY },
      ],
      stopped: () => ++checks > 1,
    });
    expect(total).toEqual({ verifications: 5, deliveries: 0, forms: 0 });
    expect(s.left["verifications:b"]).toBe(5);
  });

  it("pauses 20 ms between batches unless told otherwise, and not after the last", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const s = countingDb({ "verifications:default": 1 });
    let done = false;
    const running = sweep(s.db, { days: 1, now: () => 10 * DAY }).then((t) => ((done = true), t));
    await vi.advanceTimersByTimeAsync(19);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await running).toEqual({ verifications: 1, deliveries: 0, forms: 0 });
    expect(s.calls.filter((c) => c.table === "verifications")).toHaveLength(2);
  });
});
