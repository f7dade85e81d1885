// The service's rooms (templates/sandbox/service/) where the service.test.ts walks do not look: what a
// service decides when it is made (the test words, the store it needs), the stored fields of an older
// entity's individuals, an entity's items after an individual's own change, the bounds of processing and of
// the clock, and the guards against a binding the runtime cannot use. Every service is made inside its
// test, so that a mutant of its construction is covered by the test that checks it.
import { describe, expect, it, vi } from "vitest";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import type { QueuedRow } from "../../templates/sandbox/dispatcher.js";
import { ServiceError } from "../../templates/sandbox/service.js";
import { obj, str } from "../../templates/sandbox/service/core.js";
import { Writes } from "../../templates/sandbox/service/writes.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { memoryStore } from "../../templates/sandbox/store/memory.js";
import type { LooseJson } from "../support/loose.js";
import { rejectionOf } from "../support/rejection.js";
import { olderBody, olderIndividual, v5Individual as typedV5 } from "./helpers.js";
import { binding, outbox, testService, type TestServiceOptions, useMemoryDb } from "./inprocess.js";

let db: Db;
useMemoryDb((opened) => {
  db = opened;
});

/** A service of its own tenant (nothing another test wrote is in its way), made by the test that calls it. */
const serviceOf = (o: TestServiceOptions = {}) => testService(db, { tenant: `rooms-${Math.random().toString(36).slice(2)}`, ...o });

const v5Individual = (name: string, userId?: string) => typedV5(name, userId) as unknown as Record<string, unknown>;
const bodies = async (trace: string) => (await outbox(db, trace)).map((r) => JSON.parse(String(r.body)) as LooseJson);
const childrenOf = async (trace: string) =>
  (await db.query("SELECT trace FROM verifications WHERE parent_trace = $1 ORDER BY seq", [trace])).map((r) => String(r.trace));

/** An older entity with two individual stakeholders (the first with a role, the second rejected by its test word) and a company. */
const olderEntity = () =>
  olderBody({
    metadata_userId: `corp-${Math.random().toString(36).slice(2)}`,
    type: "privateCompany",
    fields: { country: "USA", name: "Corp" },
    stakeholders: [
      { type: "individual", role: "directors", fields: { country: "USA", firstName: "Lee", lastName: "Share" } },
      { type: "individual", fields: { country: "NZL", firstName: "Rae", lastName: "Rejected" } },
      { type: "privateCompany", role: "shareholders", fields: { name: "Hold Co" } },
    ],
  });

describe("what a service decides when it is made", () => {
  it("needs a database or a store; a store alone is enough", async () => {
    expect(() => testService(undefined)).toThrow(new Error("sandbox bug: a service needs a db or a store"));
    const inMemory = testService(undefined, { store: memoryStore() });
    const { trace } = await inMemory.createV5(v5Individual("Mem Person"));
    expect((await inMemory.get(trace))?.name).toBe("Mem Person");
  });

  it("the test words match in any case and as whole words, letters of any script bounding a word", async () => {
    const s = serviceOf();
    const outcomeOf = async (name: string) => (await s.get((await s.createV5(v5Individual(name))).trace))!.outcome;
    expect(await outcomeOf("Pat REJECTED")).toBe("rejected");
    expect(await outcomeOf("Pat-rejected")).toBe("rejected");
    expect(await outcomeOf("Pat Rejectedé")).toBe("verified");
    expect(await outcomeOf("Pat éRejected")).toBe("verified");
  });

  it("the outcome a status's onlyWhen forbids falls back at creation: info for an individual, removed for an entity", async () => {
    const s = serviceOf({
      spec: { testValues: { ...binding.spec.testValues, rules: [...binding.spec.testValues.rules, { word: "Gone", outcome: "removed" }] } },
    });
    const outcome = async (trace: string) => (await s.get(trace))!.outcome;
    expect(await outcome((await s.createV5(v5Individual("Ivy Info"))).trace)).toBe("verified");
    const entity = await s.createV5({
      type: "company",
      country: "AUS",
      name: "Gone Pty Ltd",
      stakeholders: [{ type: "individual", name: "Kid Gone", country: "AUS", roles: ["directors"] }],
    });
    // The entity: its test word picks removed, a stakeholder's status only: the default.
    expect(await outcome(entity.trace)).toBe("verified");
    const [kid] = await childrenOf(entity.trace);
    expect(await outcome(kid!)).toBe("removed");
    const infoCorp = await s.createV5({ type: "company", country: "AUS", name: "Info Corp" });
    expect(await outcome(infoCorp.trace)).toBe("info");
  });

  it("the facade's hooks and reads: onChange and onQueued as set, histories by trace", async () => {
    const s = serviceOf();
    const onChange = () => {};
    const onQueued = (_rows: readonly QueuedRow[]) => {};
    s.onChange = onChange;
    s.onQueued = onQueued;
    expect(s.onChange).toBe(onChange);
    expect(s.onQueued).toBe(onQueued);
    const { trace } = await s.createV5(v5Individual("History Person"));
    const histories = await s.historiesOf([trace, "no-such-trace"]);
    expect(histories.get(trace)?.map((r) => r.verification_status)).toEqual(["pending"]);
    expect(histories.get("no-such-trace") ?? []).toEqual([]);
  });
});

describe("core's helpers, given and wanted", () => {
  it("obj keeps a plain object and makes anything else {}; str keeps a string only", () => {
    const plain = { a: 1 };
    expect(obj(plain)).toBe(plain);
    expect([obj(null), obj(undefined), obj([1]), obj("x"), obj(0)]).toEqual([{}, {}, {}, {}, {}]);
    expect([str(""), str("a"), str(1), str(null), str(["a"])]).toEqual(["", "a", undefined, undefined, undefined]);
  });

  it("a refusal about a trace carries the error's status and message, the trace, and no details", () => {
    const { core } = serviceOf();
    const e = core.refusal("too_many_attempts", "t-1");
    expect(e).toBeInstanceOf(ServiceError);
    expect([e.httpStatus, e.type, e.message, e.details, e.trace]).toEqual([474, "too_many_attempts", core.errorOf("too_many_attempts").message, [], "t-1"]);
  });
});

describe("the older interface's stakeholders", () => {
  it("each individual is stored as an older verification: its role, country, test word and a submissionId of its own", async () => {
    const s = serviceOf();
    const { trace } = await s.verifyOlder(olderEntity());
    const [lee, rae] = await Promise.all((await childrenOf(trace)).map((c) => s.get(c)));
    expect(lee).toMatchObject({ api: "older", roles: ["directors"], country: "USA", name: "Lee Share", outcome: "verified", parentTrace: trace });
    expect(rae).toMatchObject({ api: "older", roles: [], country: "NZL", name: "Rae Rejected", outcome: "rejected", parentTrace: trace });
    const ids = [trace, lee!.submissionId, rae!.submissionId];
    expect(new Set(ids).size).toBe(3);
    expect((await outbox(db, trace)).map((r) => r.format)).toEqual(["older"]);
    expect((await outbox(db, lee!.trace)).map((r) => r.format)).toEqual(["older"]);
  });

  it("the entity's next webhook carries each individual's own status and time, a company's the entity's", async () => {
    const s = serviceOf();
    const { trace } = await s.verifyOlder(olderEntity());
    const [lee] = await childrenOf(trace);
    const changed = await s.applyStatus(lee!, "rejected", { trigger: "compliance" });
    const entity = await s.applyStatus(trace, "verified", {});
    const items = (await bodies(trace)).at(-1)!.stakeholders as LooseJson[];
    expect(items.map((i) => [i.trace, i.verificationStatus, i.timestamp])).toEqual([
      [lee, "rejected", changed.updatedAt],
      [(await childrenOf(trace))[1], "pending", expect.any(Number)],
      [items[2]!.trace, "verified", entity.updatedAt],
    ]);
  });

  it("an individual's /verify joins the group commit and hands its queued webhook to onQueued; its stakeholders key makes none", async () => {
    const s = serviceOf({ webhookUrls: ["http://127.0.0.1:9/hook"] });
    const queued: QueuedRow[] = [];
    s.onQueued = (rows) => queued.push(...rows);
    const body = olderBody({ ...olderIndividual("Solo", `solo-${Math.random()}`), stakeholders: [{ type: "individual", fields: { lastName: "X" } }] });
    const { trace } = await s.verifyOlder(body);
    expect(queued.map((r) => [r.deliveryId, r.url])).toEqual([[(await outbox(db, trace))[0]!.delivery_id, "http://127.0.0.1:9/hook"]]);
    expect(await childrenOf(trace)).toEqual([]);
  });

  it("without a receiver nothing is handed to onQueued", async () => {
    const s = serviceOf();
    const onQueued = vi.fn();
    s.onQueued = onQueued;
    await s.createV5(v5Individual("Nobody Listens"));
    await s.verifyOlder(olderBody(olderIndividual("Unheard", `unheard-${Math.random()}`)));
    expect(onQueued).not.toHaveBeenCalled();
  });
});

describe("v5 creation and resubmission", () => {
  it("testValues.fields.stakeholder names the field whose words pick a stakeholder's outcome; its name stays its name", async () => {
    const tv = binding.spec.testValues;
    const s = serviceOf({ spec: { testValues: { ...tv, fields: { ...tv.fields, stakeholder: "alias" } } } });
    const { trace } = await s.createV5({
      type: "company",
      country: "AUS",
      name: "Alias Pty Ltd",
      stakeholders: [
        { type: "individual", name: "Kit Rejected", alias: "plain", roles: ["directors"] },
        { type: "individual", name: "Plain Kit", alias: "Rejected", roles: ["directors"] },
      ],
    });
    const kids = await Promise.all((await childrenOf(trace)).map((c) => s.get(c)));
    expect(kids.map((k) => [k!.name, k!.outcome])).toEqual([
      ["Kit Rejected", tv.default],
      ["Plain Kit", "rejected"],
    ]);
  });

  it("a resubmission takes the new country; an entity with a rejected individual's userId is its own verification", async () => {
    const s = serviceOf();
    const userId = `resub-${Math.random()}`;
    const { trace } = await s.createV5(v5Individual("Ada First", userId));
    await s.applyStatus(trace, "rejected", {});
    const entity = await s.createV5({
      type: "company",
      country: "AUS",
      name: "Same User Pty Ltd",
      userId,
      stakeholders: [{ type: "individual", name: "Kid" }],
    });
    expect(entity.trace).not.toBe(trace);
    expect(await s.get(trace)).toMatchObject({ verificationStatus: "rejected", attempt: 1, name: "Ada First" });
    expect((await s.createV5({ ...v5Individual("Ada Second", userId), country: "NZL" })).trace).toBe(trace);
    expect(await s.get(trace)).toMatchObject({ verificationStatus: "pending", attempt: 2, name: "Ada Second", country: "NZL" });
  });
});

describe("processing and the control API", () => {
  it("processDue completes at most 100 a call; the rest wait for the next", async () => {
    const s = serviceOf({ processingMs: 0 });
    await Promise.all(Array.from({ length: 101 }, (_, i) => s.createV5(v5Individual(`Batch ${i}`))));
    expect(await s.processDue()).toBe(100);
    expect(await s.processDue()).toBe(1);
    expect(await s.processDue()).toBe(0);
  });

  it("a status set by the control API is not processed again (no due time) unless it is pending", async () => {
    const s = serviceOf({ processingMs: 60_000 });
    const { trace } = await s.createV5(v5Individual("Val Verified"));
    expect((await s.get(trace))!.dueAt).not.toBeNull();
    expect((await s.applyStatus(trace, "verified", {})).dueAt).toBeNull();
    expect((await s.get(trace))!.dueAt).toBeNull();
  });

  it("the reasons: a named row whose condition fails, and a status whose onlyWhen holds but no row leads to", async () => {
    const s = serviceOf();
    const { trace } = await s.createV5(v5Individual("Rita Retry"));
    await s.applyStatus(trace, "rejected", {});
    const capped = await rejectionOf(s.applyStatus(trace, "pending", { trigger: "retry", maxAttempts: 1 }), ServiceError);
    expect(capped.message).toBe(
      "The transition rejected → pending (retry) needs `attempt` below `maxAttempts` and submissionStatus not `locked`, which does not hold (attempt 1, maxAttempts 1, submissionStatus submitted).",
    );
    const corp = await s.createV5({ type: "company", country: "AUS", name: "Verified Corp" });
    await s.applyStatus(corp.trace, "verified", {});
    const noRow = await rejectionOf(s.applyStatus(corp.trace, "info", {}), ServiceError);
    expect(noRow.message).toBe(
      'The transition table has no row from verified to info; pass "trigger": "compliance" for an automated compliance check or portal edit, which may change any status.',
    );
  });

  it("a change at the instant of the last one is stamped a millisecond later; a change into a silent status has no text", async () => {
    const at = Date.now();
    const clock = new (class extends SandboxClock {
      override now() {
        return at;
      }
    })();
    const s = serviceOf({ clock });
    const { trace } = await s.createV5(v5Individual("Still Person"));
    expect((await s.applyStatus(trace, "verified", {})).updatedAt).toBe(at + 1);
    const writes = new Writes(s.core);
    const silent = await writes.change(s.core.db, (await s.get(trace))!, { verificationStatus: "new" }, "test");
    expect([silent.text, silent.v.updatedAt]).toEqual(["", at + 2]);
  });
});

describe("the sandbox clock in the store", () => {
  it("a stored offset out of the clock's range is not taken; one in range is", async () => {
    const clock = new SandboxClock(0, 1000);
    const s = serviceOf({ clock });
    await s.setClockOffset(5000);
    await s.refreshClock();
    expect(clock.offset).toBe(0);
    await s.setClockOffset(500);
    await s.refreshClock();
    expect(clock.offset).toBe(500);
  });

  it("an advance past the maximum is refused (false) and the clock stays", async () => {
    const clock = new SandboxClock(0, 1000);
    const s = serviceOf({ clock });
    expect(await s.advanceClock(600)).toBe(true);
    expect(await s.advanceClock(600)).toBe(false);
    expect([clock.offset, await s.loadClockOffset()]).toEqual([600, 600]);
  });
});

describe("guards against a binding the runtime cannot use", () => {
  it("a webhook payload its schema refuses is a sandbox bug, not a queued webhook", async () => {
    const s = serviceOf({ spec: { payloadSchemas: { ...binding.spec.payloadSchemas, v5: binding.spec.payloadSchemas.older } } });
    const err = await rejectionOf(s.createV5(v5Individual("Bad Payload")), Error);
    expect(err.message).toMatch(new RegExp(`^sandbox bug: a webhook payload fails ${binding.spec.payloadSchemas.older}: \\[`));
  });

  it("a hosted-form refusal the binding has no status or message for is named", async () => {
    const hostedForm = binding.spec.choices.hostedForm!;
    const lacking = (part: "refusals" | "messages") => {
      const { notRetryable: _gone, ...rest } = hostedForm[part] as Record<string, unknown>;
      return serviceOf({ spec: { choices: { ...binding.spec.choices, hostedForm: { ...hostedForm, [part]: rest } } } });
    };
    for (const part of ["refusals", "messages"] as const) {
      const s = lacking(part);
      const id = await s.createForm(olderBody({ type: "soleTrader", fields: { country: "AUS", name: "Form Trader" } }));
      const request = { type: "soleTrader", fields: { country: "AUS", name: "Form Trader" } };
      await s.submitForm(id, request);
      const err = await rejectionOf(s.submitForm(id, request), Error);
      expect(err.message).toBe("sandbox binding: choices.hostedForm refusals or messages lack notRetryable (regenerate with 'verispec generate')");
    }
  });
});
