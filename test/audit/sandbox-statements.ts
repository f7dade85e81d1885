// What the service's specification states about the sandbox's outputs, one row per statement, as data:
// the fields of sections 6.2 and 6.3 (v5 and older webhooks, top level and every nested item), the responses
// of section 4 (with 2.11's envelope and verification detail, section 7's error shapes) and the notes and
// rows of section 3's tables. sandbox-checks.ts gives each `when`, `meaning` and `scenario` name its check;
// sandbox-audit.test.ts drives the sandbox and counts statements checked / listed.

/** Every kind of item the sandbox answers or sends (sandbox-checks.ts samplesOf classifies them). */
export type Subject =
  | "v5.webhook.entity"
  | "v5.webhook.individual"
  | "v5.webhook.stakeholder"
  | "v5.webhook.screening.watchlist"
  | "older.webhook.entity"
  | "older.webhook.individual"
  | "older.webhook.stakeholderIndividual"
  | "older.stakeholder"
  | "older.watchlistEntry"
  | "older.requestedAction"
  | "older.verify.response"
  | "older.status.response"
  | "older.idform.response"
  | "v5.create.response"
  | "v5.get.response"
  | "v5.get.detail"
  | "v5.error.474"
  | "v5.error.475"
  | "v5.error.422"
  | "v5.error.422.detail";

export type FieldType = "string" | "number" | "integer" | "array" | "object" | "array of string";
export type Format = "uuid" | "iso3" | "unix-ms" | "seconds-or-ms" | "date-time" | "url";

export interface Statement {
  readonly section: string;
  /** The specification's words the row checks. */
  readonly says: string;
  readonly subjects?: readonly Subject[];
  /** A field of each sample (dots descend). */
  readonly field?: string;
  /** always (default for a field): present in every sample it applies to; optional: checked where present; never: absent. */
  readonly presence?: "always" | "optional" | "never";
  /** Only the samples this condition (sandbox-checks.ts WHEN) holds for. */
  readonly when?: string;
  readonly type?: FieldType;
  readonly nullable?: true;
  readonly format?: Format;
  readonly values?: readonly (string | number | null)[];
  /** A check of what the field means (sandbox-checks.ts MEANINGS), on each sample where it is present. */
  readonly meaning?: string;
  /** A check over the whole run (sandbox-checks.ts SCENARIOS): transitions, notes, counts. */
  readonly scenario?: string;
}

const V5: readonly Subject[] = ["v5.webhook.entity", "v5.webhook.individual", "v5.webhook.stakeholder"];
const V5_TOP: readonly Subject[] = ["v5.webhook.entity", "v5.webhook.individual"];
const OLDER: readonly Subject[] = ["older.webhook.entity", "older.webhook.individual", "older.webhook.stakeholderIndividual"];
const V5_RESPONSES: readonly Subject[] = ["v5.create.response", "v5.get.response", "v5.error.474", "v5.error.475", "v5.error.422"];
const V5_ERRORS: readonly Subject[] = ["v5.error.474", "v5.error.475", "v5.error.422"];
const STATUSES = ["new", "pending", "verified", "rejected", "info", "locked", "error", "removed"];
const SUBMISSION = ["submitted", "incomplete", "locked"];
const OLDER_STATUSES = ["verified", "rejected", "pending", "info", "locked"];
const IDV_LEVELS = ["Undefined", "Low", "Low to Medium", "Medium", "Medium to High", "High"];

const STAKEHOLDER_ITEM_TYPES: Readonly<Record<string, FieldType>> = {
  id: "string",
  submissionId: "string",
  trace: "string",
  verificationUuid: "string",
  name: "string",
  role: "string",
  submissionStatus: "string",
  timestamp: "number",
  verificationScore: "number",
  verificationStatus: "string",
  idvRiskScore: "object",
  inWatchLists: "array",
  outOfWatchLists: "array",
};
const STAKEHOLDER_ITEM_EXTRA: Readonly<Record<string, Partial<Statement>>> = {
  trace: { format: "uuid" },
  submissionStatus: { values: SUBMISSION },
  verificationStatus: { values: OLDER_STATUSES },
  timestamp: { format: "seconds-or-ms" },
  name: { meaning: "stakeholderItemName" },
  role: { meaning: "stakeholderItemRole" },
};

const IDFORM_EXTRA: Readonly<Record<string, Partial<Statement>>> = {
  serviceLink: { format: "url" },
  verificationUuid: { format: "uuid" },
  status: { values: ["success"] },
};

/** Section 6.2: the current payload, for each kind of v5 webhook. */
const current: readonly Statement[] = [
  { section: "6.2", subjects: V5, field: "version", type: "string", values: ["v5"], says: "version: string, always `v5`" },
  {
    section: "6.2",
    subjects: V5_TOP,
    field: "userId",
    type: "string",
    nullable: true,
    meaning: "userIdAsSent",
    says: "userId: string or null, caller's identifier",
  },
  {
    section: "6.2",
    subjects: V5,
    field: "onBehalfUid",
    when: "gaveOnBehalfUid",
    type: "string",
    meaning: "onBehalfUidAsSent",
    says: "onBehalfUid: string, on-behalf account UID",
  },
  {
    section: "6.2",
    subjects: V5,
    field: "tags",
    type: "array of string",
    meaning: "tagsAsSent",
    says: "tags: array of string, always present; empty array if none",
  },
  { section: "6.2", subjects: V5_TOP, field: "trace", type: "string", meaning: "traceOfCreate", says: "trace: string, verification trace" },
  {
    section: "6.2",
    subjects: ["v5.webhook.stakeholder"],
    field: "trace",
    type: "string",
    meaning: "stakeholderOwnTrace",
    says: "trace: for a stakeholder webhook, the individual's own trace",
  },
  { section: "6.2", subjects: V5, field: "submissionId", type: "string", says: "submissionId: string, submission id" },
  { section: "6.2", subjects: V5, field: "name", type: "string", meaning: "nameAsSent", says: "name: string, entity name" },
  { section: "6.2", subjects: V5, field: "country", when: "gaveCountry", type: "string", format: "iso3", says: "country: string, ISO3" },
  { section: "6.2", subjects: V5, field: "type", type: "string", meaning: "typeAsSent", says: "type: string, entity type" },
  { section: "6.2", subjects: V5, field: "subType", when: "gaveSubType", type: "string", meaning: "subTypeAsSent", says: "subType: string, entity sub-type" },
  {
    section: "6.2",
    subjects: V5_TOP,
    field: "inputRisk",
    when: "gaveInputRisk",
    type: "string",
    meaning: "inputRiskAsSent",
    says: "inputRisk: string, optional, caller-supplied",
  },
  {
    section: "6.2",
    subjects: V5,
    field: "idvRisk",
    when: "processing",
    presence: "never",
    says: "idvRisk: absent until calculated (the sandbox calculates when processing completes)",
  },
  {
    section: "6.2",
    subjects: V5,
    field: "idvRisk",
    when: "processed",
    type: "string",
    says: "idvRisk: string, optional; calculated from country risk, screening, stakeholder risk, input risk",
  },
  {
    section: "6.2",
    subjects: V5,
    field: "screening",
    when: "processing",
    presence: "never",
    says: "screening: present once watchlist screening has run (the sandbox screens when processing completes)",
  },
  { section: "6.2", subjects: V5, field: "screening", when: "processed", type: "object", nullable: true, says: "screening: object or null" },
  {
    section: "6.2",
    subjects: ["v5.webhook.screening.watchlist"],
    field: "status",
    type: "string",
    values: ["clear", "hits_found"],
    says: "screening.watchlist.status: clear or hits_found",
  },
  { section: "6.2", subjects: ["v5.webhook.screening.watchlist"], field: "totalHits", type: "number", says: "screening.watchlist.totalHits: number" },
  {
    section: "6.2",
    subjects: ["v5.webhook.screening.watchlist"],
    field: "lastScreenedAt",
    type: "integer",
    format: "unix-ms",
    says: "screening.watchlist.lastScreenedAt: Unix ms",
  },
  {
    section: "6.2",
    subjects: ["v5.webhook.screening.watchlist"],
    field: "lastScreenedTime",
    type: "string",
    says: "screening.watchlist.lastScreenedTime: string",
  },
  { section: "6.2", subjects: V5, field: "verificationStatus", type: "string", values: STATUSES, says: "verificationStatus: string, section 3" },
  {
    section: "6.2",
    subjects: V5_TOP,
    field: "verificationStatus",
    type: "string",
    meaning: "notRemoved",
    says: "verificationStatus: `removed` for stakeholder webhooks only",
  },
  { section: "6.2", subjects: V5, field: "submissionStatus", type: "string", values: SUBMISSION, says: "submissionStatus: string, section 3" },
  { section: "6.2", subjects: V5, field: "attempt", type: "integer", meaning: "atLeastOne", says: "attempt: number, starts at 1, always populated" },
  { section: "6.2", subjects: V5, field: "maxAttempts", when: "capped", type: "integer", says: "maxAttempts: number, present where retries are capped" },
  { section: "6.2", subjects: V5, field: "timestamp", type: "integer", format: "unix-ms", says: "timestamp: number, Unix milliseconds of the change" },
  { section: "6.2", subjects: V5_TOP, field: "parentTrace", presence: "never", says: "parentTrace: stakeholder webhooks only" },
  {
    section: "6.2",
    subjects: ["v5.webhook.stakeholder"],
    field: "parentTrace",
    type: "string",
    meaning: "parentTraceOfEntity",
    says: "parentTrace: string, stakeholder webhooks only: trace of the entity",
  },
  { section: "6.2", subjects: V5_TOP, field: "parentUserId", presence: "never", says: "parentUserId: stakeholder webhooks only" },
  {
    section: "6.2",
    subjects: ["v5.webhook.stakeholder"],
    field: "parentUserId",
    when: "parentHasUserId",
    type: "string",
    meaning: "parentUserIdOfEntity",
    says: "parentUserId: string, stakeholder webhooks only: userId of the entity, when set",
  },
  {
    section: "6.2",
    subjects: ["v5.webhook.stakeholder"],
    field: "parentUserId",
    when: "parentHasNoUserId",
    presence: "never",
    says: "parentUserId: only when the entity's userId is set",
  },
  { section: "6.2", subjects: V5_TOP, field: "roles", presence: "never", says: "roles: stakeholder webhooks only" },
  {
    section: "6.2",
    subjects: ["v5.webhook.stakeholder"],
    field: "roles",
    type: "array of string",
    meaning: "rolesAsSent",
    says: "roles: array of string, stakeholder webhooks only: all roles the individual holds in the entity",
  },
  {
    section: "6.2",
    subjects: V5,
    meaning: "onlyTableFields",
    says: "Rejection reasons are not included in webhooks (a v5 payload carries the fields of the 6.2 table only)",
  },
  {
    section: "6.2",
    scenario: "stakeholderWebhookPerIndividual",
    says: "A stakeholder webhook is sent for each individual in addition to the entity's own webhook; match `parentTrace` to the entity's `trace`",
  },
  { section: "6.2", scenario: "lockedIsFinal", says: "`rejected` with submissionStatus `locked` means final, no more resubmissions" },
  { section: "6.2", scenario: "retryWhenBelowCap", says: "`rejected` with `maxAttempts` present and `attempt` below it means retry possible" },
  { section: "6.2", scenario: "finalWithoutCap", says: "otherwise rejection is final" },
  { section: "6.2", scenario: "infoAndErrorDetails", says: "`info` and `error` call for fetching details" },
];

/** Section 6.3: the older payload (also the /verify and /getVerificationStatus responses), its stakeholder items and nested items. */
const older: readonly Statement[] = [
  { section: "6.3", subjects: OLDER, field: "name", type: "string", meaning: "olderNameAsSent", says: "name: string, entity or individual name" },
  {
    section: "6.3",
    subjects: OLDER,
    field: "verificationStatus",
    type: "string",
    values: OLDER_STATUSES,
    says: "verificationStatus: `verified`, `rejected`, `pending`, `info`, `locked`",
  },
  { section: "6.3", subjects: OLDER, field: "verificationUuid", type: "string", says: "verificationUuid: string (deprecated; use trace and submissionId)" },
  {
    section: "6.3",
    subjects: ["older.webhook.entity"],
    field: "trace",
    type: "string",
    format: "uuid",
    meaning: "traceOfCreate",
    says: "trace: entities: verification UUID",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.individual", "older.webhook.stakeholderIndividual"],
    field: "trace",
    type: "string",
    format: "uuid",
    says: "trace: individuals: UUID of the attempt",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.entity"],
    field: "submissionId",
    type: "string",
    meaning: "sameAsTrace",
    says: "submissionId: entities: same as trace",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.individual", "older.webhook.stakeholderIndividual"],
    field: "submissionId",
    type: "string",
    format: "uuid",
    says: "submissionId: individuals: grouping UUID",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.stakeholderIndividual"],
    field: "parentVerificationTrace",
    type: "string",
    meaning: "parentTraceOfEntity",
    says: "parentVerificationTrace: individuals verified as part of an entity: the entity's id",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.stakeholderIndividual"],
    field: "parentVerificationUuid",
    type: "string",
    meaning: "sameAsParentVerificationTrace",
    says: "parentVerificationUuid: the entity's id (identical to parentVerificationTrace)",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.entity", "older.webhook.individual"],
    field: "parentVerificationTrace",
    presence: "never",
    says: "parentVerificationTrace: only for individuals verified as part of an entity",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.stakeholderIndividual"],
    field: "parentUserId",
    when: "parentHasUserId",
    type: "string",
    meaning: "parentUserIdOfEntity",
    says: "parentUserId: string, optional; userId of the encapsulating entity",
  },
  { section: "6.3", subjects: OLDER, field: "entityType", type: "string", meaning: "entityTypeAsSent", says: "entityType: string, entity type" },
  {
    section: "6.3",
    subjects: OLDER,
    field: "timestamp",
    type: "number",
    format: "seconds-or-ms",
    says: "timestamp: number, when sent (seconds or milliseconds)",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.entity", "older.webhook.individual"],
    field: "userId",
    when: "gaveUserId",
    type: "string",
    meaning: "olderUserIdAsSent",
    says: "userId: string, optional",
  },
  {
    section: "6.3",
    subjects: OLDER,
    field: "submissionStatus",
    type: "string",
    values: SUBMISSION,
    says: "submissionStatus: `submitted`, `incomplete`, `locked`",
  },
  {
    section: "6.3",
    subjects: ["older.webhook.individual", "older.webhook.stakeholderIndividual"],
    field: "verificationScore",
    type: "number",
    says: "verificationScore: number, individuals only: indication of data sources matched",
  },
  { section: "6.3", subjects: ["older.webhook.entity"], field: "verificationScore", presence: "never", says: "verificationScore: individuals only" },
  {
    section: "6.3",
    subjects: ["older.webhook.entity"],
    field: "stakeholders",
    when: "gaveStakeholders",
    type: "array",
    meaning: "oneItemPerStakeholder",
    says: "stakeholders: array, optional",
  },
  ...[
    "id",
    "submissionId",
    "trace",
    "verificationUuid",
    "name",
    "role",
    "submissionStatus",
    "timestamp",
    "verificationScore",
    "verificationStatus",
    "idvRiskScore",
    "inWatchLists",
    "outOfWatchLists",
  ].map(
    (field): Statement => ({
      section: "6.3",
      subjects: ["older.stakeholder"],
      field,
      type: STAKEHOLDER_ITEM_TYPES[field]!,
      ...STAKEHOLDER_ITEM_EXTRA[field],
      says: `stakeholders: each has ${field}`,
    }),
  ),
  {
    section: "6.3",
    subjects: ["older.stakeholder"],
    field: "trace",
    meaning: "stakeholderItemTrace",
    when: "individualItem",
    says: "stakeholders: an individual's trace is the UUID of its attempt and its submissionId its grouping UUID (those of its own webhooks)",
  },
  {
    section: "6.3",
    subjects: OLDER,
    field: "screeningId",
    when: "processed",
    type: "string",
    says: "screeningId: string, optional; id of the screening, if configured (the sandbox screens when processing completes)",
  },
  { section: "6.3", subjects: OLDER, field: "inWatchLists", type: "array", says: "inWatchLists: array, watchlists the subject is in" },
  { section: "6.3", subjects: OLDER, field: "outOfWatchLists", type: "array", says: "outOfWatchLists: array, watchlists the subject is not in" },
  { section: "6.3", subjects: ["older.watchlistEntry"], field: "name", type: "string", says: "watchlist entries have name" },
  {
    section: "6.3",
    subjects: ["older.watchlistEntry"],
    meaning: "watchlistEntryKeys",
    says: "entries have name plus some of: Country Name, description, the service, method, officialUrl, results",
  },
  { section: "6.3", subjects: OLDER, field: "idvRiskScore", type: "object", says: "idvRiskScore: object `{ description }`" },
  {
    section: "6.3",
    subjects: OLDER,
    field: "idvRiskScore.description",
    type: "string",
    values: IDV_LEVELS,
    says: "idvRiskScore.description: `Undefined`, `Low`, `Low to Medium`, `Medium`, `Medium to High`, `High`",
  },
  {
    section: "6.3",
    subjects: OLDER,
    field: "requestedActions",
    when: "info",
    type: "array",
    meaning: "nonEmpty",
    says: "requestedActions: array, only with status `info`",
  },
  { section: "6.3", subjects: OLDER, field: "requestedActions", when: "notInfo", presence: "never", says: "requestedActions: only with status `info`" },
  {
    section: "6.3",
    subjects: ["older.requestedAction"],
    field: "type",
    type: "string",
    values: ["individual", "document"],
    says: "requestedActions items: `{ type: individual, ... }` or `{ type: document, ... }`",
  },
  {
    section: "6.3",
    subjects: ["older.requestedAction"],
    field: "id",
    type: "string",
    says: "requestedActions items: id of the missing stakeholder or document",
  },
  {
    section: "6.3",
    subjects: ["older.requestedAction"],
    field: "extractType",
    when: "documentAction",
    type: "string",
    says: "requestedActions document items: `{ type: document, id, extractType }`",
  },
  {
    section: "6.3",
    subjects: ["older.requestedAction"],
    field: "role",
    when: "individualAction",
    type: "string",
    says: "requestedActions individual items: `{ type: individual, role, id, fields }` (role)",
  },
  {
    section: "6.3",
    subjects: ["older.requestedAction"],
    field: "fields",
    when: "individualAction",
    type: "object",
    says: "requestedActions individual items: `{ type: individual, role, id, fields }` (fields)",
  },
  { section: "6.3", subjects: OLDER, field: "signature", type: "object", says: "signature: object `{ version, sha256, keccak256 }`" },
  { section: "6.3", subjects: OLDER, field: "signature.version", type: "string", says: "signature.version" },
  {
    section: "6.3",
    subjects: OLDER,
    field: "signature.sha256",
    type: "string",
    meaning: "bodySignatureSha",
    says: "signature.sha256 (6.4: `svc_sec_sha256_` + SHA3-256 of the text without the signature object + key)",
  },
  {
    section: "6.3",
    subjects: OLDER,
    field: "signature.keccak256",
    type: "string",
    meaning: "bodySignatureKeccak",
    says: "signature.keccak256 (6.4: `svc_sec_keccak256_` + Keccak-256 of the same text)",
  },
];

/** Section 4 (and the 2.11 envelope and detail, section 7's error shapes): what each endpoint answers. */
const responses: readonly Statement[] = [
  { section: "4.1", scenario: "verifyIsInitialWebhook", says: "POST /verify: the verification status object, identical in content to the initial webhook" },
  ...["source", "serviceLink", "verificationUuid", "status"].map(
    (field): Statement => ({
      section: "4.2",
      subjects: ["older.idform.response"],
      field,
      type: "string",
      ...IDFORM_EXTRA[field],
      says: `POST /idform response: ${field}`,
    }),
  ),
  ...[
    "entityType",
    "name",
    "userId",
    "verificationStatus",
    "submissionStatus",
    "submissionId",
    "trace",
    "timestamp",
    "idvRiskScore",
    "idvRiskScore.description",
    "signature",
    "signature.version",
    "signature.keccak256",
    "signature.sha256",
  ].map(
    (field): Statement => ({
      section: "4.3",
      subjects: ["older.status.response"],
      field,
      type: /^(idvRiskScore|signature)$/.test(field) ? "object" : field === "timestamp" ? "number" : "string",
      says: `POST /getVerificationStatus response: ${field}`,
    }),
  ),
  { section: "4.3", scenario: "statusIsLatestWebhook", says: "POST /getVerificationStatus by trace or by userId: the latest webhook content" },
  { section: "4.5", subjects: ["v5.create.response"], field: "statusCode", values: [200], says: "POST /v5/verifications success: HTTP 200" },
  {
    section: "4.5",
    subjects: ["v5.create.response"],
    field: "message",
    values: ["Verification created successfully"],
    says: "message = `Verification created successfully`",
  },
  { section: "4.5", subjects: ["v5.create.response"], field: "status", values: ["success"], says: "status = `success`" },
  { section: "4.5", subjects: ["v5.create.response"], field: "data", values: [null], says: "data = null" },
  { section: "4.5", subjects: ["v5.create.response"], field: "error", values: [null], says: "error = null" },
  { section: "4.5", scenario: "createTraceIdentifies", says: "`trace` identifies the new verification" },
  { section: "4.5", scenario: "emptyArraysAccepted", says: "Empty `documents` and `stakeholders` arrays are accepted where nothing is required" },
  { section: "2.11", subjects: V5_RESPONSES, field: "timestamp", type: "string", format: "date-time", says: "envelope timestamp: ISO 8601 string" },
  { section: "2.11", subjects: V5_RESPONSES, field: "serviceUid", type: "string", says: "envelope serviceUid" },
  { section: "2.11", subjects: V5_RESPONSES, field: "trace", type: "string", says: "envelope trace" },
  { section: "2.11", subjects: V5_RESPONSES, field: "path", type: "string", says: "envelope path" },
  { section: "2.11", subjects: V5_RESPONSES, field: "pathParams", type: "object", says: "envelope pathParams: object" },
  { section: "2.11", subjects: V5_RESPONSES, field: "statusCode", type: "number", meaning: "statusCodeIsHttpStatus", says: "envelope statusCode: number" },
  { section: "2.11", subjects: V5_RESPONSES, field: "message", type: "string", says: "envelope message" },
  { section: "2.11", subjects: V5_RESPONSES, field: "help", type: "string", nullable: true, says: "envelope help: string or null" },
  { section: "2.11", subjects: V5_RESPONSES, field: "status", values: ["success", "error"], says: "envelope status: `success` or `error`" },
  { section: "2.11", subjects: V5_RESPONSES, field: "data", type: "object", nullable: true, says: "envelope data: object or null" },
  { section: "2.11", subjects: V5_RESPONSES, field: "error", type: "object", nullable: true, says: "envelope error: object or null" },
  { section: "4.6", subjects: ["v5.get.response"], field: "statusCode", values: [200], says: "GET /v5/verifications/:trace success: HTTP 200" },
  {
    section: "4.6",
    subjects: ["v5.get.response"],
    field: "pathParams.trace",
    type: "string",
    meaning: "pathParamIsTrace",
    says: "path parameter `trace` (string)",
  },
  { section: "4.6", subjects: ["v5.get.response"], field: "data", type: "object", says: "envelope with `data` as in 2.11 (verification detail)" },
  ...DETAIL_FIELDS().map(
    ([field, type, when, meaning]): Statement => ({
      section: "2.11",
      subjects: ["v5.get.detail"],
      field,
      type,
      ...(when ? { when } : {}),
      ...(meaning ? { meaning } : {}),
      says: `verification detail: ${field} (${type})`,
    }),
  ),
  { section: "2.11", subjects: ["v5.get.detail"], field: "timestamp", format: "unix-ms", says: "verification detail: timestamp (number, milliseconds)" },
  { section: "7", subjects: V5_ERRORS, field: "status", values: ["error"], says: "v5 error envelope: status = `error`" },
  { section: "7", subjects: V5_ERRORS, field: "data", values: [null], says: "v5 error envelope: data = null" },
  { section: "7", subjects: ["v5.error.474"], field: "statusCode", values: [474], says: "too_many_attempts: HTTP 474" },
  { section: "7", subjects: ["v5.error.474"], field: "error.type", values: ["too_many_attempts"], says: "error type too_many_attempts" },
  { section: "7", subjects: ["v5.error.475"], field: "statusCode", values: [475], says: "submission_conflict: HTTP 475" },
  { section: "7", subjects: ["v5.error.475"], field: "error.type", values: ["submission_conflict"], says: "error type submission_conflict" },
  { section: "7", scenario: "conflictStoresNothing", says: "475: the second is not stored and no attempt starts" },
  { section: "7", subjects: ["v5.error.422"], field: "statusCode", values: [422], says: "validation_error: HTTP 422" },
  { section: "7", subjects: ["v5.error.422"], field: "message", values: ["Validation error"], says: "validation_error: `message` is `Validation error`" },
  { section: "7", subjects: ["v5.error.422"], field: "error.type", values: ["validation_error"], says: "error = `{ type, details }`" },
  { section: "7", subjects: ["v5.error.422"], field: "error.details", type: "array", meaning: "nonEmpty", says: "error = `{ type, details }` (details)" },
  {
    section: "7",
    subjects: ["v5.error.422.detail"],
    field: "message",
    type: "string",
    says: "each item of error.details is `{ message, code, path }` (message)",
  },
  { section: "7", subjects: ["v5.error.422.detail"], field: "code", type: "string", says: "each item of error.details: code" },
  {
    section: "7",
    subjects: ["v5.error.422.detail"],
    field: "path",
    type: "array of string",
    says: "each item of error.details: `path` is an array of property names",
  },
];

/** The verification detail's fields (2.11): [field, type, when (present only if the caller sent it), meaning]. */
function DETAIL_FIELDS(): [string, FieldType, string?, string?][] {
  return [
    ["trace", "string", undefined, "pathParamIsTrace"],
    ["submissionId", "string"],
    ["country", "string", "gaveCountry"],
    ["type", "string", undefined, "typeAsSent"],
    ["subType", "string", "gaveSubType"],
    ["name", "string", undefined, "nameAsSent"],
    ["industry", "string", "gaveIndustry"],
    ["website", "string", "gaveWebsite"],
    ["identifiers", "object", "gaveIdentifiers"],
    ["addresses", "object", "gaveAddresses"],
    ["inputRisk", "string", "gaveInputRisk", "inputRiskAsSent"],
    ["other", "array"],
    ["submissionStatus", "string"],
    ["verificationStatus", "string"],
    ["message", "string"],
    ["timestamp", "number"],
    ["idvRiskScore", "string"],
  ];
}

/** Section 3: the notes of the status table, the transition table and the attempt rules. */
const states: readonly Statement[] = [
  { section: "3", scenario: "newSendsNoWebhook", says: "new: Defined; webhooks for it are currently not sent" },
  { section: "3", scenario: "pendingAfterRetry", says: "pending: for an individual this also follows a rejection when the individual retries" },
  { section: "3", scenario: "verifiedReachable", says: "verified: Verification succeeded (reached by processing, with its webhook)" },
  { section: "3", scenario: "rejectedReachable", says: "rejected: Verification unsuccessful (reached by processing, with its webhook)" },
  { section: "3", scenario: "infoEntitiesOnly", says: "info: Legal entities only" },
  { section: "3", scenario: "lockedOlderFormat", says: "locked: Too many unsuccessful attempts (older webhook format)" },
  { section: "3", scenario: "errorDetailsCall", says: "error: details are fetched by the details call" },
  { section: "3", scenario: "removedStakeholdersOnly", says: "removed: Stakeholder webhooks only: an individual was marked as removed" },
  {
    section: "3",
    scenario: "submissionLockedRefuses",
    says: "submissionStatus `locked`: the attempt cap is exhausted and no further resubmissions are accepted",
  },
  {
    section: "3",
    scenario: "submitInitialWebhook",
    says: "(none) → pending on submission: an initial webhook is sent with the same content as the HTTP response",
  },
  { section: "3", scenario: "completeSendsWebhook", says: "pending → verified, rejected or info when processing completes: webhook sent" },
  {
    section: "3",
    scenario: "retryIncrementsAttempt",
    says: "rejected → pending when the individual retries, `attempt` below `maxAttempts` and not locked: `attempt` increases by 1",
  },
  {
    section: "3",
    scenario: "lockAt474",
    says: "rejected, attempt cap exhausted: stays rejected with submissionStatus `locked`, error `too_many_attempts` (HTTP 474), data not re-verified",
  },
  { section: "3", scenario: "complianceSendsWebhook", says: "any → changed status by an automated compliance check: webhook sent" },
  { section: "3", scenario: "removedStakeholderWebhook", says: "individual in an entity marked as removed → removed: stakeholder webhook" },
  { section: "3", scenario: "attemptStartsAtOne", says: "The attempt counter `attempt` starts at 1" },
  {
    section: "3",
    scenario: "capRaisable",
    says: "The cap is in `maxAttempts` (default cap observed is 5, but the field value governs; it can be raised per verification)",
  },
  { section: "3", scenario: "finalWithoutCap", says: "A rejection is final when `maxAttempts` is absent" },
  { section: "6.1", scenario: "timestampIncreases", says: "For a verification, `timestamp` always increases" },
];

export const STATEMENTS: readonly Statement[] = [...current, ...older, ...responses, ...states];
