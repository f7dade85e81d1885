// The store in memory behind verispec/msw (templates/sandbox/store/memory.ts): a transaction that throws
// leaves nothing behind, as a database rolls back; transactions run one after another; reset empties it.
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../templates/sandbox/store/memory.js";
import type { Verification } from "../../templates/sandbox/store/verifications.js";

const v = (trace: string, over: Partial<Verification> = {}): Verification => ({
  trace,
  api: "v5",
  userId: "u",
  submissionId: trace,
  parentTrace: null,
  roles: null,
  type: "individual",
  subType: "data",
  name: "n",
  country: null,
  request: {},
  verificationStatus: "pending",
  submissionStatus: "submitted",
  attempt: 1,
  maxAttempts: 5,
  outcome: "verified",
  dueAt: 10,
  formId: null,
  createdAt: 1,
  updatedAt: 1,
  ...over,
});
const none = { rows: [], signatureVersion: "2" };

describe("the memory store", () => {
  it("rolls back a transaction that throws, and keeps one that resolves", async () => {
    const store = memoryStore();
    await store.insertVerifications([{ v: v("a"), trigger: "submit" }], { rows: [["d1", "a", null, "v5", "{}", 1]], signatureVersion: "2" });
    await expect(
      store.transaction(async (tx) => {
        await tx.updateVerification(v("a", { verificationStatus: "rejected" }), "complete", undefined);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect((await store.findVerification("a"))?.verificationStatus).toBe("pending");
    expect(await store.historyOf("a")).toHaveLength(1);
    await store.transaction((tx) => tx.updateVerification(v("a", { verificationStatus: "rejected", updatedAt: 2 }), "complete", none));
    expect((await store.findVerification("a"))?.verificationStatus).toBe("rejected");
    expect((await store.historyOf("a")).map((h) => h.verification_status)).toEqual(["pending", "rejected"]);
    expect(await store.latestWebhookBody("a")).toBe("{}");
  });

  it("runs transactions one after another: a read inside one sees the writes of the one before", async () => {
    const store = memoryStore();
    const order: string[] = [];
    const first = store.transaction(async (tx) => {
      await new Promise((r) => setTimeout(r, 20));
      await tx.insertVerifications([{ v: v("b"), trigger: "submit" }], none);
      order.push("first");
    });
    const second = store.transaction(async (tx) => {
      order.push(`second sees ${(await tx.findVerification("b")) ? "b" : "nothing"}`);
    });
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "second sees b"]);
  });

  it("answers the lookups as their statements do, and reset empties it", async () => {
    const store = memoryStore();
    await store.insertVerifications(
      [
        { v: v("c", { dueAt: 30 }), trigger: "submit" },
        { v: v("d", { dueAt: 20 }), trigger: "submit" },
        { v: v("e", { api: "older", userId: "w", dueAt: 5, verificationStatus: "verified" }), trigger: "submit" },
      ],
      none,
    );
    expect((await store.claimDueVerifications(25, "pending", 10)).map((x) => x.trace)).toEqual(["d"]);
    expect((await store.lockLatestResubmittable("u", { type: "individual", subType: "data" }))?.trace).toBe("d");
    expect(await store.olderTraceOf({ userId: "w" })).toBe("e");
    expect(await store.olderTraceOf({ trace: "c" })).toBeUndefined();
    expect((await store.latestVerifications(2)).map((x) => x.trace)).toEqual(["e", "d"]);
    store.reset();
    expect(await store.latestVerifications(10)).toEqual([]);
  });
});
