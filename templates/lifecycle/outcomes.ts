/**
 * The life cycle's rules as one value (the generator fills it from spec/statuses.yaml), and the outcome a
 * receiver reads from a status (the service's specification, section 6.2), where `rejected` is decided
 * by the retry condition.
 */
import { evaluateCondition, type ConditionExpr } from "./conditions.js";
import type { StatusRule, VerificationStatus, WebhookOutcome } from "./statuses.js";
import type { TransitionRule } from "./transitions.js";

/** The life cycle as data: statuses, outcomes, named conditions, the transition table and the retry condition. */
export interface LifecycleRules {
  /** per verificationStatus value: meaning (the service's specification, section 3) and how a receiver reads it (6.2) */
  readonly statuses: Readonly<Record<VerificationStatus, StatusRule>>;
  /** guidance text per outcome, from the spec */
  readonly outcomes: Readonly<Record<WebhookOutcome, string>>;
  /** named conditions, from the spec */
  readonly conditions: Readonly<Record<string, ConditionExpr>>;
  /** transition table, section 3 of the service's specification: from (null = no prior state, "any" = any state) to the listed states */
  readonly transitions: readonly TransitionRule[];
  /** the named condition under which a `rejected` verification can still be retried (the service's specification, sections 3 and 6.2) */
  readonly retryCondition: string;
  /** the outcomes a status decided by attempts reads as: `retry` while the retry condition holds, else `final` (statuses.yaml attempts.rejectionOutcomes) */
  readonly rejectionOutcomes: { readonly retry: WebhookOutcome; readonly final: WebhookOutcome };
}

/** The fields the outcome of a status is read from; both payload formats carry them (sections 6.2, 6.3). */
export interface StatusFields {
  readonly verificationStatus?: unknown;
  readonly submissionStatus?: unknown;
  readonly attempt?: unknown;
  readonly maxAttempts?: unknown;
}

/**
 * A rejection can be retried only when the spec's retry condition holds (the service's specification, sections 3 and 6.2: `attempt` below
 * `maxAttempts` and the submission not locked; "attempt alone does not show that a retry is possible").
 */
export function rejectionOutcome(rules: LifecycleRules, fields: StatusFields): WebhookOutcome {
  const { retry, final } = rules.rejectionOutcomes;
  return evaluateCondition(rules, { ref: rules.retryCondition }, fields as Record<string, unknown>) ? retry : final;
}

/** The outcome of a known status for these fields: its own, or for a status decided by attempts the retry condition's. */
export function statusOutcome(rules: LifecycleRules, status: VerificationStatus, fields: StatusFields): WebhookOutcome {
  const entry = rules.statuses[status]!;
  return entry.outcome === "by_attempts" ? rejectionOutcome(rules, fields) : entry.outcome;
}
