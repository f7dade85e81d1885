// Drives an in-process sandbox (test/sandbox/inprocess.ts: PGlite in memory, the HTTP handler on a port, the
// dispatcher) through every path the audit reads: v5 individuals and entities with stakeholders, the older
// /verify, /idform, /getVerificationStatus and follow-up, resubmissions to 475 and 474, the cap raised, and
// the control API's transitions (compliance, new, error, locked, removed). A receiver collects every webhook.
// Each step is recorded by label with its answer and the webhooks of its trace once delivery has settled.
import { call, CREDENTIALS, request, startReceiver, until, type Answer } from "../sandbox/helpers.js";
import { harness, memoryDb, type Harness } from "../sandbox/inprocess.js";
import type { Loose, LooseJson } from "../support/loose.js";

export type Json = LooseJson;

export interface Step {
  readonly status: number;
  readonly body: Loose;
  readonly text: string;
  readonly trace?: string;
  /** The webhooks of the trace, oldest first, when the step had settled. */
  readonly hooks: readonly Json[];
  /** What was sent (the create body), for meanings read against it. */
  readonly sent?: Json;
}

export interface World {
  /** Every webhook received, in arrival order, with its raw text. */
  readonly webhooks: readonly { readonly body: Json; readonly text: string }[];
  readonly steps: Readonly<Record<string, Step>>;
  /** The body sent for each top-level trace (v5 and older). */
  readonly sent: ReadonlyMap<string, { readonly api: "v5" | "older"; readonly body: Json }>;
  /** The signing key, for the older payload's body signature. */
  readonly signingSecret: string;
}

interface Driver {
  readonly h: Harness;
  readonly webhooks: { body: Json; text: string }[];
  readonly steps: Record<string, Step>;
  readonly sent: Map<string, { api: "v5" | "older"; body: Json }>;
}

const OLDER_AUTH = { metadata_version: "4", metadata_serviceUid: CREDENTIALS.serviceUid, metadata_secretKey: CREDENTIALS.secret };

/** Waits until the outbox has nothing queued and the receiver holds every delivered row. */
async function settle(d: Driver): Promise<void> {
  await until(
    async () => {
      const rows = await d.h.db.query("SELECT state FROM outbox WHERE url IS NOT NULL");
      return rows.every((r) => r.state === "delivered") && rows.length === d.webhooks.length;
    },
    "every webhook delivered",
    30_000,
  );
}

const hooksOf = (d: Driver, trace: string | undefined) =>
  d.webhooks
    .filter((w) => w.body.trace === trace)
    .map((w) => w.body)
    .sort((a, b) => Number(a.timestamp) - Number(b.timestamp));

async function record(d: Driver, label: string, answer: Answer, trace?: string, sent?: Json): Promise<Step> {
  await settle(d);
  const t = trace ?? answer.body?.trace;
  const step: Step = { status: answer.status, body: answer.body, text: answer.text, trace: t, hooks: hooksOf(d, t), ...(sent ? { sent } : {}) };
  d.steps[label] = step;
  return step;
}

async function createV5(d: Driver, label: string, body: Json): Promise<Step> {
  const step = await record(d, label, await call(d.h.url, "POST", "/v5/verifications", body), undefined, body);
  if (step.status === 200 && !d.sent.has(step.trace!)) d.sent.set(step.trace!, { api: "v5", body });
  return step;
}

async function older(d: Driver, label: string, path: string, body: Json, trace?: string): Promise<Step> {
  const answer = await request(d.h.url, "POST", path, { ...OLDER_AUTH, ...body });
  const step = await record(d, label, answer, trace);
  if (path === "/verify" && answer.status === 200) d.sent.set(step.trace!, { api: "older", body });
  return step;
}

async function processAll(d: Driver): Promise<void> {
  while ((await d.h.process()) > 0);
  await settle(d);
}

const control = async (d: Driver, label: string, trace: string, body: Json) =>
  record(d, label, await call(d.h.url, "POST", `/_sandbox/verifications/${trace}/status`, body), trace);
const get = async (d: Driver, label: string, trace: string) => record(d, label, await call(d.h.url, "GET", `/v5/verifications/${trace}`), trace);

const individual = (name: string, userId: string, extra: Json = {}): Json => ({
  type: "individual",
  subType: "data",
  country: "AUS",
  name,
  website: "https://example.com",
  userId,
  ...extra,
});

/** A v5 individual rejected until its cap, then locked (474 twice), with a 475 on the way. */
async function driveAttempts(d: Driver): Promise<void> {
  const body = individual("Bo Rejected", "audit-bo");
  const first = await createV5(d, "v5.bo.create", body);
  await processAll(d);
  for (let attempt = 2; attempt <= 5; attempt++) {
    await createV5(d, `v5.bo.retry${attempt}`, body);
    if (attempt === 2) await createV5(d, "v5.bo.conflict", { ...body, name: "Bo Conflict Rejected" });
    await processAll(d);
  }
  await get(d, "v5.bo.beforeLock", first.trace!);
  await createV5(d, "v5.bo.lock", { ...body, name: "Bo Changed" });
  await createV5(d, "v5.bo.lockAgain", body);
  await get(d, "v5.bo.afterLock", first.trace!);
  // The cap raised on another individual at its cap: the field value governs.
  const di = individual("Di Rejected", "audit-di");
  const dTrace = (await createV5(d, "v5.di.create", di)).trace!;
  await processAll(d);
  for (let attempt = 2; attempt <= 5; attempt++) {
    await createV5(d, `v5.di.retry${attempt}`, di);
    await processAll(d);
  }
  await control(d, "v5.di.raised", dTrace, { verificationStatus: "pending", maxAttempts: 6 });
  await processAll(d);
  await get(d, "v5.di.final", dTrace);
}

/** A v5 individual verified, then moved by the control API (compliance, new, error), and an individual named Info. */
async function driveIndividuals(d: Driver): Promise<void> {
  const ada = await createV5(
    d,
    "v5.ada.create",
    individual("Ada Verified", "audit-ada", { tags: ["team:kyc"], onBehalfUid: "obo-audit", inputRisk: "low", industry: "Retail" }),
  );
  await processAll(d);
  await get(d, "v5.ada.verified", ada.trace!);
  await control(d, "v5.ada.compliance", ada.trace!, { verificationStatus: "rejected", trigger: "compliance" });
  await control(d, "v5.ada.new", ada.trace!, { verificationStatus: "new", trigger: "compliance" });
  await control(d, "v5.ada.error", ada.trace!, { verificationStatus: "error", trigger: "compliance" });
  await get(d, "v5.ada.getError", ada.trace!);
  const info = await createV5(d, "v5.ivy.create", individual("Ivy Info", "audit-ivy"));
  await processAll(d);
  await get(d, "v5.ivy.done", info.trace!);
  await control(d, "v5.ivy.toInfo", info.trace!, { verificationStatus: "info" });
  await createV5(d, "v5.invalid", {
    ...individual("Val Id", "audit-val"),
    type: "association",
    subType: "incorporatedAssociation",
    identifiers: { abn: "123" },
    addresses: { registeredAddress: "1 Main St" },
  });
}

const association = (name: string, extra: Json): Json => ({
  country: "AUS",
  type: "association",
  subType: "incorporatedAssociation",
  name,
  website: "https://club.example",
  identifiers: { abn: "51824753556" },
  addresses: { registeredAddress: "1 Main St" },
  ...extra,
});

/** v5 entities: stakeholders in both shapes (and a company, which gets no webhook), info, removal, rejection without a cap, screening hits. */
async function driveEntities(d: Driver): Promise<void> {
  const club = await createV5(
    d,
    "v5.club.create",
    association("Info Club", {
      userId: "audit-club",
      tags: ["club"],
      onBehalfUid: "obo-club",
      inputRisk: "medium",
      documents: [],
      stakeholders: [
        { type: "individual", subType: "data", name: "Pat Officer", country: "AUS", roles: ["publicOfficer", "shareholders"] },
        { role: "shareholders", entity: { type: "individual", subType: "biometric", name: "Sam Holder", country: "NZL" } },
        { type: "company", name: "Holding Pty Ltd", country: "AUS", roles: ["shareholders"] },
      ],
    }),
  );
  await processAll(d);
  await get(d, "v5.club.info", club.trace!);
  const pat = d.webhooks.find((w) => w.body.parentTrace === club.trace && w.body.name === "Pat Officer")!.body.trace as string;
  await control(d, "v5.club.remove", pat, { verificationStatus: "removed" });
  await control(d, "v5.club.removeEntity", club.trace!, { verificationStatus: "removed" });
  const lone = await createV5(
    d,
    "v5.lone.create",
    association("Rejected Holdings", { documents: [], stakeholders: [{ type: "individual", name: "Kim Alone", roles: ["publicOfficer"] }] }),
  );
  await processAll(d);
  await control(d, "v5.lone.retry", lone.trace!, { verificationStatus: "pending" });
  await createV5(d, "v5.empty.create", association("Watchlist Club", { documents: [], stakeholders: [] }));
  await processAll(d);
}

const olderPerson = (lastName: string, userId: string): Json => ({
  metadata_userId: userId,
  type: "individual",
  fields: {
    country: "USA",
    firstName: "Ada",
    middleName: "May",
    lastName,
    dateOfBirth: "01/02/1990",
    streetNumber: "1",
    streetName: "Main",
    suburb: "Springfield",
    postcode: "12345",
    state: "CA",
  },
});

/** The older interface: an individual, an entity with stakeholders through info and the follow-up, watchlist hits, locked, /idform. */
async function driveOlder(d: Driver): Promise<void> {
  const ada = await older(d, "older.ada.verify", "/verify", olderPerson("Citizen", "audit-older-ada"));
  await processAll(d);
  await older(d, "older.ada.byTrace", "/getVerificationStatus", { trace: ada.trace }, ada.trace);
  await older(d, "older.ada.byUserId", "/getVerificationStatus", { userId: "audit-older-ada" }, ada.trace);
  await control(d, "older.ada.locked", ada.trace!, { verificationStatus: "locked", trigger: "compliance" });
  const person = {
    country: "USA",
    firstName: "Lee",
    lastName: "Share",
    dateOfBirth: "01/02/1980",
    streetNumber: "2",
    streetName: "Oak",
    suburb: "Springfield",
    postcode: "12345",
    state: "CA",
  };
  const corp = await older(d, "older.corp.verify", "/verify", {
    metadata_userId: "audit-older-corp",
    type: "privateCompany",
    fields: { country: "USA", name: "Info Corp", entityNumber: "C123", incorporatedState: "DE" },
    stakeholders: [
      { type: "individual", role: "shareholders", fields: person },
      { type: "individual", role: "directors", fields: { ...person, firstName: "Max", lastName: "Director" } },
    ],
  });
  await processAll(d);
  await older(d, "older.corp.status", "/getVerificationStatus", { trace: corp.trace }, corp.trace);
  await older(
    d,
    "older.corp.followUp",
    "/requestedActions",
    {
      verificationUuid: corp.trace,
      requestedActions: [{ type: "document", id: `${corp.trace}-document-1`, documentBase64: "data:application/pdf;base64,JVBERi0=" }],
    },
    corp.trace,
  );
  await processAll(d);
  await older(d, "older.wes.verify", "/verify", olderPerson("Watchlist", "audit-older-wes"));
  await processAll(d);
  await older(d, "older.form.idform", "/idform", {
    serviceLink_dataAccessType: "idForm",
    type: "soleTrader",
    fields: { country: "AUS", name: "Sole Audit", abn: "51824753556", principalPlaceOfBusiness: "1 Main St" },
    stakeholders: [{ type: "individual", role: "individuals", fields: { firstName: "Sol", lastName: "Trader" } }],
  });
}

/** Runs every path against a fresh in-process sandbox; everything it started is closed. */
export async function driveSandbox(signingSecret: string): Promise<World> {
  const receiver = await startReceiver();
  const db = await memoryDb();
  const h = await harness(db, { webhookUrls: [receiver.url], processingMs: 0, signatureVersion: "2" });
  const d: Driver = { h, webhooks: [], steps: {}, sent: new Map() };
  const seen = receiver.deliveries;
  // The receiver's list, parsed as it grows (read at settle time).
  Object.defineProperty(d, "webhooks", { get: () => seen.map((x) => ({ body: JSON.parse(x.body) as Json, text: x.body })) });
  try {
    await driveIndividuals(d);
    await driveAttempts(d);
    await driveEntities(d);
    await driveOlder(d);
    return { webhooks: d.webhooks, steps: d.steps, sent: d.sent, signingSecret };
  } finally {
    await h.close();
    await receiver.close();
    await db.close();
  }
}
