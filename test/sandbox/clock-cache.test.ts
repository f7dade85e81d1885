// The account's clock offset is read before every request; on a database one process owns (PGlite) it is
// kept until the next change instead of costing a statement per request, and a change is seen at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clockOps } from "../../templates/sandbox/store/clock.js";
import type { Db } from "../../templates/sandbox/store/sql.js";
import { memoryDb } from "./inprocess.js";

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
  beforeAll(async () => {
    db = await memoryDb();
  }, 60_000);
  afterAll(async () => db?.close());

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
