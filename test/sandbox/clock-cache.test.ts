// The account's clock offset is read before every request; on a database one process owns (PGlite) it is
// kept until the next change instead of costing a statement per request, and a change is seen at once.
import { describe, expect, it } from "vitest";
import { advancedOffset, clockOps } from "../../templates/sandbox/store/clock.js";
import type { Db } from "../../templates/sandbox/store/sql.js";
import { useMemoryDb } from "./inprocess.js";

function counting(db: Db, exclusive: boolean): { db: Db; reads: () => number } {
  let reads = 0;
  const wrapped: Db = {
    kind: db.kind,
    exclusive,
    close: () => db.close(),
    transaction: (fn) => db.transaction(fn),
    query: (text, params) => {
      if (/^SELECT value FROM sandbox_meta/.test(text)) reads++;
      return db.query(text, params);
    },
  };
  return { db: wrapped, reads: () => reads };
}

describe("the clock offset's reads", () => {
  let db: Db;
  useMemoryDb((opened) => {
    db = opened;
  });

  it("an owned database: read once, kept, and every change (advance, save) seen by the next read", async () => {
    const { db: owned, reads } = counting(db, true);
    const one = clockOps(owned, "clock-cache-a");
    const other = clockOps(owned, "clock-cache-a");
    expect(await one.loadClockOffset()).toBe(0);
    expect(await one.loadClockOffset()).toBe(0);
    expect(await other.loadClockOffset()).toBe(0);
    expect(reads()).toBe(1);
    expect(await other.advanceClockOffset(5000, 10_000)).toBe(5000);
    expect(await one.loadClockOffset()).toBe(5000);
    await other.saveClockOffset(7);
    expect(await one.loadClockOffset()).toBe(7);
    expect(await clockOps(owned, "clock-cache-b").loadClockOffset()).toBe(0);
    expect(reads()).toBe(4);
  });

  it("a read that raced a change is not kept", async () => {
    const { db: owned } = counting(db, true);
    const ops = clockOps(owned, "clock-cache-race");
    const racing = ops.loadClockOffset();
    await ops.advanceClockOffset(3, 10);
    await racing;
    expect(await ops.loadClockOffset()).toBe(3);
  });

  it("a database other instances share (Postgres): read every time", async () => {
    const { db: shared, reads } = counting(db, false);
    const ops = clockOps(shared, "clock-cache-shared");
    await ops.loadClockOffset();
    await ops.loadClockOffset();
    expect(reads()).toBe(2);
  });
});

/** A statement the held database has not answered yet. */
type Pending = { text: string; answer: (rows: Record<string, unknown>[]) => void };

/** A database whose statements wait until the test answers them, in the order the test chooses. */
function heldDb(): { db: Db; pending: Pending[] } {
  const pending: Pending[] = [];
  const query = (text: string) => new Promise<never[]>((resolve) => pending.push({ text, answer: resolve as (rows: unknown[]) => void }));
  const db = { kind: "pglite", exclusive: true, close: async () => {}, transaction: (fn) => fn({ query }), query } as Db;
  return { db, pending };
}

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the kept offset beside a change in flight", () => {
  it("a read answered after a change ended is not kept (its value may be the older one)", async () => {
    const { db, pending } = heldDb();
    const ops = clockOps(db, "held-a");
    const read = ops.loadClockOffset();
    const advance = ops.advanceClockOffset(5, 10);
    expect(pending.map((p) => p.text.split(" ")[0])).toEqual(["SELECT", "INSERT"]);
    pending[1]!.answer([{ value: "5" }]);
    expect(await advance).toBe(5);
    pending[0]!.answer([{ value: "0" }]);
    expect(await read).toBe(0);
    const again = ops.loadClockOffset();
    await settle();
    expect(pending).toHaveLength(3);
    pending[2]!.answer([{ value: "5" }]);
    expect(await again).toBe(5);
  });

  it("a read that began during a change and ended before it is dropped when the change ends", async () => {
    const { db, pending } = heldDb();
    const ops = clockOps(db, "held-b");
    const save = ops.saveClockOffset(7);
    const read = ops.loadClockOffset();
    await settle();
    pending[1]!.answer([{ value: "0" }]);
    expect(await read).toBe(0);
    pending[0]!.answer([]);
    await save;
    const again = ops.loadClockOffset();
    await settle();
    expect(pending).toHaveLength(3);
    pending[2]!.answer([{ value: "7" }]);
    expect(await again).toBe(7);
  });
});

describe("advancedOffset: the rule every store's advance keeps", () => {
  it("moves by ms up to max included, refuses past it, and moves back as well", () => {
    expect(advancedOffset(5, 5, 10)).toBe(10);
    expect(advancedOffset(5, 6, 10)).toBeUndefined();
    expect(advancedOffset(5, -8, 10)).toBe(-3);
    expect(advancedOffset(0, 0, 0)).toBe(0);
  });
});
