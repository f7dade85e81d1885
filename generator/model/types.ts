// The model: one typed, read-only intermediate representation of the whole spec. Every emitter reads
// only this; nothing here knows about YAML, JSON Schema or OpenAPI syntax.
import type { ConditionExpr } from "../../templates/lifecycle/index.js";
import type { SourcePos } from "../diagnostics.js";

/** The JSON Schema formats the schemas use; the validators check them (templates/validators/formats.ts). */
export type Format = "uri" | "uuid" | "date-time";

export type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";

/** A "not shown" of the service's specification, carried into descriptions of every output. */
export interface Unknown {
  readonly source: string;
  readonly text: string;
  readonly pos: SourcePos;
}

/** A validation message: the code and text a failing rule reports (specification section 7). */
export interface Message {
  readonly id: string;
  readonly code: string;
  readonly message: string;
  /** "observed": exactly as in the specification's table; "verispec": verispec's wording (the specification shows none). */
  readonly origin: "observed" | "verispec" | "default";
}

/** A named value rule (spec/rules.yaml), with `{unicodeLetter}` already expanded. */
export interface Rule {
  readonly name: string;
  readonly source: string;
  readonly description: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  /** A JSON Schema format stated beside the pattern (the pattern is the portable check). */
  readonly format?: Format;
  /** Keyword ("pattern", "minLength", ...) to the message it reports. */
  readonly messages: Readonly<Record<string, Message>>;
  readonly examples: readonly string[];
  readonly pos: SourcePos;
}

/** A named closed list of values: a country group, the state codes, a status list. */
export interface ValueSet {
  /** "iso3", "usStates", a status list's name, or a country group's name (countries.yaml). */
  readonly name: string;
  /** A country group of countries.yaml (written inline in schemas; the others are shared definitions). */
  readonly countryGroup?: true;
  readonly values: readonly string[];
  readonly source?: string;
  readonly description?: string;
}

export interface Condition {
  readonly field: string;
  readonly values: readonly string[];
  readonly source?: string;
  readonly properties: Readonly<Record<string, Field>>;
}

/** A field or a shape: the spec's small schema language after resolving rules, value sets and includes. */
export interface Field {
  readonly pos: SourcePos;
  readonly source?: string;
  readonly title?: string;
  readonly description?: string;
  readonly unknown?: string;
  readonly type?: JsonType | readonly JsonType[];
  readonly required: "yes" | "no" | "ifPresent";
  readonly nullable: boolean;
  readonly rule?: Rule;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly values?: ValueSet;
  readonly format?: Format;
  readonly deprecated: boolean;
  readonly secret: boolean;
  readonly examples?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly properties?: Readonly<Record<string, Field>>;
  readonly additionalProperties?: boolean | Field;
  readonly items?: Field;
  readonly ref?: string;
  readonly when: readonly Condition[];
  readonly exactlyOneOf?: readonly string[];
  readonly oneOf?: readonly Field[];
  readonly discriminator?: string;
  readonly selectBy?: { readonly field: string; readonly then: string; readonly else: string };
  /** The field's own messages; its rule's messages stay with the rule. */
  readonly messages: Readonly<Record<string, Message>>;
  /** v5 create body: apply the per-type requirements of 2.11. */
  readonly requirements: boolean;
  readonly unknownShape: boolean;
  /** The key list is incomplete and other keys are in use: types stay open, unknown keys are never flagged. */
  readonly openKeys: boolean;
  /** Present only in this variant of the shape (e.g. "stakeholder" webhooks). */
  readonly onlyIn?: string;
  /**
   * An object the service sends: its `required: "yes"` fields are always present, the presence of the
   * others is not shown (`unknown` says so). Absent on request shapes.
   */
  readonly presence?: { readonly source?: string; readonly unknown?: string };
}

export interface Shape extends Field {
  readonly id: string;
}

export interface StakeholderType {
  readonly name: string;
  readonly source: string;
  readonly description?: string;
  /** Shape id of its `fields`. */
  readonly fields: string;
}

export interface Role {
  readonly name: string;
  readonly types: readonly string[];
  readonly required: boolean;
  readonly description?: string;
  readonly unknown?: string;
}

export interface RoleSet {
  readonly name: string;
  readonly source: string;
  readonly description?: string;
  readonly roles: readonly Role[];
  readonly pos: SourcePos;
}

export interface EntityBranch {
  readonly name: string;
  readonly source: string;
  readonly countries: ValueSet;
  /** Fields in order: `country` first, then the table's own, then included field sets. */
  readonly fields: Readonly<Record<string, Field>>;
}

export interface EntityKind {
  /** The wire value of `type`, e.g. "unRegulatedTrust". */
  readonly kind: string;
  readonly source: string;
  readonly interface: "verify" | "idform";
  readonly title: string;
  readonly description: string;
  readonly unknown?: string;
  readonly branches: readonly EntityBranch[];
  readonly stakeholders?: { readonly source: string; readonly required: boolean; readonly roleSet: RoleSet };
  readonly pos: SourcePos;
}

export interface EntityRequest {
  readonly id: string;
  readonly source: string;
  readonly title: string;
  readonly description: string;
  readonly interface: "verify" | "idform";
  readonly examples: readonly unknown[];
  /** Envelope fields plus this request's own. */
  readonly fields: Readonly<Record<string, Field>>;
}

export interface V5Requirement {
  readonly type: string;
  readonly source: string;
  readonly addresses: readonly string[];
  readonly documents: readonly string[];
  readonly identifiersFor: readonly { readonly countries: ValueSet; readonly identifiers: readonly string[] }[];
}

export interface VerificationStatus {
  readonly value: string;
  readonly source: string;
  readonly meaning: string;
  readonly outcome: string;
  /** A named condition the subject must meet to be in this status (e.g. `removed`: a stakeholder). */
  readonly onlyWhen?: string;
  /** false: a change into this status sends no webhook (the service's specification, section 3: `new`). */
  readonly sendsWebhook?: false;
}

/** A condition as data (spec/statuses.yaml `conditions`): its one home is the runtime that evaluates it. */
export type { ConditionExpr };

export interface NamedCondition {
  readonly name: string;
  readonly source: string;
  readonly text: string;
  readonly expr: ConditionExpr;
}

/** The sandbox's choices where the specification is silent (spec/sandbox.yaml). */
export interface SandboxSpec {
  readonly choices: Readonly<Record<string, Readonly<Record<string, unknown>> & { readonly choice: string; readonly answers?: string }>>;
  readonly testValues: {
    readonly fields: Readonly<Record<"v5" | "olderIndividual" | "olderEntity" | "stakeholder", string>>;
    readonly rules: readonly { readonly word: string; readonly outcome: string }[];
    readonly default: string;
  };
}

export interface SubmissionStatus {
  readonly value: string;
  readonly source: string;
  readonly meaning?: string;
  readonly unknown?: string;
  readonly locksResubmission: boolean;
}

export interface Transition {
  /** Names the row for the sandbox (submit, complete, retry, lock, followUp, ...). */
  readonly id?: string;
  readonly source: string;
  readonly from: string | null;
  readonly trigger: string;
  readonly condition?: string;
  readonly to: readonly string[];
  /** The condition as data; absent: always. */
  readonly when?: ConditionExpr;
  readonly effects?: { readonly increment?: string; readonly set?: Readonly<Record<string, string | number | boolean>> };
  /** The error type answered when this row applies (e.g. too_many_attempts). */
  readonly error?: string;
  readonly alsoHappens?: string;
  readonly unknown?: string;
}

export interface ErrorType {
  readonly type: string;
  readonly source: string;
  /** What the error is answered for (errors.yaml `role`: validation, attemptsExhausted, resubmissionInFlight); the runtime looks the code up by it. */
  readonly role?: string;
  readonly httpStatus: number;
  readonly message?: string;
  readonly condition: string;
}

export interface Limit {
  readonly name: string;
  readonly source: string;
  readonly value: string;
  readonly appliesTo: string;
  readonly rule?: string;
  readonly numbers: Readonly<Record<string, number>>;
}

export interface Endpoint {
  readonly operationId: string;
  readonly source: string;
  readonly method: "GET" | "POST";
  /** null: the specification does not show the path (the caller supplies it). */
  readonly path: string | null;
  readonly auth: "body" | "basic";
  readonly client: string;
  readonly summary: string;
  readonly description: string;
  readonly unknown?: string;
  readonly request?: string;
  readonly pathParams: Readonly<Record<string, Field>>;
  readonly responses: Readonly<Record<string, string>>;
  readonly errors: readonly string[];
  readonly errorBody: string;
  readonly limits: readonly string[];
}

export interface SignatureHeader {
  readonly name: string;
  readonly prefix?: string;
  readonly digest?: "hmac-sha256" | "sha3-256" | "keccak-256";
  readonly description?: string;
  readonly value?: string;
}

export interface SignatureScheme {
  readonly version: string;
  readonly source: string;
  readonly description: string;
  readonly headers: readonly SignatureHeader[];
  /** The header that names the version (the one with a `value`, checked one per version: VS439), and that value. */
  readonly versionHeader: { readonly name: string; readonly value: string };
  readonly receiverMust: readonly string[];
  readonly bodyVariant?: { readonly deprecated: boolean; readonly description: string; readonly unknown?: string };
}

export interface WebhookPayloadDef {
  readonly name: string;
  /** The payload format (specification sections 6.2, 6.3): the current `v5` one, or the `older` one. */
  readonly format: "v5" | "older";
  readonly source: string;
  readonly schema: string;
  readonly signatureVersion: string;
  readonly operationId: string;
  readonly summary: string;
}

export interface Model {
  /** The content hash of the spec files the model was built from (load/spec-hash.ts). */
  readonly specHash: string;
  readonly countries: {
    readonly iso3: readonly { readonly code: string; readonly name: string }[];
    readonly groups: Readonly<Record<string, ValueSet & { readonly source: string; readonly description?: string }>>;
    readonly usStates: ValueSet;
  };
  readonly unicodeVersion: string;
  readonly rules: Readonly<Record<string, Rule>>;
  /** Added to the descriptions of rules with a pattern (rules.yaml). */
  readonly patternNotes: {
    /** Every rule with a pattern: how regex engines may differ on it. */
    readonly engines: string;
    /** In openapi.json, a rule whose `pattern` is the portable form of `x-verispec-pattern`. */
    readonly portable: string;
  };
  /** The named value sets other than country groups. */
  readonly valueSets: readonly ValueSet[];
  readonly messages: {
    readonly codes: readonly string[];
    readonly observed: readonly (Message & { readonly source: string; readonly paths: readonly (readonly string[])[] })[];
    /** JSON Schema keyword to the Zod 4 default message template. */
    readonly defaults: Readonly<Record<string, Message>>;
    readonly verispec: Readonly<Record<string, Message>>;
  };
  readonly errorTypes: readonly ErrorType[];
  readonly limits: Readonly<Record<string, Limit>>;
  readonly verificationStatuses: readonly VerificationStatus[];
  readonly olderVerificationStatuses: readonly string[];
  readonly submissionStatuses: readonly SubmissionStatus[];
  readonly outcomes: Readonly<Record<string, { readonly source: string; readonly guidance: string }>>;
  readonly conditions: Readonly<Record<string, NamedCondition>>;
  readonly transitions: readonly Transition[];
  readonly attempts: {
    readonly source: string;
    readonly field: string;
    readonly startsAt: number;
    readonly capField: string;
    readonly observedDefaultCap: number;
    /** The named condition under which a rejection can be retried. */
    readonly retryCondition: string;
    /** The outcomes a `by_attempts` status reads as: `retry` while the retry condition holds, else `final` (section 6.2). */
    readonly rejectionOutcomes?: { readonly retry: string; readonly final: string };
    readonly rules: readonly string[];
  };
  readonly sandbox: SandboxSpec;
  readonly versions: {
    /** The spec's own semantic version (spec/versions.yaml `specVersion`); absent in specs before it. */
    readonly specVersion?: string;
    readonly metadataVersion: string;
    readonly olderPaths: readonly string[];
    readonly pathPrefix: string;
    readonly webhookVersion: string;
    readonly signatureVersions: readonly { readonly version: string; readonly description: string; readonly source: string }[];
    readonly deprecations: readonly { readonly source: string; readonly what: string; readonly replacement?: string }[];
  };
  readonly stakeholderGuidance: string;
  readonly stakeholderTypes: readonly StakeholderType[];
  readonly roleSets: Readonly<Record<string, RoleSet>>;
  readonly entityKinds: readonly EntityKind[];
  readonly entityRequests: readonly EntityRequest[];
  readonly shapes: Readonly<Record<string, Shape>>;
  readonly v5Requirements: readonly V5Requirement[];
  readonly requiredDocumentMessage: Message;
  readonly servers: readonly { readonly name: string; readonly source: string; readonly description: string }[];
  readonly auth: Readonly<Record<string, { readonly source: string; readonly description: string }>>;
  readonly endpoints: readonly Endpoint[];
  /** The media type of every request and response body (section 4, endpoints.yaml `bodies`). */
  readonly bodyMediaType: string;
  readonly delivery: { readonly source: string; readonly rules: readonly string[] };
  readonly signatures: readonly SignatureScheme[];
  readonly webhookToleranceMs: number;
  readonly webhookPayloads: readonly WebhookPayloadDef[];
  /** Every "not shown" of the service's specification, in spec order. */
  readonly unknowns: readonly Unknown[];
}

/** Schema ids of the entity kinds: "v4.entities.<Kind>" with the kind's first letter upper-cased. */
export function entitySchemaId(kind: string): string {
  return `v4.entities.${kind.charAt(0).toUpperCase()}${kind.slice(1)}`;
}
