// What the sandbox runtime is bound to (generated/sandbox.js provides it): the spec's data, the webhook
// rules (statuses, transitions, conditions), the generated validators and the webhook signer.
import type { ValidationResult } from "../validators/types.js";
import type { TransitionRule } from "../lifecycle/index.js";
import type { SignatureVersion, SignWebhookInput, WebhookRules } from "../webhooks/index.js";

export interface SandboxChoice {
  readonly choice: string;
  readonly answers?: string;
  readonly [key: string]: unknown;
}

export interface SandboxSpec {
  /** spec/versions.yaml specVersion (null in specs before it). */
  readonly specVersion: string | null;
  /** The content hash of the spec files served (the generator's load/spec-hash.ts); the start line prints it. */
  readonly specHash: string;
  readonly choices: Readonly<Record<string, SandboxChoice>>;
  readonly testValues: {
    readonly fields: { readonly v5: string; readonly olderIndividual: string; readonly olderEntity: string; readonly stakeholder: string };
    readonly rules: readonly { readonly word: string; readonly outcome: string }[];
    readonly default: string;
  };
  readonly limits: {
    readonly formLifetimeDays: number;
    readonly prefilledDataReducedAfterMinutes: number;
    readonly formOpens: number;
    readonly formAttempts: number;
  };
  readonly attempts: { readonly startsAt: number; readonly observedDefaultCap: number };
  /** The submission status that refuses every resubmission (statuses.yaml `locksResubmission`). */
  readonly lockingSubmissionStatus: string;
  readonly errors: Readonly<Record<string, { readonly httpStatus: number; readonly message?: string }>>;
  /** The error type (code) of each role (errors.yaml `role`): the sandbox names an error by what it answers, never by its code. */
  readonly errorRoles: Readonly<Record<string, string>>;
  readonly endpoints: Readonly<
    Record<
      string,
      {
        readonly method: string;
        readonly path: string | null;
        readonly auth: string;
        readonly request?: string;
        /** The answers the specification shows, by HTTP status: the body schema of each. */
        readonly responses: Readonly<Record<string, string>>;
        /** The status the sandbox answers on success: the one 2xx shown, or a sandbox choice where none is. */
        readonly successStatus: number;
      }
    >
  >;
  readonly metadataVersion: string;
  readonly webhookVersion: string;
  readonly payloadSchemas: { readonly v5: string; readonly older: string };
  /** The signature version each payload format is signed with (webhooks.yaml payloads.*.signatureVersion): the older body signature's `version`. */
  readonly payloadSignatureVersions: { readonly v5: SignatureVersion; readonly older: SignatureVersion };
  readonly olderVerificationStatuses: readonly string[];
  readonly verificationStatuses: readonly string[];
  /** What the hosted form shows: the forms call's entity kinds and the stakeholder types' fields (emit/sandbox.ts). */
  readonly forms: HostedForms;
  /** Statuses a change into sends no webhook (statuses.yaml `sendsWebhook: false`: `new`). */
  readonly silentStatuses: readonly string[];
  readonly createdMessage: string;
  /** Which verifications a v5 create with the same userId resubmits: a condition of the rules and the field values it requires (type, subType). */
  readonly resubmittable: { readonly condition: string; readonly fields: { readonly type: string; readonly subType: string } };
  /** The entity `type` of an individual (statuses.yaml condition isEntity). */
  readonly individualType: string;
  /** The `type` of a requested document (webhooks.yaml v4.RequestedDocument `type` const). */
  readonly requestedDocumentType: string;
  /** The v5 envelope's `status` of a success and of an error (v5.yaml v5.SuccessEnvelope, v5.ErrorEnvelope `status` const). */
  readonly envelopeStatus: { readonly success: string; readonly error: string };
  /** The `status` of the answer to the forms call (older.yaml v4.IdFormResponse `status` const). */
  readonly formCreatedStatus: string;
  /** The media type of every body (section 4, endpoints.yaml `bodies`). */
  readonly bodyMediaType: string;
}

/** One input of the hosted form: a field, its label (the field's title, if it has one), its choices; a document is carried, not typed. */
export interface FormField {
  readonly name: string;
  readonly label?: string;
  readonly options?: readonly string[];
  readonly document?: true;
}

export interface HostedForms {
  readonly kinds: Readonly<Record<string, { readonly title: string; readonly fields: readonly FormField[]; readonly roles: readonly string[] }>>;
  readonly stakeholderFields: Readonly<Record<string, readonly FormField[]>>;
}

export interface SandboxBinding {
  readonly spec: SandboxSpec;
  readonly rules: WebhookRules;
  readonly validate: (schemaId: never, data: unknown) => ValidationResult;
  readonly signWebhook: (input: SignWebhookInput) => Record<string, string>;
}

/**
 * What the sandbox reads of the spec by name: transition ids of statuses.yaml, error roles of errors.yaml and choices of sandbox.yaml.
 * `verispec check` requires each (VS433), so a spec without one fails there, not when the sandbox runs.
 */
export const SANDBOX_NEEDS = {
  transitions: {
    submit: "creates every verification with it (its target is the first status)",
    complete: "completes processing with it (from its `from` to one of its targets)",
    retry: "starts a new attempt after a rejection with it (condition and effects)",
    lock: "refuses a resubmission past the cap with it (condition, effects, error)",
    followUp: "answers the follow-up request (requested actions) from its `from` status",
  },
  errorRoles: {
    validation: "answers a request that fails its schema with it",
    resubmissionInFlight: "refuses a resubmission while another of the same verification is in flight with it",
  },
  choices: {
    authFailure: ["httpStatus", "code", "message", "challenge"],
    notFound: ["httpStatus", "code", "messages"],
    errorMessages: ["messages"],
    followUpTarget: ["to"],
    followUpPath: ["path", "httpStatus"],
    retryPolicy: ["timeoutMs", "delaysMs"],
    deliveryId: ["header"],
    getMessage: ["message"],
    initialSubmissionStatus: ["value"],
    requestSize: ["maxBodyBytes", "message"],
    requestBody: ["messages"],
    requestArrays: ["maxItems", "maxValues", "code", "message", "tooManyValues"],
    formSource: ["source"],
    reducedPrefill: ["keep"],
    hostedForm: ["labels", "messages", "refusals"],
    controlApi: ["maxClockOffsetMs", "maxAttempts", "messages", "conflict"],
    results: ["neutral", "hits"],
    requestedActions: ["document", "ids"],
    olderErrorShape: ["status"],
    refusals: ["badRequest", "payloadTooLarge", "unsupportedMediaType"],
  },
} as const satisfies { transitions: Record<string, string>; errorRoles: Record<string, string>; choices: Record<string, readonly string[]> };

/** A kind of request the sandbox refuses before the service's rules apply (sandbox.yaml `refusals`). */
export type RefusalKind = (typeof SANDBOX_NEEDS.choices.refusals)[number];

/** A role of an error the sandbox answers (errors.yaml `role`). */
export type ErrorRole = keyof typeof SANDBOX_NEEDS.errorRoles;

/** The error of `role`: its type (the code answered), status and message (errors.yaml). */
export function errorByRole(spec: SandboxSpec, role: ErrorRole): { readonly type: string; readonly httpStatus: number; readonly message?: string } {
  const type = spec.errorRoles[role];
  const error = type === undefined ? undefined : spec.errors[type];
  if (type === undefined || !error) throw new Error(`sandbox binding: no error of role ${role} (regenerate with 'verispec generate')`);
  return { type, ...error };
}

/** A choice's field, typed by the caller; a missing one is a binding out of date with the runtime. */
export function choice<T>(spec: SandboxSpec, name: string, key: string): T {
  const value = spec.choices[name]?.[key];
  if (value === undefined) throw new Error(`sandbox binding: choices.${name}.${key} is missing (regenerate with 'verispec generate')`);
  return value as T;
}

/**
 * The HTTP status of an operation's answer (endpoints.yaml `responses`: its one 2xx status). The follow-up
 * request's response is not shown; its status is a sandbox choice (sandbox.yaml followUpPath.httpStatus).
 * The generator decides which (emit/sandbox.ts successStatus); this only reads it.
 */
export function successStatus(spec: SandboxSpec, operationId: string): number {
  const status = spec.endpoints[operationId]?.successStatus;
  if (status === undefined) throw new Error(`sandbox binding: no endpoint ${operationId} (regenerate with 'verispec generate')`);
  return status;
}

/** A message of a choice's `messages` with each `{name}` replaced by `values[name]`. */
export function choiceMessage(spec: SandboxSpec, name: string, key: string, values: Readonly<Record<string, string | number>> = {}): string {
  const template = choice<Readonly<Record<string, string>>>(spec, name, "messages")[key];
  if (template === undefined) throw new Error(`sandbox binding: choices.${name}.messages.${key} is missing (regenerate with 'verispec generate')`);
  return filled(template, values);
}

/** A template of the binding with each `{name}` replaced by `values[name]` (an unknown name stays as written). */
export function filled(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (whole, v: string) => (values[v] === undefined ? whole : String(values[v])));
}

export function transitionRow(rules: WebhookRules, id: string): TransitionRule {
  const row = rules.transitions.find((t) => t.id === id);
  if (!row) throw new Error(`sandbox binding: no transition ${JSON.stringify(id)} in the rules`);
  return row;
}

/** Validates with the generated validator of `schemaId`. */
export function validateWith(binding: SandboxBinding, schemaId: string, data: unknown): ValidationResult {
  return (binding.validate as (id: string, d: unknown) => ValidationResult)(schemaId, data);
}
