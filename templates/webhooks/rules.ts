/**
 * Status meanings, receiver outcomes and the transition table, taken as data.
 * The generator fills a `WebhookRules` value from the spec YAML; nothing here
 * hard-codes a status name (the service's specification, sections 3, 6.2).
 */

export type WebhookOutcome =
  | "processing"
  | "verified"
  | "retry_possible"
  | "final_rejection"
  | "fetch_details"
  | "stakeholder_removed"
  | "locked";

export interface WebhookRules {
  /** section 6.4 of the service's specification / 8: plus or minus this many ms, inclusive */
  readonly toleranceMs: number;
  /** per verificationStatus value: meaning (the service's specification, section 3) and how a receiver reads it (6.2) */
  readonly statuses: Readonly<
    Record<string, { readonly meaning: string; readonly outcome: WebhookOutcome | "by_attempts"; readonly guidance: string }>
  >;
  /** guidance text per outcome, from the spec */
  readonly outcomes: Readonly<Record<WebhookOutcome, string>>;
  /** transition table, section 3 of the service's specification: from (null = no prior state, "any" = any state) to the listed states */
  readonly transitions: ReadonlyArray<{
    readonly from: string | null;
    readonly to: readonly string[];
    readonly trigger: string;
    readonly condition?: string;
  }>;
  /** submissionStatus value meaning "no further resubmissions" ("locked" in the service's specification) */
  readonly lockedSubmissionStatus: string;
}

export interface WebhookInterpretation {
  readonly outcome: WebhookOutcome;
  /** What the receiver should do. For a status decided by attempts this is the outcome's text, else the status's. */
  readonly guidance: string;
  /** The payload's `verificationStatus`. */
  readonly status: string;
  /** The specification's meaning of that status (section 3). */
  readonly meaning: string;
}

/** The fields `interpretWebhook` reads; both payload formats carry them (the service's specification, sections 6.2, 6.3). */
interface StatusFields {
  readonly verificationStatus?: unknown;
  readonly submissionStatus?: unknown;
  readonly attempt?: unknown;
  readonly maxAttempts?: unknown;
}

/**
 * A rejection can be retried only when `maxAttempts` is present, `attempt` is below it and the
 * submission is not locked; otherwise it is final (the service's specification, section 3, 6.2 — "attempt alone does not show
 * that a retry is possible").
 */
export function rejectionOutcome(rules: WebhookRules, payload: StatusFields): "retry_possible" | "final_rejection" {
  const { attempt, maxAttempts, submissionStatus } = payload;
  const capped = typeof maxAttempts === "number" && Number.isFinite(maxAttempts);
  const below = capped && typeof attempt === "number" && attempt < maxAttempts;
  const locked = submissionStatus === rules.lockedSubmissionStatus;
  return below && !locked ? "retry_possible" : "final_rejection";
}

/**
 * What a verified webhook means for the receiver. Throws a `RangeError` for a status the rules do
 * not know: guessing would risk treating an unknown state as success.
 */
export function interpretWebhook(rules: WebhookRules, payload: unknown): WebhookInterpretation {
  if (typeof payload !== "object" || payload === null) {
    throw new TypeError("interpretWebhook: payload must be an object");
  }
  const fields = payload as StatusFields;
  const status = fields.verificationStatus;
  if (typeof status !== "string" || !Object.hasOwn(rules.statuses, status)) {
    throw new RangeError(`interpretWebhook: unknown verificationStatus ${describeValue(status)}`);
  }
  const entry = rules.statuses[status]!;
  if (entry.outcome === "by_attempts") {
    const outcome = rejectionOutcome(rules, fields);
    return { outcome, guidance: rules.outcomes[outcome], status, meaning: entry.meaning };
  }
  return { outcome: entry.outcome, guidance: entry.guidance, status, meaning: entry.meaning };
}

/**
 * Whether the transition table allows `from` → `to` (the service's specification, section 3). `from` null is "no prior state";
 * a row with `from: "any"` applies to every status the rules know (not to null: "no state" is not a state).
 * Conditions are descriptive text and are not evaluated here.
 */
export function canTransition(rules: WebhookRules, from: string | null, to: string): boolean {
  return rules.transitions.some((row) => fromMatches(rules, row.from, from) && row.to.includes(to));
}

function fromMatches(rules: WebhookRules, rowFrom: string | null, from: string | null): boolean {
  if (rowFrom === from) return true;
  return rowFrom === "any" && from !== null && Object.hasOwn(rules.statuses, from);
}

function describeValue(value: unknown): string {
  if (typeof value !== "string") return `(${value === null ? "null" : typeof value})`;
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}
