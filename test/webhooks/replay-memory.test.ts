import { describe, expect, it } from "vitest";
import { MemoryReplayStore } from "../../templates/webhooks/index.js";

describe("MemoryReplayStore", () => {
  it("adds a key once until it expires", () => {
    let now = 1_000;
    const store = new MemoryReplayStore({ now: () => now });
    expect(store.addIfAbsent("k", 100)).toBe(true);
    expect(store.addIfAbsent("k", 100)).toBe(false);
    now = 1_099;
    expect(store.addIfAbsent("k", 100)).toBe(false);
    now = 1_100;
    expect(store.addIfAbsent("k", 100)).toBe(true);
  });

  it("evicts the oldest entry first when full", () => {
    const store = new MemoryReplayStore({ maxEntries: 3, now: () => 0 });
    for (const key of ["a", "b", "c", "d"]) expect(store.addIfAbsent(key, 1_000)).toBe(true);
    expect(store.size).toBe(3);
    expect(store.addIfAbsent("b", 1_000)).toBe(false); // still remembered
    expect(store.addIfAbsent("a", 1_000)).toBe(true); // "a" was evicted first
  });

  it("drops expired entries instead of evicting live ones", () => {
    let now = 0;
    const store = new MemoryReplayStore({ maxEntries: 3, now: () => now });
    store.addIfAbsent("old-1", 10);
    store.addIfAbsent("old-2", 10);
    now = 5;
    store.addIfAbsent("live", 1_000);
    now = 20;
    store.addIfAbsent("new", 1_000);
    expect(store.size).toBe(2);
    expect(store.addIfAbsent("live", 1_000)).toBe(false);
  });

  it("rejects a non-positive bound", () => {
    expect(() => new MemoryReplayStore({ maxEntries: 0 })).toThrow(RangeError);
  });
});
