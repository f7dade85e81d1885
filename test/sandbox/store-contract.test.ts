// One contract, two stores (templates/sandbox/store/port.ts): the same operations on the SQL store over PGlite
// (the sandbox) and on the memory store (the mock handlers of verispec/msw, store/memory.ts) give the same
// answers, each also checked against what the contract says. Orders the SQL leaves open (due-time ties) are
// not asked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../templates/sandbox/store/memory.js";
import type { OutboxWrite, ServiceStore } from "../../templates/sandbox/store/port.js";
import { sqlStore } from "../../templates/sandbox/store/service-store.js";
import type { Db } from "../../templates/sandbox/store/sql.js";
import type { Verification } from "../../templates/sandbox/store/verifications.js";
import { memoryDb, verificationRow } from "./inprocess.js";

const row = (trace: string, patch: Partial<Verification> = {}) => verificationRow(trace, { n: trace }, { userId: "u", ...patch });
const outbox = (...rows: [string, string, string | null][]): OutboxWrite => ({
  rows: rows.map(([id, trace, url]) => [id, trace, url, "v5", `{"d":"${id}"}`, 1]),
  signatureVersion: "2",
});
const nothing: OutboxWrite = { rows: [], signatureVersion: "2" };

/** Writes through the contract, then every read; the answers in one object (outbox ids counted from the first). */
async function script(store: ServiceStore): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const written = await store.insertVerifications(
    [
      { v: row("a", { dueAt: 30 }), trigger: "create" },
      { v: row("b", { dueAt: 20, type: "business", subType: "data" }), trigger: "create" },
      { v: row("c", { parentTrace: "b", dueAt: 25 }), trigger: "create" },
      { v: row("d", { parentTrace: "b", userId: null }), trigger: "create" },
      { v: row("e", { api: "older", userId: "w", dueAt: 5, verificationStatus: "verified" }), trigger: "create" },
      { v: row("f", { dueAt: 40 }), trigger: "create" },
      { v: row("g", { api: "older", userId: "w" }), trigger: "create" },
      // The newest of its user and kind, but a stakeholder: never the one a resubmission retries.
      { v: row("h", { parentTrace: "b" }), trigger: "create" },
    ],
    outbox(["d1", "a", "http://127.0.0.1:9/a"], ["d2", "a", null], ["d3", "b", "http://127.0.0.1:9/b"]),
  );
  out.written = written.map((w) => ({ ...w, id: w.id - written[0]!.id + 1 }));
  out.duplicate = await store.insertVerifications([{ v: row("a"), trigger: "create" }], nothing).then(
    () => "stored",
    () => "refused",
  );
  out.userIds = [await store.userIdOf("a"), await store.userIdOf("d"), await store.userIdOf("none")];
  out.resubmittable = [
    (await store.lockLatestResubmittable("u", { type: "individual", subType: "data" }))?.trace,
    (await store.lockLatestResubmittable("u", { type: "business", subType: "data" }))?.trace,
    (await store.lockLatestResubmittable("u", { type: "individual", subType: "document" }))?.trace,
    (await store.lockLatestResubmittable("w", { type: "individual", subType: "data" }))?.trace,
  ];
  out.children = (await store.childrenOf("b")).map((v) => v.trace);
  out.noChildren = await store.childrenOf("a");
  out.found = [(await store.findVerification("c"))?.parentTrace, await store.findVerification("none")];
  out.locked = [(await store.lockVerification("e"))?.trace, (await store.lockVerification("e", "older"))?.trace, await store.lockVerification("e", "v5")];
  out.due = [
    (await store.claimDueVerifications(25, "pending", 10)).map((v) => v.trace),
    (await store.claimDueVerifications(100, "pending", 10)).map((v) => v.trace),
    (await store.claimDueVerifications(100, "pending", 2)).map((v) => v.trace),
    (await store.claimDueVerifications(100, "pending", 0)).map((v) => v.trace),
    (await store.claimDueVerifications(100, "verified", 10)).map((v) => v.trace),
    (await store.claimDueVerifications(19, "pending", 10)).map((v) => v.trace),
  ];
  out.older = [
    await store.olderTraceOf({ userId: "w" }),
    await store.olderTraceOf({ trace: "e" }),
    await store.olderTraceOf({ trace: "a" }),
    await store.olderTraceOf({ userId: "u" }),
  ];
  out.latest = [(await store.latestVerifications(3)).map((v) => v.trace), await store.latestVerifications(0)];

  await store.updateVerification(
    row("a", { verificationStatus: "rejected", attempt: 2, updatedAt: 5, dueAt: null }),
    "complete",
    outbox(["d4", "a", "http://127.0.0.1:9/a"]),
  );
  await store.updateVerification(row("f", { verificationStatus: "approved", updatedAt: 6 }), "complete", undefined);
  out.history = await store.historyOf("a");
  out.histories = [...(await store.historiesOf(["a", "f", "none"])).entries()];
  out.afterUpdate = [(await store.findVerification("a"))?.verificationStatus, (await store.claimDueVerifications(100, "pending", 10)).map((v) => v.trace)];
  out.bodies = [await store.latestWebhookBody("a"), await store.latestWebhookBody("b"), await store.latestWebhookBody("f")];

  await store.insertForm("form-1", { name: "Pat" }, 100);
  const fresh = await store.lockForm("form-1");
  await store.countFormOpening("form-1");
  await store.countFormOpening("form-1");
  await store.countFormOpening("none");
  const opened = await store.lockForm("form-1");
  await store.saveFormAttempt("form-1", "a", { name: "Pat Two" });
  out.forms = [fresh, opened, await store.lockForm("form-1"), await store.lockForm("none")];

  out.clock = [
    await store.loadClockOffset(),
    await store.advanceClockOffset(5, 10),
    await store.advanceClockOffset(6, 10),
    await store.loadClockOffset(),
    await store.saveClockOffset(3),
    await store.loadClockOffset(),
  ];

  out.rolledBack = await store
    .transaction(async (tx) => {
      await tx.updateVerification(row("b", { verificationStatus: "rejected", updatedAt: 9 }), "complete", outbox(["d5", "b", null]));
      await tx.saveClockOffset(99);
      throw new Error("refused");
    })
    .catch((e: Error) => e.message);
  out.afterRollback = [
    (await store.findVerification("b"))?.verificationStatus,
    await store.historyOf("b"),
    await store.latestWebhookBody("b"),
    await store.loadClockOffset(),
  ];
  out.committed = await store.transaction(async (tx) => {
    await tx.updateVerification(row("b", { verificationStatus: "approved", updatedAt: 10 }), "complete", undefined);
    return (await tx.findVerification("b"))?.verificationStatus;
  });
  out.afterCommit = (await store.historyOf("b")).map((h) => h.verification_status);
  return out;
}

describe("the SQL store and the memory store keep one contract", () => {
  let db: Db;
  beforeAll(async () => {
    db = await memoryDb();
  }, 60_000);
  afterAll(async () => db?.close());

  it("answers every operation alike, and as the contract says", async () => {
    const memory = await script(memoryStore());
    const sql = await script(sqlStore(db, "store-contract"));
    expect(memory).toEqual(sql);
    expect(memory).toMatchObject({
      written: [
        { id: 1, deliveryId: "d1", url: "http://127.0.0.1:9/a", state: "queued" },
        { id: 2, deliveryId: "d2", url: null, state: "no_receiver" },
        { id: 3, deliveryId: "d3", url: "http://127.0.0.1:9/b", state: "queued" },
      ],
      duplicate: "refused",
      userIds: ["u", null, null],
      resubmittable: ["f", "b", undefined, undefined],
      children: ["c", "d", "h"],
      noChildren: [],
      found: ["b", undefined],
      locked: ["e", "e", undefined],
      due: [["b", "c"], ["b", "c", "a", "f"], ["b", "c"], [], ["e"], []],
      older: ["g", "e", undefined, undefined],
      latest: [["h", "g", "f"], []],
      afterUpdate: ["rejected", ["b", "c"]],
      bodies: ['{"d":"d4"}', '{"d":"d3"}', undefined],
      clock: [0, 5, undefined, 5, undefined, 3],
      rolledBack: "refused",
      afterRollback: ["pending", [{ verification_status: "pending", trigger: "create" }], '{"d":"d3"}', 3],
      committed: "approved",
      afterCommit: ["pending", "approved"],
    });
    expect(memory.history).toEqual([
      { verification_status: "pending", submission_status: "submitted", attempt: 1, trigger: "create", at: 1 },
      { verification_status: "rejected", submission_status: "submitted", attempt: 2, trigger: "complete", at: 5 },
    ]);
    expect((memory.histories as [string, unknown[]][]).map(([trace, rows]) => [trace, rows.length])).toEqual([
      ["a", 2],
      ["f", 2],
      ["none", 0],
    ]);
    expect(memory.forms).toEqual([
      { request: { name: "Pat" }, createdAt: 100, opensSinceSave: 0, attempts: 0, trace: null },
      { request: { name: "Pat" }, createdAt: 100, opensSinceSave: 2, attempts: 0, trace: null },
      { request: { name: "Pat Two" }, createdAt: 100, opensSinceSave: 0, attempts: 1, trace: "a" },
      undefined,
    ]);
  });
});
