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

/**
 * A condition as data (spec/statuses.yaml `conditions`), over the fields of a payload or verification:
 * `all`/`any`/`not`, `ref` to a named condition, or a test of one field. An absent (or null) field
 * passes only `present: false` and `notEquals`; `below`/`atLeast` compare two finite numbers.
 */
export type ConditionExpr =
  | { readonly all: readonly ConditionExpr[] }
  | { readonly any: readonly ConditionExpr[] }
  | { readonly not: ConditionExpr }
  | { readonly ref: string }
  | { readonly field: string; readonly equals: string | number | boolean }
  | { readonly field: string; readonly notEquals: string | number | boolean }
  | { readonly field: string; readonly below: string }
  | { readonly field: string; readonly atLeast: string }
  | { readonly field: string; readonly present: boolean };

/** One row of the transition table (the service's specification, section 3). */
export interface TransitionRule {
  readonly id?: string;
  /** null = no prior state, "any" = any state */
  readonly from: string | null;
  readonly to: readonly string[];
  readonly trigger: string;
  /** The specification's words for the condition. */
  readonly condition?: string;
  /** The condition as data; absent: always. */
  readonly when?: ConditionExpr;
  readonly effects?: { readonly increment?: string; readonly set?: Readonly<Record<string, string | number | boolean>> };
  readonly error?: string;
}

export interface WebhookRules {
  /** section 6.4 of the service's specification / 8: plus or minus this many ms, inclusive */
  readonly toleranceMs: number;
  /** per verificationStatus value: meaning (the service's specification, section 3) and how a receiver reads it (6.2) */
  readonly statuses: Readonly<
    Record<string, { readonly meaning: string; readonly outcome: WebhookOutcome | "by_attempts"; readonly guidance: string; readonly onlyWhen?: string }>
  >;
  /** guidance text per outcome, from the spec */
  readonly outcomes: Readonly<Record<WebhookOutcome, string>>;
  /** named conditions, from the spec */
  readonly conditions: Readonly<Record<string, ConditionExpr>>;
  /** transition table, section 3 of the service's specification: from (null = no prior state, "any" = any state) to the listed states */
  readonly transitions: readonly TransitionRule[];
  /** the named condition under which a `rejected` verification can still be retried (the service's specification, sections 3 and 6.2) */
  readonly retryCondition: string;
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
 * Evaluates a condition over `fields`. Unknown `ref` names throw: the generator checks them, so one here
 * means hand-made rules with a typo, which must not read as "condition false".
 */
export function evaluateCondition(rules: Pick<WebhookRules, "conditions">, expr: ConditionExpr, fields: Readonly<Record<string, unknown>>): boolean {
  if ("all" in expr) return expr.all.every((e) => evaluateCondition(rules, e, fields));
  if ("any" in expr) return expr.any.some((e) => evaluateCondition(rules, e, fields));
  if ("not" in expr) return !evaluateCondition(rules, expr.not, fields);
  if ("ref" in expr) {
    if (!Object.hasOwn(rules.conditions, expr.ref)) throw new RangeError(`unknown condition ${JSON.stringify(expr.ref)}`);
    return evaluateCondition(rules, rules.conditions[expr.ref]!, fields);
  }
  const value = Object.hasOwn(fields, expr.field) ? fields[expr.field] : undefined;
  const present = value !== undefined && value !== null;
  if ("present" in expr) return present === expr.present;
  if ("notEquals" in expr) return !present || value !== expr.notEquals;
  if (!present) return false;
  if ("equals" in expr) return value === expr.equals;
  const other = Object.hasOwn(fields, "below" in expr ? expr.below : expr.atLeast) ? fields["below" in expr ? expr.below : expr.atLeast] : undefined;
  if (typeof value !== "number" || typeof other !== "number" || !Number.isFinite(value) || !Number.isFinite(other)) return false;
  return "below" in expr ? value < other : value >= other;
}

/**
 * A rejection can be retried only when the spec's retry condition holds (the service's specification, sections 3 and 6.2: `attempt` below
 * `maxAttempts` and the submission not locked; "attempt alone does not show that a retry is possible").
 */
export function rejectionOutcome(rules: WebhookRules, payload: StatusFields): "retry_possible" | "final_rejection" {
  return evaluateCondition(rules, { ref: rules.retryCondition }, payload as Record<string, unknown>) ? "retry_possible" : "final_rejection";
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
 * With `fields` (the verification's or payload's fields) each row's condition and the target status's
 * `onlyWhen` are evaluated; without, the answer is whether any row could allow it.
 */
export function canTransition(rules: WebhookRules, from: string | null, to: string, fields?: Readonly<Record<string, unknown>>): boolean {
  return findTransitions(rules, from, to, fields).length > 0;
}

/** The rows of the table that allow `from` → `to` (conditions evaluated when `fields` is given), in table order. */
export function findTransitions(rules: WebhookRules, from: string | null, to: string, fields?: Readonly<Record<string, unknown>>): TransitionRule[] {
  if (!Object.hasOwn(rules.statuses, to)) return [];
  const target = rules.statuses[to]!;
  if (fields && target.onlyWhen !== undefined && !evaluateCondition(rules, { ref: target.onlyWhen }, fields)) return [];
  return rules.transitions.filter(
    (row) =>
      fromMatches(rules, row.from, from) &&
      (row.to.includes(to) || (row.to.includes("any") && to !== from)) &&
      (!fields || row.when === undefined || evaluateCondition(rules, row.when, fields)),
  );
}

function fromMatches(rules: WebhookRules, rowFrom: string | null, from: string | null): boolean {
  if (rowFrom === from) return true;
  return rowFrom === "any" && from !== null && Object.hasOwn(rules.statuses, from);
}

function describeValue(value: unknown): string {
  if (typeof value !== "string") return `(${value === null ? "null" : typeof value})`;
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}
