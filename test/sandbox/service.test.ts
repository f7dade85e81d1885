// The sandbox's behaviour in-process (templates/sandbox/service.ts over a PGlite database in memory):
// creation and resubmission to 474 and `locked`, 475, stakeholders, processing and its outcomes, the
// control API's transitions and their 409 reasons, the older payloads, the follow-up and hosted forms,
// each checked on the stored rows (verification, history, outbox).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { validate } from "../../generated/validators/index.js";
import type { QueuedRow } from "../../templates/sandbox/dispatcher.js";
import { toQueuedRow } from "../../templates/sandbox/store/outbox.js";
import {
  olderStakeholderSubmissionId,
  olderStakeholderTrace,
  ServiceError,
  type SandboxService,
  subjectOf,
  type Verification,
} from "../../templates/sandbox/service.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { olderIndividual, SIGNING_SECRET, v5Individual as typedV5, olderBody as older } from "./helpers.js";
import { binding, memoryDb, outbox, testService, type TestServiceOptions } from "./inprocess.js";
import type { LooseJson } from "../support/loose.js";
import { rejectionOf } from "../support/rejection.js";

/** A valid v5 create body, as the service takes it. */
const v5Individual = (name: string, userId?: string) => typedV5(name, userId) as unknown as Record<string, unknown>;

let db: Db;
let clock: SandboxClock;
let service: SandboxService;
let changes = 0;

/** A clock that stands still at `at`: times derived from it are exact, however long the test takes. */
class StillClock extends SandboxClock {
  constructor(private readonly at: number) {
    super();
  }
  override now(): number {
    return this.at;
  }
}

/** A service over the file's database and clock, counting its changes. */
function make(o: TestServiceOptions = {}) {
  const s = testService(db, { clock, ...o });
  s.onChange = () => changes++;
  return s;
}

beforeAll(async () => {
  db = await memoryDb();
  clock = new SandboxClock();
  service = make();
}, 60_000);

afterAll(async () => {
  await db?.close();
});

const bodies = async (trace: string) => (await outbox(db, trace)).map((r) => JSON.parse(String(r.body)) as LooseJson);
const history = async (trace: string) =>
  (await service.historyOf(trace)).map((r) => `${r.verification_status}/${r.submission_status}/${r.attempt}/${r.trigger}`);
const unique = () => `u-${Math.random().toString(36).slice(2)}`;

const refusal = (p: Promise<unknown>) => rejectionOf(p, ServiceError);

describe("v5 creation", () => {
  it("stores a pending verification with its history row and one outbox row per receiver, and calls onChange", async () => {
    const s = make({ webhookUrls: ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], signatureVersion: "1" });
    const before = changes;
    const t0 = clock.now();
    const { trace } = await s.createV5({ ...v5Individual("Ada Created", "created-user"), tags: ["t1"], onBehalfUid: "obo-1", inputRisk: "high" });
    expect(changes).toBe(before + 1);
    const v = (await s.get(trace))!;
    expect(v).toMatchObject({
      api: "v5",
      userId: "created-user",
      type: "individual",
      subType: "data",
      name: "Ada Created",
      country: "AUS",
      verificationStatus: "pending",
      submissionStatus: "submitted",
      attempt: 1,
      maxAttempts: 5,
      dueAt: null,
      parentTrace: null,
      roles: null,
      formId: null,
      outcome: "verified",
    });
    expect(v.createdAt).toBe(v.updatedAt);
    expect(v.createdAt).toBeGreaterThanOrEqual(t0);
    expect(v.submissionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(v.submissionId).not.toBe(trace);
    expect(await history(trace)).toEqual(["pending/submitted/1/submission via API or portal"]);
    const rows = await outbox(db, trace);
    expect(rows.map((r) => [r.url, r.state, r.signature_version, r.format, Number(r.tries)])).toEqual([
      ["http://127.0.0.1:9/a", "queued", "1", "v5", 0],
      ["http://127.0.0.1:9/b", "queued", "1", "v5", 0],
    ]);
    expect(rows[0]!.delivery_id).toBe(rows[1]!.delivery_id);
    expect(rows[0]!.body).toBe(rows[1]!.body);
    expect(Number(rows[0]!.timestamp)).toBe(v.updatedAt);
    const payload = JSON.parse(String(rows[0]!.body));
    expect(payload).toEqual({
      version: "v5",
      userId: "created-user",
      onBehalfUid: "obo-1",
      tags: ["t1"],
      trace,
      submissionId: v.submissionId,
      name: "Ada Created",
      country: "AUS",
      type: "individual",
      subType: "data",
      inputRisk: "high",
      verificationStatus: "pending",
      submissionStatus: "submitted",
      attempt: 1,
      maxAttempts: 5,
      timestamp: v.updatedAt,
    });
    expect(Object.keys(payload)).toEqual([
      "version",
      "userId",
      "onBehalfUid",
      "tags",
      "trace",
      "submissionId",
      "name",
      "country",
      "type",
      "subType",
      "inputRisk",
      "verificationStatus",
      "submissionStatus",
      "attempt",
      "maxAttempts",
      "timestamp",
    ]);
  });

  it("without receivers the outbox row has no url and state no_receiver; an entity carries no maxAttempts, a non-data individual neither", async () => {
    const { trace } = await service.createV5({
      country: "AUS",
      type: "association",
      name: "Club",
      website: "https://club.example",
      identifiers: { abn: "51824753556" },
      addresses: { registeredAddress: "1 Main St" },
    });
    const [row] = await outbox(db, trace);
    expect([row!.url, row!.state]).toEqual([null, "no_receiver"]);
    const payload = JSON.parse(String(row!.body));
    expect(payload.maxAttempts).toBeUndefined();
    expect(payload.userId).toBeNull();
    expect(payload.tags).toEqual([]);
    expect(payload.subType).toBeUndefined();
    expect(payload.onBehalfUid).toBeUndefined();
    const v = (await service.get(trace))!;
    expect(service.detail(v)).toEqual({
      trace,
      submissionId: v.submissionId,
      country: "AUS",
      type: "association",
      name: "Club",
      website: "https://club.example",
      identifiers: { abn: "51824753556" },
      addresses: { registeredAddress: "1 Main St" },
      other: [],
      submissionStatus: "submitted",
      verificationStatus: "pending",
      message: "Waiting for processing (for an individual this also follows a rejection when the individual retries).",
      timestamp: v.updatedAt,
      idvRiskScore: "unknown",
      attempt: 1,
    });
    const bio = await service.createV5({ type: "individual", subType: "biometric", name: "Bio", userId: "bio-user" });
    expect((await service.get(bio.trace))!.maxAttempts).toBeNull();
    const again = await service.createV5({ type: "individual", subType: "biometric", name: "Bio", userId: "bio-user" });
    expect(again.trace).not.toBe(bio.trace);
  });

  it("the test values pick the outcome by whole word, case-insensitively; info only for entities", () => {
    const individual = { type: "individual" };
    const entity = { type: "association" };
    expect(service.pickOutcome("Jo Rejected", individual)).toBe("rejected");
    expect(service.pickOutcome("rejected", individual)).toBe("rejected");
    expect(service.pickOutcome("REJECTED-x", individual)).toBe("rejected");
    expect(service.pickOutcome("Unrejected", individual)).toBe("verified");
    expect(service.pickOutcome("Rejectedness", individual)).toBe("verified");
    expect(service.pickOutcome("Info Ltd", entity)).toBe("info");
    expect(service.pickOutcome("Info Person", individual)).toBe("verified");
    expect(service.pickOutcome(undefined, entity)).toBe("verified");
    expect(service.pickOutcome("Ann Smith", entity)).toBe("verified");
  });

  it("processing completes due verifications with their outcome, in order of due time; 'manual' never schedules", async () => {
    // Ten minutes: the real-time clock cannot reach it during the test, however loaded the machine.
    const timed = make({ processingMs: 600_000 });
    const t0 = clock.now();
    const a = await timed.createV5(v5Individual("Pat Rejected"));
    const b = await timed.createV5(v5Individual("Pat Fine"));
    const c = await timed.createV5({
      country: "AUS",
      type: "association",
      name: "Info Club",
      website: "https://club.example",
      identifiers: { abn: "51824753556" },
      addresses: { registeredAddress: "1 Main St" },
    });
    const va = (await timed.get(a.trace))!;
    expect(va.dueAt).toBeGreaterThanOrEqual(t0 + 600_000);
    expect(va.dueAt).toBeLessThanOrEqual(clock.now() + 600_000);
    expect(va.outcome).toBe("rejected");
    const before = changes;
    // Not yet due: nothing completes and nothing is announced.
    expect(await service.processDue()).toBe(0);
    expect(changes).toBe(before);
    await timed.advanceClock(600_000);
    expect(await timed.processDue()).toBeGreaterThanOrEqual(3);
    expect(changes).toBe(before + 1);
    expect((await timed.get(a.trace))!).toMatchObject({ verificationStatus: "rejected", dueAt: null });
    expect((await timed.get(b.trace))!.verificationStatus).toBe("verified");
    expect((await timed.get(c.trace))!.verificationStatus).toBe("info");
    expect(await history(a.trace)).toEqual(["pending/submitted/1/submission via API or portal", "rejected/submitted/1/processing completes"]);
    const [first, second] = await bodies(a.trace);
    expect(second!.timestamp).toBeGreaterThan(first!.timestamp);
    expect(await timed.processDue()).toBe(0);
  });

  it("walks a resubmitted individual through the attempts to 474 and locked; 475 while one is pending", async () => {
    const userId = unique();
    const { trace } = await service.createV5(v5Individual("Rejected Walker", userId));
    for (let attempt = 1; attempt <= 5; attempt++) {
      const rejected = await service.applyStatus(trace, "rejected", {});
      expect(rejected).toMatchObject({ verificationStatus: "rejected", attempt, maxAttempts: 5, submissionStatus: "submitted", dueAt: null });
      if (attempt < 5) {
        expect((await service.createV5({ ...v5Individual("Renamed Walker", userId) })).trace).toBe(trace);
        const v = (await service.get(trace))!;
        expect(v).toMatchObject({ verificationStatus: "pending", attempt: attempt + 1, name: "Renamed Walker", request: { name: "Renamed Walker" } });
        expect(service.detail(v)).toMatchObject({ name: "Renamed Walker" });
        if (attempt === 1) {
          const conflict = await refusal(service.createV5(v5Individual("Again", userId)));
          expect([conflict.httpStatus, conflict.type, conflict.message, conflict.trace]).toEqual([
            475,
            "submission_conflict",
            "Submission conflict: an earlier submission of this verification is still pending.",
            trace,
          ]);
        }
      }
    }
    const rowsBefore = (await outbox(db, trace)).length;
    const locked = await refusal(service.createV5(v5Individual("Rejected Walker", userId)));
    expect([locked.httpStatus, locked.type, locked.message, locked.trace]).toEqual([
      474,
      "too_many_attempts",
      "Too many attempts: the attempt cap is exhausted and the submission is locked.",
      trace,
    ]);
    expect((await service.get(trace))!).toMatchObject({ verificationStatus: "rejected", submissionStatus: "locked", attempt: 5 });
    expect((await outbox(db, trace)).length).toBe(rowsBefore + 1);
    // Once locked: 474 again, nothing new stored.
    expect((await refusal(service.createV5(v5Individual("Rejected Walker", userId)))).httpStatus).toBe(474);
    expect((await outbox(db, trace)).length).toBe(rowsBefore + 1);
    const h = await history(trace);
    expect(h.at(-1)).toBe("rejected/locked/5/resubmission");
    expect(
      h.filter(
        (x) =>
          x.startsWith("pending/submitted/") &&
          x.endsWith("/individual retries (data resubmitted for subType `data`, or new attempt on the hosted form for subType `biometric`)"),
      ),
    ).toHaveLength(4);
    const payloads = await bodies(trace);
    expect(payloads.map((p) => `${p.verificationStatus}/${p.submissionStatus}/${p.attempt}`).slice(-3)).toEqual([
      "pending/submitted/5",
      "rejected/submitted/5",
      "rejected/locked/5",
    ]);
    const stamps = payloads.map((p) => p.timestamp as number);
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1]!)).toBe(true);
  });

  it("a verified individual's userId starts a new verification; the lookup takes the newest; an entity's userId too", async () => {
    const userId = unique();
    const first = await service.createV5(v5Individual("First", userId));
    await service.applyStatus(first.trace, "verified", {});
    const second = await service.createV5(v5Individual("Second", userId));
    expect(second.trace).not.toBe(first.trace);
    await service.applyStatus(second.trace, "rejected", {});
    expect((await service.createV5(v5Individual("Third", userId))).trace).toBe(second.trace);
    // A stakeholder or another subType with that userId is not looked up.
    expect((await service.createV5({ ...v5Individual("Other", userId), subType: "biometric" })).trace).not.toBe(second.trace);
  });

  it("an entity's individual stakeholders get their own verifications and webhooks (parentTrace, parentUserId, roles)", async () => {
    const entity = {
      country: "AUS",
      type: "association",
      name: "Chess Club Inc",
      website: "https://chess.example",
      userId: "club-user",
      tags: ["x"],
      onBehalfUid: "obo-2",
      identifiers: { abn: "51824753556" },
      addresses: { registeredAddress: "1 Main St" },
      documents: [],
      stakeholders: [
        { type: "individual", name: "Pat Officer", country: "AUS", roles: ["publicOfficer", "shareholders", 5] },
        { role: "shareholders", entity: { type: "individual", name: "Sam Rejected", subType: "biometric", country: "NZL" } },
        { type: "company", name: "Holding Pty Ltd", country: "AUS", roles: ["shareholders"] },
        { type: "individual", name: "No Role" },
      ],
    };
    const { trace } = await service.createV5(entity);
    const children = (await db.query("SELECT trace FROM verifications WHERE parent_trace = $1 ORDER BY seq", [trace])).map((r) => String(r.trace));
    expect(children).toHaveLength(3);
    const [pat, sam, none] = await Promise.all(children.map((c) => service.get(c)));
    expect(pat).toMatchObject({
      parentTrace: trace,
      roles: ["publicOfficer", "shareholders"],
      type: "individual",
      subType: null,
      name: "Pat Officer",
      country: "AUS",
      request: { tags: ["x"], onBehalfUid: "obo-2" },
      maxAttempts: null,
      userId: null,
    });
    expect(sam).toMatchObject({ roles: ["shareholders"], subType: "biometric", name: "Sam Rejected", country: "NZL", outcome: "rejected" });
    expect(none).toMatchObject({ roles: [], name: "No Role", country: null });
    const [payload] = await bodies(pat!.trace);
    expect(payload).toMatchObject({
      parentTrace: trace,
      parentUserId: "club-user",
      roles: ["publicOfficer", "shareholders"],
      tags: ["x"],
      onBehalfUid: "obo-2",
      userId: null,
    });
    expect(Object.keys(payload!).slice(-3)).toEqual(["parentTrace", "parentUserId", "roles"]);
    expect(validate("v5.WebhookPayload", payload).valid).toBe(true);
    expect(subjectOf(pat!)).toEqual({ verificationStatus: "pending", submissionStatus: "submitted", attempt: 1, type: "individual", parentTrace: trace });
    expect(service.detail(pat!)).toMatchObject({ parentTrace: trace, roles: ["publicOfficer", "shareholders"] });
    expect(await bodies(trace)).toHaveLength(1);
    // removed: stakeholders only, and the reason names the condition.
    expect((await service.applyStatus(pat!.trace, "removed", {})).verificationStatus).toBe("removed");
    const refused = await refusal(service.applyStatus(trace, "removed", {}));
    expect([refused.httpStatus, refused.type, refused.message]).toEqual([
      409,
      "conflict",
      "The status removed applies only when isStakeholder holds, and it does not for this verification.",
    ]);
    // A stakeholder whose parent has no userId: no parentUserId.
    const orphan = await service.createV5({ ...entity, userId: undefined, stakeholders: [{ type: "individual", name: "Kid" }] });
    const [kid] = (await db.query("SELECT trace FROM verifications WHERE parent_trace = $1", [orphan.trace])).map((r) => String(r.trace));
    const [kidPayload] = await bodies(kid!);
    expect(kidPayload!.parentUserId).toBeUndefined();
    expect(kidPayload!.roles).toEqual([]);
  });
});

describe("the control API's transitions", () => {
  it("a change into new (statuses.yaml sendsWebhook: false) queues no webhook; the next change does", async () => {
    const { trace } = await service.createV5(v5Individual("Nell New"));
    const before = (await outbox(db, trace)).length;
    expect((await service.applyStatus(trace, "new", { trigger: "compliance" })).verificationStatus).toBe("new");
    expect(await outbox(db, trace)).toHaveLength(before);
    expect((await history(trace)).at(-1)).toBe("new/submitted/1/automated compliance check, portal edit, or manual re-send from the portal");
    await service.applyStatus(trace, "error", { trigger: "compliance" });
    expect((await bodies(trace)).map((b) => b.verificationStatus)).toEqual(["pending", "error"]);
  });

  it("an older entity's individuals are verified as part of it: own verifications and webhooks naming the entity, their traces in its items", async () => {
    const person = { country: "USA", firstName: "Lee", lastName: "Share" };
    const { trace, text } = await service.verifyOlder(
      older({
        metadata_userId: "corp-u",
        type: "privateCompany",
        fields: { country: "USA", name: "Corp" },
        stakeholders: [
          { type: "individual", role: "directors", fields: person },
          { type: "privateCompany", role: "shareholders", fields: { name: "Hold Co" } },
        ],
      }),
    );
    const children = (await db.query("SELECT trace FROM verifications WHERE parent_trace = $1", [trace])).map((r) => String(r.trace));
    expect(children).toEqual([olderStakeholderTrace({ trace, attempt: 1 }, 0)]);
    const [own] = await bodies(children[0]!);
    expect(own).toMatchObject({
      name: "Lee Share",
      entityType: "individual",
      parentVerificationTrace: trace,
      parentVerificationUuid: trace,
      parentUserId: "corp-u",
      verificationScore: 0,
    });
    expect(validate("v4.WebhookPayload", own).valid).toBe(true);
    const items = JSON.parse(text).stakeholders;
    expect(items.map((i: { trace: string }) => i.trace)).toEqual([children[0], olderStakeholderTrace({ trace, attempt: 1 }, 1)]);
    expect(items[0].submissionId).toBe(own!.submissionId);
    expect(own!.submissionId).toBe(olderStakeholderSubmissionId({ trace }, 0));
  });

  it("applies the table: maxAttempts raised, retry on pending, effects and the trigger's history; 409 with each reason", async () => {
    const { trace } = await service.createV5(v5Individual("Control Walker"));
    const verified = await service.applyStatus(trace, "verified", {});
    expect(verified).toMatchObject({ verificationStatus: "verified", dueAt: null });
    const back = await refusal(service.applyStatus(trace, "pending", {}));
    expect(back.message).toBe(
      'The transition table has no row from verified to pending; pass "trigger": "compliance" for an automated compliance check or portal edit, which may change any status.',
    );
    expect((await refusal(service.applyStatus(trace, "pending", { trigger: "retry" }))).message).toBe(
      "The transition retry does not go from verified to pending.",
    );
    expect((await refusal(service.applyStatus(trace, "bogus", {}))).message).toBe(
      'Unknown verificationStatus "bogus"; the statuses are new, pending, verified, rejected, info, locked, error, removed.',
    );
    expect((await refusal(service.applyStatus(trace, "info", { trigger: "compliance" }))).message).toBe(
      "The status info applies only when isEntity holds, and it does not for this verification.",
    );
    const rejected = await service.applyStatus(trace, "rejected", { trigger: "compliance" });
    expect(rejected).toMatchObject({ verificationStatus: "rejected", attempt: 1 });
    expect((await history(trace)).at(-1)).toBe("rejected/submitted/1/automated compliance check, portal edit, or manual re-send from the portal");
    // rejected → pending needs canRetry: attempt 1 below maxAttempts 1 does not hold.
    const capped = await refusal(service.applyStatus(trace, "pending", { maxAttempts: 1 }));
    expect(capped.message).toBe(
      "The transition rejected → pending (retry) needs `attempt` below `maxAttempts` and submissionStatus not `locked`, which does not hold (attempt 1, maxAttempts 1, submissionStatus submitted).",
    );
    const at = clock.now() + 3_600_000;
    const timed = make({ processingMs: 500, clock: new StillClock(at) });
    const raised = await timed.applyStatus(trace, "pending", { maxAttempts: 9 });
    expect(raised).toMatchObject({ verificationStatus: "pending", attempt: 2, maxAttempts: 9, updatedAt: at });
    expect(raised.dueAt).toBe(at + 500);
    const missing = await refusal(service.applyStatus("nope", "verified", {}));
    expect([missing.httpStatus, missing.type, missing.message]).toEqual([404, "not_found", "No verification with trace nope."]);
  });

  it("the reason without maxAttempts says absent; the lock row sets locked with trigger lock; older verifications take only the older statuses", async () => {
    const { trace } = await service.createV5({ ...v5Individual("No Cap"), subType: "biometric" });
    await service.applyStatus(trace, "rejected", {});
    const noCap = await refusal(service.applyStatus(trace, "pending", {}));
    expect(noCap.message).toBe(
      "The transition rejected → pending (retry) needs `attempt` below `maxAttempts` and submissionStatus not `locked`, which does not hold (attempt 1, maxAttempts absent, submissionStatus submitted).",
    );
    const lockedV = await service.applyStatus(trace, "rejected", { trigger: "lock" });
    expect(lockedV).toMatchObject({ verificationStatus: "rejected", submissionStatus: "locked" });
    expect((await history(trace)).at(-1)).toBe("rejected/locked/1/resubmission");
    const o = await service.verifyOlder(older(olderIndividual("Old", unique())));
    const refused = await refusal(service.applyStatus(o.trace, "error", { trigger: "compliance" }));
    expect(refused.message).toBe("The older payload has no status error (it carries verified, rejected, pending, info, locked).");
    expect((await service.applyStatus(o.trace, "locked", { trigger: "compliance" })).verificationStatus).toBe("locked");
  });

  it("the clock offset is stored and read back; 0 when none was stored", async () => {
    const fresh = await memoryDb();
    try {
      const s = testService(fresh, { clock });
      expect(await s.loadClockOffset()).toBe(0);
      await s.setClockOffset(1234);
      await s.setClockOffset(5678);
      expect(await s.loadClockOffset()).toBe(5678);
      expect(await s.list()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

describe("the older endpoints' behaviour", () => {
  it("/verify: the initial webhook's text, its body signature, the name and outcome from the fields", async () => {
    const userId = unique();
    const body = older({ ...olderIndividual("Rejected", userId), fields: { ...olderIndividual("Rejected").fields, middleName: "B", firstName: "Ada" } });
    const { trace, text } = await service.verifyOlder(body);
    const v = (await service.get(trace))!;
    expect(v).toMatchObject({
      api: "older",
      userId,
      name: "Ada B Rejected",
      type: "individual",
      country: "USA",
      outcome: "rejected",
      maxAttempts: null,
      formId: null,
    });
    expect(v.submissionId).not.toBe(trace);
    const payload = JSON.parse(text);
    const { signature, ...unsigned } = payload;
    const headers = binding.signWebhook({ version: "1", rawBody: JSON.stringify(unsigned), secret: SIGNING_SECRET });
    const sha = Object.entries(headers).find(([k]) => k.toLowerCase().endsWith("-sha"))![1];
    const keccak = Object.entries(headers).find(([k]) => k.toLowerCase().endsWith("-keccak"))![1];
    expect(signature).toEqual({ version: "1", sha256: sha, keccak256: keccak });
    expect(sha).not.toBe(keccak);
    expect(unsigned).toEqual({
      name: "Ada B Rejected",
      verificationStatus: "pending",
      verificationUuid: trace,
      trace,
      submissionId: v.submissionId,
      entityType: "individual",
      timestamp: v.updatedAt,
      userId,
      submissionStatus: "submitted",
      verificationScore: 0,
      inWatchLists: [],
      outOfWatchLists: [],
      idvRiskScore: { description: "Undefined" },
    });
    expect(String((await outbox(db, trace))[0]!.body)).toBe(text);
    expect(await service.latestOlder({ trace })).toBe(text);
    expect(await service.latestOlder({ userId })).toBe(text);
    expect(await service.latestOlder({ trace: "nope" })).toBeUndefined();
  });

  it("an entity: submissionId is the trace, stakeholders named from their fields, requestedActions in info; the follow-up moves it to pending", async () => {
    const body = older({
      type: "partnership",
      fields: { country: "AUS", name: "Info Partners" },
      stakeholders: [
        { role: "partner", fields: { firstName: "Ann", lastName: "Lee" } },
        { role: "partner", fields: { name: "Some Co" } },
        { fields: { lastName: 5 } },
      ],
    });
    const { trace, text } = await service.verifyOlder(body);
    const payload = JSON.parse(text);
    expect(payload.submissionId).toBe(trace);
    expect(payload.userId).toBeUndefined();
    // Items: the 6.3 list; traces derived from the entity's (UUIDs); none of these is `type: individual`, so no own verification.
    const item = (i: number, name: string, role: string) => {
      const t = olderStakeholderTrace({ trace, attempt: 1 }, i);
      return {
        id: t,
        submissionId: t,
        trace: t,
        verificationUuid: t,
        name,
        role,
        submissionStatus: "submitted",
        timestamp: payload.timestamp,
        verificationScore: 0,
        verificationStatus: "pending",
        idvRiskScore: { description: "Undefined" },
        inWatchLists: [],
        outOfWatchLists: [],
      };
    };
    expect(payload.stakeholders).toEqual([item(0, "Ann Lee", "partner"), item(1, "Some Co", "partner"), item(2, "stakeholder 3", "")]);
    expect(payload.stakeholders[0].trace).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(payload.requestedActions).toBeUndefined();
    expect((await service.get(trace))!).toMatchObject({ name: "Info Partners", outcome: "info" });
    await service.applyStatus(trace, "info", {});
    const info = JSON.parse((await service.latestOlder({ trace }))!);
    expect(info.requestedActions).toEqual([
      { type: "document", id: `${trace}-document-1`, extractType: "companyExtract" },
      { type: "individual", role: "partner", id: `${trace}-individual-1`, fields: {} },
    ]);
    const before = changes;
    const answered = JSON.parse(await service.followUp(trace));
    expect(changes).toBe(before + 1);
    expect(answered).toMatchObject({ trace, verificationStatus: "pending" });
    expect((await service.get(trace))!).toMatchObject({ verificationStatus: "pending", outcome: "verified" });
    expect((await history(trace)).at(-1)).toBe("pending/submitted/1/follow-up request with the requested actions");
    const again = await refusal(service.followUp(trace));
    expect([again.httpStatus, again.type, again.message]).toEqual([
      409,
      "conflict",
      "The verification is pending; requested actions are answered only in status info.",
    ]);
    const v5 = await service.createV5(v5Individual("V5"));
    expect((await refusal(service.followUp(v5.trace))).httpStatus).toBe(404);
    // An entity named by its type when the name is missing.
    const unnamed = await service.verifyOlder(older({ type: "trust", fields: {} }));
    expect((await service.get(unnamed.trace))!.name).toBe("trust");
  });

  it("errorOf: the spec's status and message, the documented message, or the type itself", () => {
    expect(service.errorOf("validation_error")).toEqual({ httpStatus: 422, message: "Validation error" });
    expect(service.errorOf("too_many_attempts")).toEqual({
      httpStatus: 474,
      message: "Too many attempts: the attempt cap is exhausted and the submission is locked.",
    });
    expect(() => service.errorOf("nope")).toThrow("sandbox binding: no error type nope");
  });
});

describe("hosted forms", () => {
  // The limits' boundaries are exact: the real clock stands still during these tests.
  let now = Date.now();
  beforeEach(() => {
    now = Date.now();
    vi.spyOn(Date, "now").mockImplementation(() => now);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const formBody = (name = "Form Trader") =>
    older({
      metadata_userId: "form-user",
      serviceLink_dataAccessType: "idForm",
      type: "soleTrader",
      fields: { country: "AUS", name, principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
    });
  /** The request a form submission saves (form.ts makes it): the stored one with these fields changed. */
  const saved = (fields: Record<string, string> = {}) => {
    const { metadata_serviceUid: _uid, metadata_secretKey: _secret, ...stored } = formBody();
    return { ...stored, fields: { ...(stored.fields as Record<string, unknown>), ...fields } };
  };

  it("opening counts; the 11th open without saving is 403; saving resets; the prefill is reduced after 30 minutes", async () => {
    const id = await service.createForm(formBody());
    // Stored without the credentials (spec/sandbox.yaml storedRequest): the form never carries them.
    const { metadata_serviceUid: _uid, metadata_secretKey: _secret, ...stored } = formBody();
    for (let i = 1; i <= 10; i++) {
      const opened = await service.openForm(id);
      expect(opened).toEqual({ request: stored, reduced: false, trace: null });
    }
    const over = await refusal(service.openForm(id));
    expect([over.httpStatus, over.type, over.message]).toEqual([
      403,
      "form_open_limit",
      "This form was opened 10 times without being saved, the most allowed.",
    ]);
    expect(await service.submitForm(id, saved())).toBe(id);
    expect(await service.openForm(id)).toEqual({ request: stored, reduced: false, trace: id });
    const v = (await service.get(id))!;
    expect(v).toMatchObject({ api: "older", formId: id, maxAttempts: 5, type: "soleTrader", name: "Form Trader" });
    expect((v.request.fields as Record<string, unknown>).abn).toBe("51824753556");
    const reduced = await service.createForm(formBody());
    clock.advance(30 * 60_000);
    expect((await service.openForm(reduced)).reduced).toBe(false);
    clock.advance(1);
    expect((await service.openForm(reduced)).reduced).toBe(true);
  });

  it("a form expires after 31 days: 410; an unknown form is 404", async () => {
    const id = await service.createForm(formBody());
    clock.advance(31 * 86_400_000);
    expect((await service.openForm(id)).reduced).toBe(true);
    clock.advance(1);
    const expired = await refusal(service.openForm(id));
    expect([expired.httpStatus, expired.type, expired.message]).toEqual([
      410,
      "form_expired",
      "This form expired: it is accessible for 31 days after generation.",
    ]);
    expect((await refusal(service.submitForm(id, saved()))).httpStatus).toBe(410);
    const unknown = await refusal(service.openForm("00000000-0000-4000-8000-000000000000"));
    expect([unknown.httpStatus, unknown.type, unknown.message]).toEqual([404, "not_found", "No such form."]);
  });

  it("a further attempt only after a rejection (the retry row); five attempts, then 403", async () => {
    const id = await service.createForm(formBody());
    await service.submitForm(id, saved());
    await service.openForm(id);
    const pending = await refusal(service.submitForm(id, saved({ name: "Again" })));
    expect([pending.httpStatus, pending.type, pending.message]).toEqual([
      409,
      "conflict",
      "The verification is pending; a new attempt is possible only after a rejection.",
    ]);
    // The refused submission counted no attempt and kept the open count.
    const [counts] = await db.query("SELECT attempts, opens_since_save FROM forms WHERE id = $1", [id]);
    expect([Number(counts!.attempts), Number(counts!.opens_since_save)]).toEqual([1, 1]);
    expect((await service.get(id))!).toMatchObject({ verificationStatus: "pending", attempt: 1, name: "Form Trader" });
    for (let attempt = 2; attempt <= 5; attempt++) {
      await service.applyStatus(id, "rejected", {});
      const before = changes;
      await service.submitForm(id, saved({ name: attempt === 5 ? "Rejected Trader" : `Trader ${attempt}` }));
      expect(changes).toBe(before + 1);
      const v = (await service.get(id))!;
      expect(v).toMatchObject({ verificationStatus: "pending", attempt, name: attempt === 5 ? "Rejected Trader" : `Trader ${attempt}` });
      expect((v.request.fields as Record<string, unknown>).name).toBe(attempt === 5 ? "Rejected Trader" : `Trader ${attempt}`);
    }
    expect((await service.get(id))!.outcome).toBe("rejected");
    await service.applyStatus(id, "rejected", {});
    const used = await refusal(service.submitForm(id, saved()));
    expect([used.httpStatus, used.type, used.message]).toEqual([
      403,
      "form_attempts_used",
      "This form was used for 5 verification attempts, the most allowed.",
    ]);
    expect((await refusal(service.openForm(id))).type).toBe("form_attempts_used");
    const [row] = await db.query("SELECT attempts, opens_since_save FROM forms WHERE id = $1", [id]);
    expect([Number(row!.attempts), Number(row!.opens_since_save)]).toEqual([5, 0]);
  });

  it("list() is newest first and limited; historyOf is oldest first", async () => {
    const a = await service.createV5(v5Individual("List A"));
    const b = await service.createV5(v5Individual("List B"));
    const [first, second] = await service.list(2);
    expect([first!.trace, second!.trace]).toEqual([b.trace, a.trace]);
    expect(await service.list(1)).toHaveLength(1);
    expect((await service.list()).length).toBeGreaterThan(2);
    await service.applyStatus(a.trace, "verified", {});
    expect((await service.historyOf(a.trace)).map((r) => r.verification_status)).toEqual(["pending", "verified"]);
    expect(Object.keys((await service.historyOf(a.trace))[0]!)).toEqual(["verification_status", "submission_status", "attempt", "trigger", "at"]);
  });
});

describe("unit: subjectOf", () => {
  it("carries maxAttempts, subType and parentTrace only when set", () => {
    const v = {
      verificationStatus: "pending",
      submissionStatus: "submitted",
      attempt: 2,
      maxAttempts: null,
      type: "company",
      subType: null,
      parentTrace: null,
    } as unknown as Verification;
    expect(subjectOf(v)).toEqual({ verificationStatus: "pending", submissionStatus: "submitted", attempt: 2, type: "company" });
    expect(subjectOf({ ...v, maxAttempts: 0, subType: "data", parentTrace: "p" })).toEqual({
      verificationStatus: "pending",
      submissionStatus: "submitted",
      attempt: 2,
      maxAttempts: 0,
      type: "company",
      subType: "data",
      parentTrace: "p",
    });
  });
});

describe("the hand-over of new verifications' webhooks (onQueued)", () => {
  const RECEIVERS = ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"];

  it("a grouped create hands over exactly its queued outbox rows, once, after the commit", async () => {
    const s = make({ webhookUrls: RECEIVERS });
    const calls: QueuedRow[][] = [];
    s.onQueued = (rows) => calls.push([...rows]);
    const { trace } = await s.createV5(v5Individual("Queued Person"));
    const stored = await outbox(db, trace);
    expect(stored.map((r) => [r.url, r.state])).toEqual(RECEIVERS.map((url) => [url, "queued"]));
    expect(calls).toEqual([stored.map(toQueuedRow)]);
  });

  it("without receivers nothing is queued and nothing handed over; the default hand-over wakes the dispatcher through onChange", async () => {
    const none = make();
    let handed = 0;
    none.onQueued = () => handed++;
    const { trace } = await none.createV5(v5Individual("Unqueued Person"));
    expect((await outbox(db, trace)).filter((r) => r.state === "queued")).toEqual([]);
    expect(handed).toBe(0);
    const before = changes;
    await make({ webhookUrls: RECEIVERS }).createV5(v5Individual("Default Person"));
    expect(changes).toBe(before + 1);
  });
});

describe("the spec fields that govern (issue 25: read where they claim to)", () => {
  const withSpec = (spec: Partial<typeof binding.spec>) => testService(db, { clock, spec });

  it("testValues.fields.v5 names the field whose words pick the outcome (not `name` by fiat)", async () => {
    const tv = binding.spec.testValues;
    const byIndustry = withSpec({ testValues: { ...tv, fields: { ...tv.fields, v5: "industry" } } });
    const picked = await byIndustry.createV5({ ...v5Individual("Plain Name"), industry: "Rejected industry" });
    expect((await byIndustry.get(picked.trace))!.outcome).toBe("rejected");
    const ignored = await byIndustry.createV5(v5Individual("Name Rejected"));
    expect((await byIndustry.get(ignored.trace))!.outcome).toBe(tv.default);
  });

  it("lockingSubmissionStatus (statuses.yaml locksResubmission) decides the 474: another locking status locks", async () => {
    const userId = unique();
    const s = withSpec({ lockingSubmissionStatus: "submitted" });
    const { trace } = await s.createV5(v5Individual("Ada Rejected", userId));
    await s.applyStatus(trace, "rejected", {});
    const e = await refusal(s.createV5(v5Individual("Ada Again", userId)));
    expect([e.httpStatus, e.type]).toEqual([474, "too_many_attempts"]);
    // Nothing changed: no new attempt, the submission status as it was.
    expect(await s.get(trace)).toMatchObject({ verificationStatus: "rejected", submissionStatus: "submitted", attempt: 1 });
    // The package's spec (locked locks): the same resubmission is a new attempt.
    const userId2 = unique();
    const first = await service.createV5(v5Individual("Bea Rejected", userId2));
    await service.applyStatus(first.trace, "rejected", {});
    await service.createV5(v5Individual("Bea Again", userId2));
    expect(await service.get(first.trace)).toMatchObject({ verificationStatus: "pending", attempt: 2 });
  });
});
