// The results the sandbox cannot know (templates/sandbox/results.ts): chosen by test value from
// spec/sandbox.yaml choices.results, present in v5 payloads only once processing has completed.
import { describe, expect, it } from "vitest";
import { derivedUuid, olderResults, processed, resultsFor, v5Results } from "../../templates/sandbox/results.js";
import { binding } from "./inprocess.js";

describe("results chosen by test value", () => {
  it("are neutral unless the name holds the hits word as a whole word, in any case", () => {
    expect(resultsFor(binding.spec, "Ada Citizen")).toEqual({
      idvRisk: "unknown",
      idvRiskDescription: "Undefined",
      verificationScore: 0,
      watchlist: { status: "clear", totalHits: 0 },
      inWatchLists: [],
    });
    const hit = resultsFor(binding.spec, "Wes watchlist");
    expect(hit.watchlist).toEqual({ status: "hits_found", totalHits: 1 });
    expect(hit.inWatchLists).toHaveLength(1);
    expect(resultsFor(binding.spec, "Watchlisted").watchlist.status).toBe("clear");
  });

  it("v5: idvRisk and screening are absent while processing (pending, new) and present after", () => {
    const at = 1_767_225_600_000;
    expect(processed(binding, "pending")).toBe(false);
    expect(processed(binding, "new")).toBe(false);
    expect(v5Results(binding, { name: "Ada", verificationStatus: "pending", updatedAt: at })).toEqual({});
    expect(v5Results(binding, { name: "Ada", verificationStatus: "rejected", updatedAt: at })).toEqual({
      idvRisk: "unknown",
      screening: { watchlist: { status: "clear", totalHits: 0, lastScreenedAt: at, lastScreenedTime: "2026-01-01T00:00:00.000Z" } },
    });
  });

  it("older: a score for individuals only, a screening id once processed", () => {
    const v = { trace: "t-1", type: "privateCompany", name: "Corp", verificationStatus: "pending" };
    expect(olderResults(binding, v)).toEqual({ inWatchLists: [], outOfWatchLists: [], idvRiskScore: { description: "Undefined" } });
    const done = olderResults(binding, { ...v, type: "individual", verificationStatus: "verified" });
    expect(done).toMatchObject({ verificationScore: 0, screeningId: derivedUuid("t-1", "screening") });
  });

  it("derived UUIDs are well formed, stable, and differ by name", () => {
    const a = derivedUuid("trace", "stakeholder-0");
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedUuid("trace", "stakeholder-0")).toBe(a);
    expect(derivedUuid("trace", "stakeholder-1")).not.toBe(a);
  });
});
