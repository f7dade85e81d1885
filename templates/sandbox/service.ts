// The sandbox's behaviour, over a store and a clock: create, resubmit, complete, transitions, follow-up,
// hosted forms. Every rule is read from the binding (statuses, transitions and their conditions, limits,
// errors, the documented choices); every state change writes its webhooks to the outbox in the same
// transaction, so an answered request never loses its webhook.
import type { ValidationIssue } from "../validators/types.js";
import { evaluateCondition, findTransitions, type TransitionRule } from "../lifecycle/index.js";
import { choice, choiceMessage, transitionRow, validateWith, type SandboxBinding } from "./binding.js";
import type { SandboxClock } from "./clock.js";
import type { QueuedRow } from "./dispatcher.js";
import { derivedUuid, olderResults, resultsFor, v5Results } from "./results.js";
import { Group } from "./store/group.js";
import type { OutboxWrite, ServiceStore, StoreOps } from "./store/port.js";
import { sqlStore } from "./store/service-store.js";
import { DEFAULT_TENANT, type Db, type Row } from "./store/sql.js";
import type { Api, Verification } from "./store/verifications.js";

export { toVerification, type Api, type Verification } from "./store/verifications.js";


/** A state change's webhook: its text and its outbox rows' values (one row per receiver; url null: none configured). */
interface Webhook {
  readonly text: string;
  readonly format: Api;
  readonly deliveryId: string;
  readonly urls: readonly (string | null)[];
}


export interface ServiceOptions {
  readonly binding: SandboxBinding;
  /** The database (its statements for the tenant), unless `store` is given. */
  readonly db?: Db;
  /** Where verifications are kept instead of `db` (verispec/msw: in memory). */
  readonly store?: ServiceStore;
  /** A new UUID (default: crypto.randomUUID); the mock handlers inject a deterministic one. */
  readonly newId?: () => string;
  readonly clock: SandboxClock;
  readonly webhookUrls: readonly string[];
  readonly signatureVersion: "1" | "2";
  /** "manual": nothing completes by itself. */
  readonly processingMs: number | "manual";
  readonly signingSecret: string;
  /** The account this service acts for (default: the one account, DEFAULT_TENANT): every row it reads or writes is that tenant's. */
  readonly tenant?: string;
}

/** A refusal the HTTP layer turns into the interface's error shape. */
export class ServiceError extends Error {
  constructor(
    readonly httpStatus: number,
    /** An error type of the spec (`too_many_attempts`) or a sandbox code (`not_found`). */
    readonly type: string,
    message: string,
    readonly details: readonly ValidationIssue[] = [],
    readonly trace?: string,
  ) {
    super(message);
  }
}



/** The fields conditions are evaluated over (the current payload's names). */
export function subjectOf(v: Verification): Record<string, unknown> {
  return {
    verificationStatus: v.verificationStatus, submissionStatus: v.submissionStatus, attempt: v.attempt,
    ...(v.maxAttempts !== null ? { maxAttempts: v.maxAttempts } : {}), type: v.type, ...(v.subType ? { subType: v.subType } : {}),
    ...(v.parentTrace ? { parentTrace: v.parentTrace } : {}),
  };
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** A request as stored: without the keys the binding names (spec/sandbox.yaml storedRequest: the older endpoints' credentials). */
export function withoutCredentials(body: Record<string, unknown>, omit: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !omit.includes(k)));
}
/**
 * The trace of an entity's individual stakeholder in one attempt of the older interface (the UUID of that
 * individual's attempt, 6.3): derived from the entity's trace, its attempt and the stakeholder's place, so the
 * entity's `stakeholders` items and the stakeholder's own webhooks name the same trace without a lookup.
 */
export function olderStakeholderTrace(entity: { readonly trace: string; readonly attempt: number }, index: number): string {
  return derivedUuid(entity.trace, `${entity.attempt}/${index}`);
}
/** The grouping UUID of an older entity's individual stakeholder (6.3: individuals' submissionId): the same in every attempt. */
export function olderStakeholderSubmissionId(entity: { readonly trace: string }, index: number): string {
  return derivedUuid(entity.trace, `submission/${index}`);
}
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
/** An older individual's name from its fields: first, middle and last name. */
const olderPersonName = (f: Record<string, unknown>) => [f.firstName, f.middleName, f.lastName].filter((x) => typeof x === "string" && x).join(" ");

export class SandboxService {
  private readonly b: SandboxBinding;
  private readonly db: ServiceStore;
  private readonly newId: () => string;
  private readonly clock: SandboxClock;
  /** The tenant whose rows this service reads and writes (store statements name it in their WHERE clauses). */
  readonly tenant: string;
  /** Called after a commit that queued webhooks or scheduled processing (wakes the dispatcher). */
  onChange: () => void = () => {};
  /**
   * Called with the outbox rows of new verifications once their group has committed: each is the first
   * webhook of its trace, so nothing orders before it and the dispatcher may send it without a claim.
   */
  onQueued: (rows: readonly QueuedRow[]) => void = () => this.onChange();
  /** New verifications without a lookup (the common create), inserted together: one statement per group. */
  private readonly created = new Group<{ v: Verification; trigger: string }, string>(async (items) => {
    const { texts, queued } = await this.insert(this.db, items);
    if (queued.length) this.onQueued(queued);
    return texts;
  });

  /** The test values' words as whole-word patterns, compiled once (every create reads them). */
  private readonly testWords: readonly { readonly pattern: RegExp; readonly outcome: string }[];

  constructor(private readonly options: ServiceOptions) {
    this.b = options.binding;
    this.clock = options.clock;
    this.tenant = options.tenant ?? DEFAULT_TENANT;
    if (options.store === undefined && options.db === undefined) throw new Error("sandbox bug: a service needs a db or a store");
    this.db = options.store ?? sqlStore(options.db!, this.tenant);
    this.newId = options.newId ?? (() => globalThis.crypto.randomUUID());
    this.testWords = this.b.spec.testValues.rules.map((r) => ({ pattern: new RegExp(`(^|[^\\p{L}])${r.word}($|[^\\p{L}])`, "iu"), outcome: r.outcome }));
  }

  // ---- rules from the binding -------------------------------------------------------------------

  private row(id: string): TransitionRule {
    return transitionRow(this.b.rules, id);
  }

  /** The entity type of an individual (the binding's individualType). */
  private get individual(): string {
    return this.b.spec.individualType;
  }

  private get pending(): string {
    return this.row("submit").to[0]!;
  }

  /** The outcome the test values pick (spec/sandbox.yaml testValues); a status the subject may not take falls back to the default. */
  pickOutcome(text: string | undefined, subject: Record<string, unknown>): string {
    const tv = this.b.spec.testValues;
    const hit = text === undefined ? undefined : this.testWords.find((r) => r.pattern.test(text));
    const outcome = hit?.outcome ?? tv.default;
    const onlyWhen = this.b.rules.statuses[outcome]?.onlyWhen;
    return onlyWhen && !evaluateCondition(this.b.rules, { ref: onlyWhen }, subject) ? tv.default : outcome;
  }

  /** The text of a v5 request the test values read (spec/sandbox.yaml testValues.fields.v5). */
  private v5TestText(body: Record<string, unknown>): string | undefined {
    return str(body[this.b.spec.testValues.fields.v5]);
  }

  private dueAt(now: number): number | null {
    return this.options.processingMs === "manual" ? null : now + this.options.processingMs;
  }

  // ---- payloads ----------------------------------------------------------------------------------

  private v5Payload(v: Verification, parentUserId: string | null): Record<string, unknown> {
    const r = v.request;
    return {
      version: this.b.spec.webhookVersion,
      userId: v.userId,
      ...(str(r.onBehalfUid) ? { onBehalfUid: r.onBehalfUid } : {}),
      tags: Array.isArray(r.tags) ? r.tags : [],
      trace: v.trace,
      submissionId: v.submissionId,
      name: v.name,
      ...(v.country ? { country: v.country } : {}),
      type: v.type,
      ...(v.subType ? { subType: v.subType } : {}),
      ...(str(r.inputRisk) ? { inputRisk: r.inputRisk } : {}),
      ...v5Results(this.b, v),
      verificationStatus: v.verificationStatus,
      submissionStatus: v.submissionStatus,
      attempt: v.attempt,
      ...(v.maxAttempts !== null ? { maxAttempts: v.maxAttempts } : {}),
      timestamp: v.updatedAt,
      ...(v.parentTrace ? { parentTrace: v.parentTrace, ...(parentUserId ? { parentUserId } : {}), roles: v.roles ?? [] } : {}),
    };
  }

  /**
   * The older payload (6.3). An entity's stakeholder items: an individual's is its own verification (trace and
   * statuses of `children`, or, before they are stored, those it starts with); a company's has a derived trace
   * and the entity's statuses. An individual verified as part of an entity names its entity (parentVerification*).
   */
  private olderPayload(v: Verification, parentUserId: string | null, children: readonly Verification[]): Record<string, unknown> {
    const stakeholders = Array.isArray(v.request.stakeholders) ? (v.request.stakeholders as unknown[]) : [];
    return {
      name: v.name,
      verificationStatus: v.verificationStatus,
      verificationUuid: v.trace,
      trace: v.trace,
      submissionId: v.submissionId,
      entityType: v.type,
      timestamp: v.updatedAt,
      ...(v.userId ? { userId: v.userId } : {}),
      // An individual verified as part of an entity (6.3): the entity's id, under both names, and its userId.
      ...(v.parentTrace ? { parentVerificationTrace: v.parentTrace, parentVerificationUuid: v.parentTrace, ...(parentUserId ? { parentUserId } : {}) } : {}),
      submissionStatus: v.submissionStatus,
      ...(stakeholders.length ? { stakeholders: stakeholders.map((s, i) => this.olderStakeholderItem(v, obj(s), i, children)) } : {}),
      ...olderResults(this.b, v),
      ...(v.verificationStatus === this.row("followUp").from ? { requestedActions: this.requestedActions(v, stakeholders) } : {}),
    };
  }

  private olderStakeholderItem(v: Verification, s: Record<string, unknown>, i: number, children: readonly Verification[]): Record<string, unknown> {
    const trace = olderStakeholderTrace(v, i);
    const child = children.find((c) => c.trace === trace);
    const f = obj(s.fields);
    const name = olderPersonName(f) || str(f.name) || `stakeholder ${i + 1}`;
    const own = child ?? { trace, type: String(s.type ?? ""), name, verificationStatus: v.verificationStatus, submissionStatus: v.submissionStatus, updatedAt: v.updatedAt, submissionId: s.type === this.individual ? olderStakeholderSubmissionId(v, i) : trace };
    const { inWatchLists, outOfWatchLists, idvRiskScore, verificationScore } = olderResults(this.b, { ...own, type: this.individual });
    return {
      id: trace, submissionId: own.submissionId, trace, verificationUuid: trace, name, role: str(s.role) ?? "", submissionStatus: own.submissionStatus, timestamp: own.updatedAt,
      verificationScore, verificationStatus: own.verificationStatus, idvRiskScore, inWatchLists, outOfWatchLists,
    };
  }

  /** What an entity in `info` is asked for (spec/sandbox.yaml choices.requestedActions): a document, and an individual of the first role sent. */
  private requestedActions(v: Verification, stakeholders: readonly unknown[]): Record<string, unknown>[] {
    const ask = choice<{ extractType: string }>(this.b.spec, "requestedActions", "document");
    const role = stakeholders.map((s) => str(obj(s).role)).find((r) => r);
    return [
      { type: "document", id: `${v.trace}-document-1`, extractType: ask.extractType },
      ...(role ? [{ type: this.individual, role, id: `${v.trace}-individual-1`, fields: {} }] : []),
    ];
  }

  /** The exact text a webhook carries. Older payloads also carry the body signature (6.4 body variant). */
  private payloadText(v: Verification, parentUserId: string | null, children: readonly Verification[]): { format: Api; text: string } {
    if (v.api === "v5") {
      const payload = this.v5Payload(v, parentUserId);
      this.checkPayload(this.b.spec.payloadSchemas.v5, payload);
      return { format: "v5", text: JSON.stringify(payload) };
    }
    const unsigned = this.olderPayload(v, parentUserId, children);
    const headers = this.b.signWebhook({ version: "1", rawBody: JSON.stringify(unsigned), secret: this.options.signingSecret });
    const { sha, keccak } = this.b.rules.signatures.v1;
    const payload = { ...unsigned, signature: { version: "1", sha256: headers[sha.name] ?? "", keccak256: headers[keccak.name] ?? "" } };
    this.checkPayload(this.b.spec.payloadSchemas.older, payload);
    return { format: "older", text: JSON.stringify(payload) };
  }

  private checkPayload(schemaId: string, payload: unknown): void {
    const result = validateWith(this.b, schemaId, payload);
    if (!result.valid) throw new Error(`sandbox bug: a webhook payload fails ${schemaId}: ${JSON.stringify(result.errors)}`);
  }

  // ---- writes (each inside the caller's transaction, or one statement on its own) ----------------

  /** The webhook of a state change. */
  private async webhookOf(tx: StoreOps, v: Verification): Promise<Webhook> {
    let parentUserId: string | null = null;
    if (v.parentTrace) {
      parentUserId = await tx.userIdOf(v.parentTrace);
    }
    // An older entity's stakeholder items carry its individuals' own statuses (none stored yet at its creation).
    const children = v.api === "older" && !v.parentTrace && Array.isArray(v.request.stakeholders)
      ? await tx.childrenOf(v.trace)
      : [];
    const { format, text } = this.payloadText(v, parentUserId, children);
    return { text, format, deliveryId: this.newId(), urls: this.options.webhookUrls.length ? [...this.options.webhookUrls] : [null] };
  }


  private outboxParams(webhooks: readonly { v: Verification; w: Webhook }[]): OutboxWrite {
    const rows = webhooks.flatMap(({ v, w }) => w.urls.map((url) => [w.deliveryId, v.trace, url, w.format, w.text, v.updatedAt] as const));
    return { rows, signatureVersion: this.options.signatureVersion };
  }

  /** New verifications, their history rows and their webhooks in the outbox: one statement. Returns each webhook's text and the outbox rows queued for a receiver. */
  private async insert(tx: StoreOps, items: readonly { v: Verification; trigger: string }[]): Promise<{ texts: string[]; queued: QueuedRow[] }> {
    const webhooks = [];
    for (const { v } of items) webhooks.push({ v, w: await this.webhookOf(tx, v) });
    const outbox = await tx.insertVerifications(items, this.outboxParams(webhooks));
    // The bodies are the texts at hand: not read back from the database.
    const bodies = new Map(webhooks.map(({ w }) => [w.deliveryId, w.text]));
    const queued = outbox.filter((r) => r.state === "queued").map((r): QueuedRow => ({ id: r.id, tenant: r.tenant, delivery_id: r.delivery_id, url: r.url, body: bodies.get(String(r.delivery_id)), signature_version: r.signature_version, tries: r.tries }));
    return { texts: webhooks.map(({ w }) => w.text), queued };
  }

  /**
   * Applies a change: new timestamp (always increasing per verification), history row, webhook in the outbox: one statement.
   * A change into a status that sends no webhook (statuses.yaml sendsWebhook: false) queues none; its text is then "".
   */
  private async change(tx: StoreOps, v: Verification, patch: Partial<Verification>, trigger: string): Promise<{ v: Verification; text: string }> {
    const next: Verification = { ...v, ...patch, updatedAt: Math.max(this.clock.now(), v.updatedAt + 1) };
    const w = this.b.spec.silentStatuses.includes(next.verificationStatus) ? undefined : await this.webhookOf(tx, next);
    await tx.updateVerification(next, trigger, w ? this.outboxParams([{ v: next, w }]) : undefined);
    return { v: next, text: w?.text ?? "" };
  }

  /** A transition row's effects (`increment`, `set`), on the payload-named status fields. */
  private effects(row: TransitionRule, v: Verification): Partial<Verification> {
    const fields: Record<string, unknown> = subjectOf(v);
    if (row.effects?.increment) fields[row.effects.increment] = Number(fields[row.effects.increment] ?? 0) + 1;
    Object.assign(fields, row.effects?.set ?? {});
    return {
      verificationStatus: String(fields.verificationStatus), submissionStatus: String(fields.submissionStatus),
      attempt: Number(fields.attempt), maxAttempts: fields.maxAttempts === undefined ? null : Number(fields.maxAttempts),
    };
  }

  private newVerification(api: Api, init: Partial<Verification> & Pick<Verification, "type" | "name" | "request">, now: number): Verification {
    const subject = { type: init.type, ...(init.parentTrace ? { parentTrace: init.parentTrace } : {}) };
    const outcomeText = init.outcome ?? init.name;
    return {
      trace: this.newId(), api, userId: null, submissionId: this.newId(), parentTrace: null, roles: null, subType: null, country: null,
      verificationStatus: this.pending, submissionStatus: choice<string>(this.b.spec, "initialSubmissionStatus", "value"),
      attempt: this.b.spec.attempts.startsAt, maxAttempts: null, dueAt: this.dueAt(now), formId: null, createdAt: now, updatedAt: now,
      ...init,
      outcome: this.pickOutcome(outcomeText, subject),
    };
  }

  // ---- v5 ----------------------------------------------------------------------------------------

  /** POST /v5/verifications: a new verification, or a resubmission of a rejected individual (subType data). */
  async createV5(body: Record<string, unknown>): Promise<{ trace: string }> {
    const result = await this.createV5InTransaction(body);
    if (!result.grouped) this.onChange();
    if (result.error) throw result.error;
    return { trace: result.trace };
  }

  private async createV5InTransaction(body: Record<string, unknown>): Promise<{ trace: string; error?: ServiceError; grouped?: true }> {
    const now = this.clock.now();
    const userId = str(body.userId) ?? null;
    const resubmittable = evaluateCondition(this.b.rules, { ref: this.b.spec.resubmittable.condition }, body);
    const stakeholders = Array.isArray(body.stakeholders) ? body.stakeholders : [];
    const submit = this.row("submit").trigger;
    const v = this.newVerification("v5", {
      userId, type: String(body.type), subType: str(body.subType) ?? null, name: str(body.name) ?? "", country: str(body.country) ?? null, request: body, outcome: this.v5TestText(body) ?? "",
      maxAttempts: resubmittable ? this.b.spec.attempts.observedDefaultCap : null,
    }, now);
    // One new verification needs no lookup: it joins the group commit. A possible resubmission or stakeholders take a transaction.
    if (!(resubmittable && userId !== null) && stakeholders.length === 0) {
      await this.created.add({ v, trigger: submit });
      return { trace: v.trace, grouped: true };
    }
    return this.db.transaction(async (tx) => {
      if (resubmittable && userId !== null) {
        const existing = await tx.lockLatestResubmittable(userId, this.b.spec.resubmittable.fields);
        if (existing) {
          const resubmitted = await this.resubmit(tx, existing, body);
          if (resubmitted) return resubmitted;
        }
      }
      await this.insert(tx, [{ v, trigger: submit }]);
      const children = stakeholders.flatMap((s) => {
        const shape = obj(s);
        const entity = shape.entity ? obj(shape.entity) : shape;
        if (entity.type !== this.individual) return [];
        const roles = Array.isArray(shape.roles) ? shape.roles.filter((r): r is string => typeof r === "string") : str(shape.role) ? [shape.role as string] : [];
        const child = this.newVerification("v5", {
          parentTrace: v.trace, roles, type: this.individual, subType: str(entity.subType) ?? null, name: str(entity[this.b.spec.testValues.fields.stakeholder]) ?? str(entity.name) ?? "",
          country: str(entity.country) ?? null, request: { tags: body.tags ?? [], ...(str(body.onBehalfUid) ? { onBehalfUid: body.onBehalfUid } : {}) },
        }, now);
        return [{ v: child, trigger: submit }];
      });
      if (children.length) await this.insert(tx, children);
      return { trace: v.trace };
    });
  }

  /**
   * A resubmission of an existing individual (the service's specification, sections 3 and 7): pending → 475 (nothing stored); rejected → the
   * first row of the table from `rejected` whose condition holds: `retry` (pending, attempt + 1) or `lock`
   * (stays rejected, submission locked, its error). Other statuses: not a resubmission (undefined).
   */
  private async resubmit(tx: StoreOps, v: Verification, body: Record<string, unknown>): Promise<{ trace: string; error?: ServiceError } | undefined> {
    if (v.verificationStatus === this.row("complete").from) {
      throw this.refusal("submission_conflict", v.trace);
    }
    const retry = this.row("retry");
    const lock = this.row("lock");
    // A locked submission accepts no resubmission (statuses.yaml locksResubmission): the lock's error, nothing changes.
    if (v.submissionStatus === this.b.spec.lockingSubmissionStatus) return { trace: v.trace, error: this.refusal(lock.error!, v.trace) };
    if (v.verificationStatus !== retry.from) return undefined;
    const subject = subjectOf(v);
    if (findTransitions(this.b.rules, v.verificationStatus, retry.to[0]!, subject).some((r) => r.id === retry.id)) {
      const patch = { ...this.effects(retry, v), verificationStatus: retry.to[0]!, request: body, name: str(body.name) ?? v.name, country: str(body.country) ?? v.country, dueAt: this.dueAt(this.clock.now()), outcome: this.pickOutcome(this.v5TestText(body), subject) };
      await this.change(tx, v, patch, retry.trigger);
      return { trace: v.trace };
    }
    if (findTransitions(this.b.rules, v.verificationStatus, lock.to[0]!, subject).some((r) => r.id === lock.id)) {
      const patch = this.effects(lock, v);
      if (patch.submissionStatus !== v.submissionStatus) await this.change(tx, v, { ...patch, dueAt: null }, lock.trigger);
      // The lock is a committed state change: the 474 is answered after the transaction commits.
      return { trace: v.trace, error: this.refusal(lock.error!, v.trace) };
    }
    return undefined;
  }

  /** The service's error of `type` (its status and message) refusing a request about `trace`. */
  private refusal(type: string, trace: string): ServiceError {
    const error = this.errorOf(type);
    return new ServiceError(error.httpStatus, type, error.message, [], trace);
  }

  errorOf(type: string): { httpStatus: number; message: string } {
    const e = this.b.spec.errors[type];
    if (!e) throw new Error(`sandbox binding: no error type ${type}`);
    const messages = choice<Record<string, string>>(this.b.spec, "errorMessages", "messages");
    return { httpStatus: e.httpStatus, message: e.message ?? messages[type] ?? type };
  }

  async get(trace: string): Promise<Verification | undefined> {
    return this.db.findVerification(trace);
  }

  /** The verification detail of 2.11 (GET /v5/verifications/:trace `data`). */
  detail(v: Verification): Record<string, unknown> {
    const r = v.request;
    return {
      trace: v.trace, submissionId: v.submissionId, ...(v.country ? { country: v.country } : {}), type: v.type, ...(v.subType ? { subType: v.subType } : {}),
      name: v.name, ...(str(r.industry) ? { industry: r.industry } : {}), ...(str(r.website) ? { website: r.website } : {}),
      ...(r.identifiers ? { identifiers: r.identifiers } : {}), ...(r.addresses ? { addresses: r.addresses } : {}),
      ...(str(r.inputRisk) ? { inputRisk: r.inputRisk } : {}), other: [], submissionStatus: v.submissionStatus, verificationStatus: v.verificationStatus,
      message: this.b.rules.statuses[v.verificationStatus]?.meaning ?? "", timestamp: v.updatedAt, idvRiskScore: resultsFor(this.b.spec, v.name).idvRisk, attempt: v.attempt,
      ...(v.maxAttempts !== null ? { maxAttempts: v.maxAttempts } : {}), ...(v.parentTrace ? { parentTrace: v.parentTrace, roles: v.roles ?? [] } : {}),
    };
  }

  // ---- older endpoints ---------------------------------------------------------------------------

  private storable(body: Record<string, unknown>): Record<string, unknown> {
    return withoutCredentials(body, choice<string[]>(this.b.spec, "storedRequest", "omit"));
  }

  private olderName(body: Record<string, unknown>): { name: string; testText: string | undefined } {
    const fields = obj(body.fields);
    const tv = this.b.spec.testValues.fields;
    if (body.type === this.individual) {
      return { name: olderPersonName(fields), testText: str(fields[tv.olderIndividual]) };
    }
    return { name: str(fields.name) ?? String(body.type), testText: str(fields[tv.olderEntity]) };
  }

  /**
   * POST /verify: the response is the initial webhook's content (the service's specification, section 4.1).
   * An entity's individual stakeholders get their own verifications and webhooks (6.2: one per individual).
   */
  async verifyOlder(body: Record<string, unknown>): Promise<{ trace: string; text: string }> {
    const v = this.olderVerification(body);
    const submit = this.row("submit").trigger;
    const children = this.olderStakeholders(v, body);
    if (!children.length) return { trace: v.trace, text: await this.created.add({ v, trigger: submit }) };
    const text = await this.db.transaction(async (tx) => {
      const { texts } = await this.insert(tx, [{ v, trigger: submit }]);
      await this.insert(tx, children); // after the entity: their webhooks read its userId (parentUserId)
      return texts[0]!;
    });
    this.onChange();
    return { trace: v.trace, text };
  }

  /** The verifications of an older entity's individual stakeholders in the entity's current attempt (traces: olderStakeholderTrace). */
  private olderStakeholders(entity: Verification, body: Record<string, unknown>): { v: Verification; trigger: string }[] {
    if (body.type === this.individual || !Array.isArray(body.stakeholders)) return [];
    const submit = this.row("submit").trigger;
    return body.stakeholders.flatMap((s, i) => {
      const shape = obj(s);
      if (shape.type !== this.individual) return [];
      const person = { type: this.individual, role: shape.role, fields: obj(shape.fields) };
      const { name, testText } = this.olderName(person);
      const child = this.newVerification("older", {
        trace: olderStakeholderTrace(entity, i), submissionId: olderStakeholderSubmissionId(entity, i), parentTrace: entity.trace, roles: str(shape.role) ? [shape.role as string] : [], type: this.individual, name,
        country: str(person.fields.country) ?? null, request: person, outcome: testText ?? "",
      }, this.clock.now());
      return [{ v: child, trigger: submit }];
    });
  }

  /** A new verification of the older interface (a hosted form's: its id as trace, the form's attempt limit). */
  private olderVerification(body: Record<string, unknown>, form?: { id: string; maxAttempts: number }): Verification {
    const { name, testText } = this.olderName(body);
    const fields = obj(body.fields);
    const v = this.newVerification("older", {
      ...(form ? { trace: form.id, formId: form.id, maxAttempts: form.maxAttempts } : {}), userId: str(body.metadata_userId) ?? null, type: String(body.type), name,
      country: str(fields.country) ?? null, request: this.storable(body), outcome: testText ?? "",
    }, this.clock.now());
    // Entities: submissionId is the trace (the service's specification, section 6.3).
    return body.type === this.individual ? v : { ...v, submissionId: v.trace };
  }

  /** POST /getVerificationStatus: the latest webhook content, by trace or userId (the service's specification, section 4.3). */
  async latestOlder(key: { trace?: string; userId?: string }): Promise<string | undefined> {
    const trace = await this.db.olderTraceOf(key);
    return trace === undefined ? undefined : this.db.latestWebhookBody(trace);
  }

  /** The follow-up request (4.4): a verification in `info` moves to the documented target state. */
  async followUp(verificationUuid: string): Promise<string> {
    const target = choice<string>(this.b.spec, "followUpTarget", "to");
    const row = this.row("followUp");
    const text = await this.db.transaction(async (tx) => {
      const v = await tx.lockVerification(verificationUuid, "older");
      if (!v) throw this.notFound("verificationUuid", { verificationUuid });
      if (v.verificationStatus !== row.from) throw this.conflict("followUpOnlyFrom", { status: v.verificationStatus, from: String(row.from) });
      return (await this.change(tx, v, { verificationStatus: target, dueAt: this.dueAt(this.clock.now()), outcome: this.b.spec.testValues.default }, row.trigger)).text;
    });
    this.onChange();
    return text;
  }

  /** The 404 of spec/sandbox.yaml `notFound`, with its message for what was not found. */
  notFound(what: string, values: Readonly<Record<string, string>> = {}): ServiceError {
    return new ServiceError(choice<number>(this.b.spec, "notFound", "httpStatus"), choice<string>(this.b.spec, "notFound", "code"), choiceMessage(this.b.spec, "notFound", what, values));
  }

  // ---- processing and the control API ------------------------------------------------------------

  /** Completes every pending verification whose time has come (several instances: each row once). */
  async processDue(): Promise<number> {
    await this.refreshClock();
    const complete = this.row("complete");
    const done = await this.db.transaction(async (tx) => {
      const rows = await tx.claimDueVerifications(this.clock.now(), complete.from!, 100);
      for (const v of rows) {
        const to = complete.to.includes(v.outcome) ? v.outcome : this.b.spec.testValues.default;
        await this.change(tx, v, { verificationStatus: to, dueAt: null }, complete.trigger);
      }
      return rows.length;
    });
    if (done) this.onChange();
    return done;
  }

  /**
   * POST /_sandbox/verifications/:trace/status: applies a transition of the table. Without `trigger` only
   * rows that name their target are used (not the `to: [any]` row); `trigger: "compliance"` (or another
   * row id) picks a row, e.g. the automated compliance check that may change any status. 409 with the
   * reason when none applies.
   */
  async applyStatus(trace: string, to: string, opts: { maxAttempts?: number; trigger?: string }): Promise<Verification> {
    const result = await this.db.transaction(async (tx) => {
      const found = await tx.lockVerification(trace);
      if (!found) throw this.notFound("trace", { trace });
      let v = found;
      if (opts.maxAttempts !== undefined) v = { ...v, maxAttempts: opts.maxAttempts };
      if (!Object.hasOwn(this.b.rules.statuses, to)) throw this.conflict("unknownStatus", { quoted: JSON.stringify(to), statuses: Object.keys(this.b.rules.statuses).join(", ") });
      if (v.api === "older" && !this.b.spec.olderVerificationStatuses.includes(to)) {
        throw this.conflict("notInOlderPayload", { to, statuses: this.b.spec.olderVerificationStatuses.join(", ") });
      }
      const subject = subjectOf(v);
      const rows2 = findTransitions(this.b.rules, v.verificationStatus, to, subject).filter((r) => (opts.trigger ? r.id === opts.trigger : !r.to.includes("any")));
      const row = rows2.find((r) => !r.error) ?? rows2[0];
      if (!row) throw this.conflict(...this.whyNot(v, to, opts.trigger));
      const patch = { ...this.effects(row, v), verificationStatus: to, dueAt: to === this.pending ? this.dueAt(this.clock.now()) : null };
      return (await this.change(tx, v, patch, row.trigger)).v;
    });
    this.onChange();
    return result;
  }

  /** Why no row of the table takes `v` to `to`: a message key of controlApi.messages and its values. */
  private whyNot(v: Verification, to: string, trigger: string | undefined): [key: string, values: Record<string, string | number>] {
    const subject = subjectOf(v);
    const onlyWhen = this.b.rules.statuses[to]?.onlyWhen;
    if (onlyWhen && !evaluateCondition(this.b.rules, { ref: onlyWhen }, subject)) return ["onlyWhenFails", { to, condition: onlyWhen }];
    const unconditioned = findTransitions(this.b.rules, v.verificationStatus, to).filter((r) => (trigger ? r.id === trigger : !r.to.includes("any")));
    const from = v.verificationStatus;
    if (unconditioned.length) {
      const r = unconditioned[0]!;
      const words = (key: string) => choiceMessage(this.b.spec, "controlApi", key);
      return ["conditionFails", {
        from, to, id: String(r.id), condition: r.condition ?? words("conditionUnnamed"),
        attempt: v.attempt, maxAttempts: v.maxAttempts ?? words("maxAttemptsAbsent"), submissionStatus: v.submissionStatus,
      }];
    }
    return trigger ? ["triggerElsewhere", { trigger, from, to }] : ["noRow", { from, to }];
  }

  /** The control API's refusal of a status change (spec/sandbox.yaml controlApi: its conflict status and code, the message of `key`). */
  private conflict(key: string, values: Readonly<Record<string, string | number>>): ServiceError {
    const { httpStatus, code } = choice<{ httpStatus: number; code: string }>(this.b.spec, "controlApi", "conflict");
    return new ServiceError(httpStatus, code, choiceMessage(this.b.spec, "controlApi", key, values));
  }

  async setClockOffset(offset: number): Promise<void> {
    await this.db.saveClockOffset(offset);
  }

  async loadClockOffset(): Promise<number> {
    return this.db.loadClockOffset();
  }

  /** Sets the clock to the offset stored now (another instance on the same database may have moved it); an offset out of range is left as it was. */
  async refreshClock(): Promise<void> {
    const stored = await this.loadClockOffset();
    if (this.clock.allows(stored)) this.clock.set(stored);
  }

  /** Moves the stored offset forward by `ms` (atomically, beside other instances) and the clock with it; false when that would pass the clock's maximum. */
  async advanceClock(ms: number): Promise<boolean> {
    const offset = await this.db.advanceClockOffset(ms, this.clock.maxOffsetMs);
    if (offset === undefined) return false;
    this.clock.set(offset);
    return true;
  }

  // ---- hosted forms (4.2, 8) ---------------------------------------------------------------------

  async createForm(body: Record<string, unknown>): Promise<string> {
    const id = this.newId();
    await this.db.insertForm(id, this.storable(body), this.clock.now());
    return id;
  }

  /** A refusal of the hosted form (spec/sandbox.yaml hostedForm.messages), its `{name}` placeholders filled. */
  private formMessage(key: string, values: Readonly<Record<string, string | number>>): string {
    const text = choice<Record<string, string>>(this.b.spec, "hostedForm", "messages")[key];
    if (text === undefined) throw new Error(`sandbox binding: choices.hostedForm.messages.${key} is missing (regenerate with 'verispec generate')`);
    return text.replace(/\{([a-z]+)\}/g, (all, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : all));
  }

  /** A refusal of the hosted form: its status and code (hostedForm.refusals) and message (hostedForm.messages). */
  private formRefusal(key: string, values: Readonly<Record<string, string | number>>): ServiceError {
    const refusal = choice<Record<string, { httpStatus: number; code: string }>>(this.b.spec, "hostedForm", "refusals")[key];
    if (refusal === undefined) throw new Error(`sandbox binding: choices.hostedForm.refusals.${key} is missing (regenerate with 'verispec generate')`);
    return new ServiceError(refusal.httpStatus, refusal.code, this.formMessage(key, values));
  }

  /** Opening the form: lifetime, opens without saving, attempts (limits.yaml). */
  async openForm(id: string): Promise<{ request: Record<string, unknown>; reduced: boolean; trace: string | null }> {
    const { limits } = this.b.spec;
    return this.db.transaction(async (tx) => {
      const { row, age } = await this.usableForm(tx, id);
      if (Number(row.opens_since_save) >= limits.formOpens) throw this.formRefusal("openLimit", { count: limits.formOpens });
      await tx.countFormOpening(id);
      return { request: JSON.parse(String(row.request)) as Record<string, unknown>, reduced: age > limits.prefilledDataReducedAfterMinutes * 60_000, trace: (row.trace as string | null) ?? null };
    });
  }

  /** The form's row, locked for this transaction, when it is within its lifetime and has attempts left (limits.yaml). */
  private async usableForm(tx: StoreOps, id: string): Promise<{ row: Row; age: number }> {
    const { limits } = this.b.spec;
    const row = await tx.lockForm(id);
    if (!row) throw this.notFound("form");
    const age = this.clock.now() - Number(row.created_at);
    if (age > limits.formLifetimeDays * 86_400_000) throw this.formRefusal("expired", { days: limits.formLifetimeDays });
    if (Number(row.attempts) >= limits.formAttempts) throw this.formRefusal("attemptsUsed", { count: limits.formAttempts });
    return { row, age };
  }

  /** The form as a submission reads it (no opening counted): its request and whether the prefill is reduced; refused past its lifetime or attempts. */
  async readForm(id: string): Promise<{ request: Record<string, unknown>; reduced: boolean }> {
    const { limits } = this.b.spec;
    return this.db.transaction(async (tx) => {
      const { row, age } = await this.usableForm(tx, id);
      return { request: JSON.parse(String(row.request)) as Record<string, unknown>, reduced: age > limits.prefilledDataReducedAfterMinutes * 60_000 };
    });
  }

  /**
   * Saving the form with a request the validators accepted (form.ts): an attempt; the first creates the
   * verification (trace = verificationUuid), a later one is the retry row of the table. Either sends the
   * webhooks /verify sends for the same data (the entity's and one per individual stakeholder). The form keeps
   * the saved request, so reopening it shows what was saved. One transaction: a refused submission (409)
   * counts no attempt and keeps the open count.
   */
  async submitForm(id: string, request: Record<string, unknown>): Promise<string> {
    const { limits } = this.b.spec;
    const retry = this.row("retry");
    await this.db.transaction(async (tx) => {
      await this.usableForm(tx, id);
      const existing = await tx.lockVerification(id);
      // A further attempt on the form: the retry row of the table (conditions evaluated), else refused.
      if (existing && !findTransitions(this.b.rules, existing.verificationStatus, retry.to[0]!, subjectOf(existing)).some((r) => r.id === retry.id)) {
        throw this.formRefusal("notRetryable", { status: existing.verificationStatus });
      }
      await tx.saveFormAttempt(id, id, request);
      let entity: Verification;
      if (!existing) {
        entity = this.olderVerification(request, { id, maxAttempts: limits.formAttempts });
        await this.insert(tx, [{ v: entity, trigger: this.row("submit").trigger }]);
      } else {
        const { name, testText } = this.olderName(request);
        const patch = { ...this.effects(retry, existing), verificationStatus: retry.to[0]!, request: this.storable(request), name, dueAt: this.dueAt(this.clock.now()), outcome: this.pickOutcome(testText, subjectOf(existing)) };
        entity = (await this.change(tx, existing, patch, retry.trigger)).v;
      }
      const children = this.olderStakeholders(entity, request);
      if (children.length) await this.insert(tx, children);
    });
    this.onChange();
    return id;
  }

  // ---- reading for the control API and the page --------------------------------------------------

  async list(limit = 200): Promise<Verification[]> {
    return this.db.latestVerifications(limit);
  }

  async historyOf(trace: string): Promise<Row[]> {
    return this.db.historyOf(trace);
  }

  /** The histories of a page's verifications, one statement for the page (not one per verification). */
  async historiesOf(traces: readonly string[]): Promise<Map<string, Row[]>> {
    return this.db.historiesOf(traces);
  }
}
