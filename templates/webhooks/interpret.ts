/**
 * What a verified webhook means for its receiver (the service's specification, sections 3, 6.2). The
 * statuses, outcomes, conditions and transitions are the life cycle's (templates/lifecycle/); the
 * webhook rules add the signature's tolerance.
 */
import { statusOutcome, type LifecycleRules, type StatusFields, type WebhookOutcome } from "../lifecycle/index.js";
import type { SignatureScheme } from "./signature.js";

export interface WebhookRules extends LifecycleRules {
  /** section 6.4 of the service's specification / 8: plus or minus this many ms, inclusive */
  readonly toleranceMs: number;
  /** The signature headers' names and digest prefixes (section 6.4, spec/webhooks.yaml signatures). */
  readonly signatures: SignatureScheme;
}

/** `O`: the spec's outcomes (generated/webhooks.d.ts narrows it to their names). */
export interface WebhookInterpretation<O extends WebhookOutcome = WebhookOutcome> {
  readonly outcome: O;
  /** What the receiver should do. For a status decided by attempts this is the outcome's text, else the status's. */
  readonly guidance: string;
  /** The payload's `verificationStatus`. */
  readonly status: string;
  /** The specification's meaning of that status (section 3). */
  readonly meaning: string;
}

/**
 * What a verified webhook means for the receiver. Throws a `RangeError` for a status the rules do
 * not know: guessing would risk treating an unknown state as success.
 */
export function interpretWebhook(rules: LifecycleRules, payload: unknown): WebhookInterpretation {
  if (typeof payload !== "object" || payload === null) {
    throw new TypeError("interpretWebhook: payload must be an object");
  }
  const fields = payload as StatusFields;
  const status = fields.verificationStatus;
  if (typeof status !== "string" || !Object.hasOwn(rules.statuses, status)) {
    throw new RangeError(`interpretWebhook: unknown verificationStatus ${describeValue(status)}`);
  }
  const entry = rules.statuses[status]!;
  const outcome = statusOutcome(rules, status, fields);
  // An outcome of rejectionOutcomes is one of `outcomes` (verispec check, VS307).
  return { outcome, guidance: entry.outcome === "by_attempts" ? rules.outcomes[outcome]! : entry.guidance, status, meaning: entry.meaning };
}

function describeValue(value: unknown): string {
  if (typeof value !== "string") return `(${value === null ? "null" : typeof value})`;
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}
