// What every room of the sandbox's behaviour shares: the binding and the rules read from it (transition rows,
// test values, effects, the refusals' statuses, codes and texts), the store, the clock and the ids. No room
// types a fact of the spec: each is read here from the binding (generated/sandbox.js).
import type { SignatureVersion } from "../../webhooks/index.js";
import type { ValidationIssue } from "../../validators/types.js";
import { evaluateCondition, findTransitions, type TransitionRule } from "../../lifecycle/index.js";
import { choice, choiceMessage, transitionRow, type SandboxBinding } from "../binding.js";
import type { SandboxClock } from "../clock.js";
import type { QueuedRow } from "../dispatcher.js";
import { derivedUuid } from "../results.js";
import type { ServiceStore } from "../store/port.js";
import { sqlStore } from "../store/service-store.js";
import { DEFAULT_TENANT, type Db } from "../store/sql.js";
import type { Verification } from "../store/verifications.js";

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
  readonly signatureVersion: SignatureVersion;
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

/** What the service tells its owner after a commit (index.ts wakes the dispatcher with them). */
export interface ServiceHooks {
  /** Called after a commit that queued webhooks or scheduled processing. */
  onChange: () => void;
  /** Called with the outbox rows of new verifications once their group has committed (sent without a claim). */
  onQueued: (rows: readonly QueuedRow[]) => void;
}

export type Body = Record<string, unknown>;

/** The fields conditions are evaluated over (the current payload's names). */
export function subjectOf(v: Verification): Record<string, unknown> {
  return {
    verificationStatus: v.verificationStatus,
    submissionStatus: v.submissionStatus,
    attempt: v.attempt,
    ...(v.maxAttempts !== null ? { maxAttempts: v.maxAttempts } : {}),
    type: v.type,
    ...(v.subType ? { subType: v.subType } : {}),
    ...(v.parentTrace ? { parentTrace: v.parentTrace } : {}),
  };
}

export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const obj = (v: unknown): Body => (v && typeof v === "object" && !Array.isArray(v) ? (v as Body) : {});

/** A request as stored: without the keys the binding names (spec/sandbox.yaml storedRequest: the older endpoints' credentials). */
export function withoutCredentials(body: Body, omit: readonly string[]): Body {
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

/** An older individual's name from its fields: first, middle and last name. */
export const olderPersonName = (f: Body) => [f.firstName, f.middleName, f.lastName].filter((part) => typeof part === "string" && part).join(" ");

/** The binding's rules as the rooms read them, the store, the clock and the ids of one service. */
export class ServiceCore {
  readonly binding: SandboxBinding;
  readonly db: ServiceStore;
  readonly newId: () => string;
  readonly clock: SandboxClock;
  readonly tenant: string;
  readonly hooks: ServiceHooks;
  /** The test values' words as whole-word patterns, compiled once (every create reads them). */
  private readonly testWords: readonly { readonly pattern: RegExp; readonly outcome: string }[];

  constructor(readonly options: ServiceOptions) {
    this.binding = options.binding;
    this.clock = options.clock;
    this.tenant = options.tenant ?? DEFAULT_TENANT;
    if (options.store === undefined && options.db === undefined) throw new Error("sandbox bug: a service needs a db or a store");
    this.db = options.store ?? sqlStore(options.db!, this.tenant);
    this.newId = options.newId ?? (() => globalThis.crypto.randomUUID());
    this.testWords = this.binding.spec.testValues.rules.map((r) => ({ pattern: new RegExp(`(^|[^\\p{L}])${r.word}($|[^\\p{L}])`, "iu"), outcome: r.outcome }));
    const hooks: ServiceHooks = { onChange: () => {}, onQueued: () => hooks.onChange() };
    this.hooks = hooks;
  }

  /** A row of the transition table by its id (statuses.yaml; `verispec check` requires the ids the sandbox reads). */
  row(id: string): TransitionRule {
    return transitionRow(this.binding.rules, id);
  }

  /** The entity type of an individual (the binding's individualType). */
  get individual(): string {
    return this.binding.spec.individualType;
  }

  /** The status every verification starts in: the submit row's target. */
  get pending(): string {
    return this.row("submit").to[0]!;
  }

  /** The outcome the test values pick (spec/sandbox.yaml testValues); a status the subject may not take falls back to the default. */
  pickOutcome(text: string | undefined, subject: Record<string, unknown>): string {
    const values = this.binding.spec.testValues;
    const hit = text === undefined ? undefined : this.testWords.find((r) => r.pattern.test(text));
    const outcome = hit?.outcome ?? values.default;
    const onlyWhen = this.binding.rules.statuses[outcome]?.onlyWhen;
    return onlyWhen && !evaluateCondition(this.binding.rules, { ref: onlyWhen }, subject) ? values.default : outcome;
  }

  /** When processing completes a verification created or resubmitted `now` (null: by hand only). */
  dueAt(now: number): number | null {
    return this.options.processingMs === "manual" ? null : now + this.options.processingMs;
  }

  /** Whether the transition row `row` applies to `v` on the way to its first target (its condition evaluated). */
  applies(row: TransitionRule, v: Verification): boolean {
    return findTransitions(this.binding.rules, v.verificationStatus, row.to[0]!, subjectOf(v)).some((r) => r.id === row.id);
  }

  /** A transition row's effects (`increment`, `set`), on the payload-named status fields. */
  effects(row: TransitionRule, v: Verification): Partial<Verification> {
    const fields: Record<string, unknown> = subjectOf(v);
    if (row.effects?.increment) fields[row.effects.increment] = Number(fields[row.effects.increment] ?? 0) + 1;
    Object.assign(fields, row.effects?.set ?? {});
    return {
      verificationStatus: String(fields.verificationStatus),
      submissionStatus: String(fields.submissionStatus),
      attempt: Number(fields.attempt),
      maxAttempts: fields.maxAttempts === undefined ? null : Number(fields.maxAttempts),
    };
  }

  /** A request as stored (without the older endpoints' credentials). */
  storable(body: Body): Body {
    return withoutCredentials(body, choice<string[]>(this.binding.spec, "storedRequest", "omit"));
  }

  // ---- refusals, their statuses, codes and texts from the binding ----

  errorOf(type: string): { httpStatus: number; message: string } {
    const error = this.binding.spec.errors[type];
    if (!error) throw new Error(`sandbox binding: no error type ${type}`);
    const messages = choice<Record<string, string>>(this.binding.spec, "errorMessages", "messages");
    return { httpStatus: error.httpStatus, message: error.message ?? messages[type] ?? type };
  }

  /** The service's error of `type` (its status and message) refusing a request about `trace`. */
  refusal(type: string, trace: string): ServiceError {
    const error = this.errorOf(type);
    return new ServiceError(error.httpStatus, type, error.message, [], trace);
  }

  /** The 404 of spec/sandbox.yaml `notFound`, with its message for what was not found. */
  notFound(what: string, values: Readonly<Record<string, string>> = {}): ServiceError {
    return new ServiceError(
      choice<number>(this.binding.spec, "notFound", "httpStatus"),
      choice<string>(this.binding.spec, "notFound", "code"),
      choiceMessage(this.binding.spec, "notFound", what, values),
    );
  }

  /** The control API's refusal of a status change (spec/sandbox.yaml controlApi: its conflict status and code, the message of `key`). */
  conflict(key: string, values: Readonly<Record<string, string | number>>): ServiceError {
    const { httpStatus, code } = choice<{ httpStatus: number; code: string }>(this.binding.spec, "controlApi", "conflict");
    return new ServiceError(httpStatus, code, choiceMessage(this.binding.spec, "controlApi", key, values));
  }
}
