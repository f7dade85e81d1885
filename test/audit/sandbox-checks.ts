// The checks behind the statements of sandbox-statements.ts, as small pure functions over what the run
// collected (sandbox-drive.ts World): samples of each subject, the conditions (`when`), the meanings and the
// scenarios named by the rows. auditSandbox returns one finding per statement: checked or not, and failures.
import { keccak_256, sha3_256 } from "@noble/hashes/sha3.js";
import type { Json, Step, World } from "./sandbox-drive.js";
import type { FieldType, Format, Statement, Subject } from "./sandbox-statements.js";

export interface Sample {
  readonly subject: Subject;
  readonly value: Json;
  /** Where it came from, for messages ("webhook 12", "step v5.ada.create"). */
  readonly origin: string;
  /** The top-level payload or response it belongs to (itself for top-level samples). */
  readonly top: Json;
}

export interface Finding {
  readonly statement: Statement;
  /** Samples (or the scenario) the statement was checked on: 0 means not checked. */
  readonly checkedOn: number;
  readonly failures: readonly string[];
}

// ---- samples ---------------------------------------------------------------------------------------

function webhookSubject(body: Json): Subject {
  if (body.version === "v5")
    return body.parentTrace !== undefined ? "v5.webhook.stakeholder" : body.type === "individual" ? "v5.webhook.individual" : "v5.webhook.entity";
  if (body.parentVerificationTrace !== undefined) return "older.webhook.stakeholderIndividual";
  return body.entityType === "individual" ? "older.webhook.individual" : "older.webhook.entity";
}

const items = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** A webhook and its nested items: screening.watchlist, stakeholder items, watchlist entries, requested actions. */
function webhookSamples(body: Json, origin: string): Sample[] {
  const own: Sample = { subject: webhookSubject(body), value: body, origin, top: body };
  const nested = (subject: Subject, list: Json[], where: string) =>
    list.map((value, i): Sample => ({ subject, value, origin: `${origin} ${where}[${i}]`, top: body }));
  const entries = (o: Json) => [...items(o.inWatchLists), ...items(o.outOfWatchLists)];
  return [
    own,
    ...(body.screening?.watchlist ? nested("v5.webhook.screening.watchlist", [body.screening.watchlist], "screening.watchlist") : []),
    ...nested("older.stakeholder", items(body.stakeholders), "stakeholders"),
    ...nested("older.watchlistEntry", [...entries(body), ...items(body.stakeholders).flatMap(entries)], "watchlist entry"),
    ...nested("older.requestedAction", items(body.requestedActions), "requestedActions"),
  ];
}

/** The subject of a recorded step's answer, from its label and status. */
function stepSubject(label: string, step: Step): Subject | undefined {
  if (step.status === 474) return "v5.error.474";
  if (step.status === 475) return "v5.error.475";
  if (step.status === 422 && label.startsWith("v5.")) return "v5.error.422";
  if (step.status !== 200) return undefined;
  if (/^v5\..*\.create$/.test(label) || /^v5\..*\.retry\d$/.test(label)) return "v5.create.response";
  if (/^v5\./.test(label) && step.body?.path?.startsWith("/v5/verifications/")) return "v5.get.response";
  if (label.endsWith(".verify")) return "older.verify.response";
  if (/\.(byTrace|byUserId|status)$/.test(label) && label.startsWith("older.")) return "older.status.response";
  if (label.endsWith(".idform")) return "older.idform.response";
  return undefined;
}

function stepSamples(label: string, step: Step): Sample[] {
  const subject = stepSubject(label, step);
  if (!subject) return [];
  const origin = `step ${label}`;
  const own: Sample = { subject, value: step.body, origin, top: step.body };
  if (subject === "v5.get.response") return [own, { subject: "v5.get.detail", value: step.body.data ?? {}, origin: `${origin} data`, top: step.body }];
  if (subject === "v5.error.422")
    return [
      own,
      ...items(step.body.error?.details).map(
        (value, i): Sample => ({ subject: "v5.error.422.detail", value, origin: `${origin} detail ${i}`, top: step.body }),
      ),
    ];
  return [own];
}

export function samplesOf(world: World): Sample[] {
  return [
    ...world.webhooks.flatMap((w, i) => webhookSamples(w.body, `webhook ${i} (${w.body.trace} ${w.body.verificationStatus})`)),
    ...Object.entries(world.steps).flatMap(([label, step]) => stepSamples(label, step)),
  ];
}

// ---- field checks ------------------------------------------------------------------------------------

export const valueAt = (o: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Json)[k] : undefined), o);

export function typeError(value: unknown, type: FieldType, nullable: boolean): string | undefined {
  if (value === null) return nullable ? undefined : "is null";
  const ok: Record<FieldType, boolean> = {
    string: typeof value === "string",
    number: typeof value === "number" && Number.isFinite(value),
    integer: Number.isInteger(value),
    array: Array.isArray(value),
    "array of string": Array.isArray(value) && value.every((x) => typeof x === "string"),
    object: typeof value === "object" && !Array.isArray(value),
  };
  return ok[type] ? undefined : `is ${JSON.stringify(value)}, not ${type}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MS_MIN = 100_000_000_000;

export function formatError(value: unknown, format: Format): string | undefined {
  const ok: Record<Format, () => boolean> = {
    uuid: () => typeof value === "string" && UUID.test(value),
    iso3: () => typeof value === "string" && /^[A-Z]{3}$/.test(value),
    "unix-ms": () => Number.isInteger(value) && (value as number) >= MS_MIN,
    "seconds-or-ms": () => typeof value === "number" && (value as number) > 0,
    "date-time": () => typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value)),
    url: () => typeof value === "string" && /^https?:\/\/[^\s]+$/.test(value),
  };
  return ok[format]() ? undefined : `${JSON.stringify(value)} is not ${format}`;
}

/** The failures of one present value against a row's type, format, values and meaning. */
function valueFailures(st: Statement, s: Sample, value: unknown, world: World): string[] {
  const out: (string | undefined)[] = [];
  if (st.type) out.push(typeError(value, st.type, st.nullable === true));
  if (st.format && value !== null) out.push(formatError(value, st.format));
  if (st.values && !st.values.includes(value as string)) out.push(`is ${JSON.stringify(value)}, not one of ${JSON.stringify(st.values)}`);
  if (st.meaning) out.push(meaningOf(st.meaning)(s, value, world));
  return out.filter((x): x is string => x !== undefined);
}

/** A row on the samples of its subjects (filtered by `when`): presence, then what a present value states. */
export function checkField(st: Statement, samples: readonly Sample[], world: World): Finding {
  const mine = samples.filter((s) => st.subjects!.includes(s.subject) && (!st.when || whenOf(st.when)(s, world)));
  const presence = st.presence ?? "always";
  const failures: string[] = [];
  let checkedOn = 0;
  for (const s of mine) {
    const value = st.field ? valueAt(s.value, st.field) : s.value;
    if (presence === "never") {
      checkedOn++;
      if (value !== undefined) failures.push(`${s.origin}: ${st.field} is ${JSON.stringify(value)}, should be absent`);
      continue;
    }
    if (value === undefined) {
      if (presence === "always") failures.push(`${s.origin}: ${st.field} is missing`);
      continue;
    }
    checkedOn++;
    failures.push(...valueFailures(st, s, value, world).map((f) => `${s.origin}: ${st.field ?? "payload"} ${f}`));
  }
  return { statement: st, checkedOn, failures: failures.slice(0, 5) };
}

// ---- conditions (`when`) -------------------------------------------------------------------------

/** The body the caller sent for the verification a sample belongs to (a stakeholder's: its entity's). */
function sentFor(s: Sample, world: World): Json | undefined {
  const top = s.top;
  const trace = top.parentTrace ?? top.parentVerificationTrace ?? top.trace ?? top.data?.trace;
  return world.sent.get(trace)?.body;
}

/** The stakeholder the caller sent for a stakeholder webhook (matched by name and parent). */
function sentStakeholder(s: Sample, world: World): Json | undefined {
  const parent = sentFor(s, world);
  const name = s.top.name;
  return items(parent?.stakeholders).find(
    (x) => (x.entity ?? x).name === name || [x.fields?.firstName, x.fields?.middleName, x.fields?.lastName].filter(Boolean).join(" ") === name,
  );
}

const isStakeholder = (s: Sample) => s.top.parentTrace !== undefined || s.top.parentVerificationTrace !== undefined;
const statusOf = (s: Sample) => s.top.verificationStatus ?? s.top.data?.verificationStatus;
const gave = (key: string) => (s: Sample, w: World) => {
  const body = isStakeholder(s)
    ? key === "onBehalfUid" || key === "tags"
      ? sentFor(s, w)
      : (sentStakeholder(s, w)?.entity ?? sentStakeholder(s, w))
    : sentFor(s, w);
  return body?.[key] !== undefined;
};

const WHEN: Readonly<Record<string, (s: Sample, w: World) => boolean>> = {
  gaveOnBehalfUid: gave("onBehalfUid"),
  gaveCountry: gave("country"),
  gaveSubType: gave("subType"),
  gaveInputRisk: gave("inputRisk"),
  gaveIndustry: gave("industry"),
  gaveWebsite: gave("website"),
  gaveIdentifiers: gave("identifiers"),
  gaveAddresses: gave("addresses"),
  gaveStakeholders: (s, w) => items(sentFor(s, w)?.stakeholders).length > 0,
  gaveUserId: (s, w) => sentFor(s, w)?.userId !== undefined || sentFor(s, w)?.metadata_userId !== undefined,
  processing: (s) => ["pending", "new"].includes(statusOf(s)),
  processed: (s) => !["pending", "new"].includes(statusOf(s)),
  capped: (s) => s.top.type === "individual" && s.top.subType === "data" && !isStakeholder(s),
  parentHasUserId: (s, w) => {
    const p = sentFor(s, w);
    return isStakeholder(s) && (p?.userId ?? p?.metadata_userId) !== undefined;
  },
  parentHasNoUserId: (s, w) => {
    const p = sentFor(s, w);
    return isStakeholder(s) && (p?.userId ?? p?.metadata_userId) === undefined;
  },
  info: (s) => s.top.verificationStatus === "info",
  notInfo: (s) => s.top.verificationStatus !== "info",
  documentAction: (s) => s.value.type === "document",
  individualAction: (s) => s.value.type === "individual",
  individualItem: (s, w) => items(sentFor(s, w)?.stakeholders)[items(s.top.stakeholders).indexOf(s.value)]?.type === "individual",
};

export function whenOf(name: string): (s: Sample, w: World) => boolean {
  const f = WHEN[name];
  if (!f) throw new Error(`sandbox audit: no condition ${name}`);
  return f;
}

// ---- meanings ------------------------------------------------------------------------------------

type Meaning = (s: Sample, value: unknown, w: World) => string | undefined;
const same = (value: unknown, want: unknown, what: string) =>
  JSON.stringify(value) === JSON.stringify(want) ? undefined : `is ${JSON.stringify(value)}, ${what} is ${JSON.stringify(want)}`;
const olderName = (f: Json) => [f.firstName, f.middleName, f.lastName].filter((x) => typeof x === "string" && x).join(" ");

/** The 6.2 table's fields: a v5 payload carries no other. */
const V5_FIELDS = [
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
  "idvRisk",
  "screening",
  "verificationStatus",
  "submissionStatus",
  "attempt",
  "maxAttempts",
  "timestamp",
  "parentTrace",
  "parentUserId",
  "roles",
];
const WATCHLIST_KEYS = ["name", "Country Name", "description", "method", "officialUrl", "results"];

/** The older body signature of 6.4 (body variant): each digest over the text without the signature object, with the key appended. */
function bodyDigest(top: Json, key: "sha256" | "keccak256", w: World): string {
  const { signature: _signature, ...unsigned } = top;
  const input = new TextEncoder().encode(JSON.stringify(unsigned) + w.signingSecret);
  const hex = Buffer.from(key === "sha256" ? sha3_256(input) : keccak_256(input)).toString("hex");
  return `svc_sec_${key}_${hex}`;
}

const MEANINGS: Readonly<Record<string, Meaning>> = {
  userIdAsSent: (s, v, w) => same(v, sentFor(s, w)?.userId ?? null, "the userId sent"),
  onBehalfUidAsSent: (s, v, w) => same(v, sentFor(s, w)?.onBehalfUid, "the onBehalfUid sent"),
  tagsAsSent: (s, v, w) => same(v, sentFor(s, w)?.tags ?? [], "the tags sent (or [])"),
  traceOfCreate: (_step, v, w) => (w.sent.has(v as string) ? undefined : `${JSON.stringify(v)} is no trace a create answered`),
  stakeholderOwnTrace: (s, v, w) =>
    v !== s.top.parentTrace && !w.sent.has(v as string) && w.webhooks.every((x) => x.body.trace !== v || x.body.parentTrace === s.top.parentTrace)
      ? undefined
      : `${JSON.stringify(v)} is not the individual's own trace`,
  nameAsSent: (s, v, w) => same(v, (isStakeholder(s) ? (sentStakeholder(s, w)?.entity ?? sentStakeholder(s, w)) : sentFor(s, w))?.name, "the name sent"),
  typeAsSent: (s, v, w) => same(v, isStakeholder(s) ? "individual" : sentFor(s, w)?.type, "the type sent"),
  subTypeAsSent: (s, v, w) =>
    same(v, (isStakeholder(s) ? (sentStakeholder(s, w)?.entity ?? sentStakeholder(s, w)) : sentFor(s, w))?.subType, "the subType sent"),
  inputRiskAsSent: (s, v, w) => same(v, sentFor(s, w)?.inputRisk, "the inputRisk sent"),
  notRemoved: (_step, v) => (v === "removed" ? "a webhook that is not a stakeholder's carries removed" : undefined),
  atLeastOne: (_step, v) => (typeof v === "number" && v >= 1 ? undefined : `${JSON.stringify(v)} is below 1`),
  parentTraceOfEntity: (_step, v, w) =>
    w.sent.has(v as string) && w.sent.get(v as string)!.body.type !== "individual" ? undefined : `${JSON.stringify(v)} is no entity's trace`,
  parentUserIdOfEntity: (s, v, w) => same(v, sentFor(s, w)?.userId ?? sentFor(s, w)?.metadata_userId, "the entity's userId"),
  rolesAsSent: (s, v, w) => {
    const x = sentStakeholder(s, w);
    return same(v, x?.roles ?? (x?.role ? [x.role] : []), "the roles sent");
  },
  onlyTableFields: (s) => {
    const extra = Object.keys(s.value).filter((k) => !V5_FIELDS.includes(k));
    return extra.length ? `carries fields the 6.2 table does not list: ${extra.join(", ")}` : undefined;
  },
  olderNameAsSent: (s, v, w) => {
    const sent = isStakeholder(s) ? sentStakeholder(s, w) : sentFor(s, w);
    const f = sent?.fields ?? {};
    return same(v, (isStakeholder(s) ? "individual" : sent?.type) === "individual" ? olderName(f) : f.name, "the name sent");
  },
  sameAsTrace: (s, v) => same(v, s.value.trace, "trace"),
  sameAsParentVerificationTrace: (s, v) => same(v, s.value.parentVerificationTrace, "parentVerificationTrace"),
  entityTypeAsSent: (s, v, w) => same(v, isStakeholder(s) ? "individual" : sentFor(s, w)?.type, "the type sent"),
  olderUserIdAsSent: (s, v, w) => same(v, sentFor(s, w)?.metadata_userId, "the metadata_userId sent"),
  oneItemPerStakeholder: (s, v, w) => same((v as unknown[]).length, items(sentFor(s, w)?.stakeholders).length, "the number of stakeholders sent"),
  stakeholderItemName: (s, v, w) => {
    const i = items(s.top.stakeholders).indexOf(s.value);
    const f = items(sentFor(s, w)?.stakeholders)[i]?.fields ?? {};
    return same(v, f.name ?? olderName(f), "the stakeholder's name sent");
  },
  stakeholderItemRole: (s, v, w) => same(v, items(sentFor(s, w)?.stakeholders)[items(s.top.stakeholders).indexOf(s.value)]?.role, "the role sent"),
  stakeholderItemTrace: (s, v, w) => stakeholderItemTrace(s, v, w),
  watchlistEntryKeys: (s) => {
    const extra = Object.keys(s.value).filter((k) => !WATCHLIST_KEYS.includes(k));
    return extra.length ? `has keys the list does not name: ${extra.join(", ")}` : undefined;
  },
  nonEmpty: (_step, v) => ((v as unknown[]).length > 0 ? undefined : "is empty"),
  bodySignatureSha: (s, v, w) => same(v, bodyDigest(s.top, "sha256", w), "the body signature over the text"),
  bodySignatureKeccak: (s, v, w) => same(v, bodyDigest(s.top, "keccak256", w), "the body signature over the text"),
  statusCodeIsHttpStatus: () => undefined,
  pathParamIsTrace: (s, v) => same(v, s.top.pathParams?.trace ?? s.top.data?.trace, "the path's trace"),
};

/** An older stakeholder item of an individual: its trace is that of the individual's own webhook (the UUID of its attempt). */
function stakeholderItemTrace(s: Sample, v: unknown, w: World): string | undefined {
  const own = w.webhooks.filter((x) => x.body.parentVerificationTrace === s.top.trace && x.body.trace === v);
  if (!own.length) return `${JSON.stringify(v)} is the trace of no webhook of an individual of ${s.top.trace}`;
  return own.some((x) => x.body.submissionId === s.value.submissionId)
    ? undefined
    : `submissionId ${JSON.stringify(s.value.submissionId)} is not its individual's (${own[0]!.body.submissionId})`;
}

function meaningOf(name: string): Meaning {
  const f = MEANINGS[name];
  if (!f) throw new Error(`sandbox audit: no meaning ${name}`);
  return f;
}
