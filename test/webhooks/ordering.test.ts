import { describe, expect, it } from "vitest";
import { createOrderingGuard, MemoryOrderingState, type OrderingRecord, type OrderingState } from "../../templates/webhooks/index.js";

/** v5 payloads (timestamps always ms, seed: 6.2). */
const event = (trace: string, timestamp: number, deliveryId?: string) =>
  deliveryId === undefined ? { version: "v5", trace, timestamp } : { version: "v5", trace, timestamp, deliveryId };

describe("ordering guard (seed: 6.1)", () => {
  it("accepts newer timestamps and drops older ones, per trace", async () => {
    const guard = createOrderingGuard();
    expect(await guard.accept(event("a", 100))).toBe(true);
    expect(await guard.accept(event("a", 200))).toBe(true);
    expect(await guard.accept(event("a", 150))).toBe(false); // an older state
    expect(await guard.accept(event("b", 150))).toBe(true); // another verification
  });

  it("drops a re-delivery (same timestamp and deliveryId) but accepts a new deliveryId at the same timestamp", async () => {
    const guard = createOrderingGuard();
    expect(await guard.accept(event("a", 100, "d1"))).toBe(true);
    expect(await guard.accept(event("a", 100, "d1"))).toBe(false);
    expect(await guard.accept(event("a", 100, "d2"))).toBe(true);
    expect(await guard.accept(event("a", 100, "d2"))).toBe(false);
    expect(await guard.accept(event("a", 100, "d1"))).toBe(false);
  });

  it("treats the same timestamp without a deliveryId as a re-delivery", async () => {
    const guard = createOrderingGuard();
    expect(await guard.accept(event("a", 100))).toBe(true);
    expect(await guard.accept(event("a", 100))).toBe(false);
  });

  it("takes the deliveryId from the options when the payload has none", async () => {
    const guard = createOrderingGuard();
    expect(await guard.accept(event("a", 100), { deliveryId: "h1" })).toBe(true);
    expect(await guard.accept(event("a", 100), { deliveryId: "h1" })).toBe(false);
    expect(await guard.accept(event("a", 100), { deliveryId: "h2" })).toBe(true);
  });

  it("compares an older payload's seconds with milliseconds (seed: 6.3)", async () => {
    const guard = createOrderingGuard();
    expect(await guard.accept({ trace: "x", timestamp: 1_767_225_600_500 })).toBe(true);
    expect(await guard.accept({ trace: "x", timestamp: 1_767_225_600 })).toBe(false); // = …600000 ms, older
    expect(await guard.accept({ trace: "x", timestamp: 1_767_225_601 })).toBe(true);
  });

  it("serialises concurrent calls for one trace over an async state", async () => {
    const records = new Map<string, OrderingRecord>();
    const slow: OrderingState = {
      async get(trace) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return records.get(trace);
      },
      async set(trace, record) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        records.set(trace, record);
      },
    };
    const guard = createOrderingGuard({ state: slow });
    const results = await Promise.all([guard.accept(event("t", 100, "d")), guard.accept(event("t", 100, "d")), guard.accept(event("t", 90))]);
    expect(results).toEqual([true, false, false]);
    expect(records.get("t")).toEqual({ timestamp: 100, deliveryIds: ["d"] });
  });

  it("refuses payloads it cannot order", async () => {
    const guard = createOrderingGuard();
    await expect(guard.accept({ timestamp: 1 })).rejects.toThrow(TypeError);
    await expect(guard.accept({ trace: "a", timestamp: "1" })).rejects.toThrow(TypeError);
    await expect(guard.accept(null)).rejects.toThrow(TypeError);
  });

  it("MemoryOrderingState evicts the least recently updated trace", () => {
    const state = new MemoryOrderingState({ maxTraces: 2 });
    state.set("a", { timestamp: 1, deliveryIds: [] });
    state.set("b", { timestamp: 1, deliveryIds: [] });
    state.set("a", { timestamp: 2, deliveryIds: [] });
    state.set("c", { timestamp: 1, deliveryIds: [] });
    expect(state.get("b")).toBeUndefined();
    expect(state.get("a")).toEqual({ timestamp: 2, deliveryIds: [] });
    expect(state.size).toBe(2);
  });
});
