/**
 * The statuses of the life cycle (the service's specification, section 3) and how a receiver reads each
 * (section 6.2), taken as data: the generator fills `LifecycleRules` from spec/statuses.yaml; nothing here
 * hard-codes a status or outcome name (generated/webhooks.d.ts narrows `WebhookOutcome` to the spec's outcomes).
 *
 * Two statuses share the name `locked` and are different things: the verification status `locked` (older
 * webhook format: too many unsuccessful attempts; its outcome is `locked`) and the submission status
 * `locked` (statuses.yaml `locksResubmission`: no further resubmission is accepted). The code keeps them
 * apart by type: a `VerificationStatus` is a value of `verificationStatus`, a `SubmissionStatus` one of
 * `submissionStatus`; the sandbox names the latter `lockingSubmissionStatus`.
 */
/** A value of a verification's `verificationStatus` (section 3). */
export type VerificationStatus = string;
/** A value of a verification's `submissionStatus` (section 3); not a `VerificationStatus`, even where the names agree. */
export type SubmissionStatus = string;

/** How a receiver reads a verification status (section 6.2): a key of statuses.yaml `outcomes`. */
export type WebhookOutcome = string;

/** One verification status: its meaning (section 3) and how a receiver reads it (6.2). */
export interface StatusRule {
  readonly meaning: string;
  /** `by_attempts` (a keyword of the spec's format): decided by the retry condition (`LifecycleRules.rejectionOutcomes`). */
  readonly outcome: WebhookOutcome | "by_attempts";
  readonly guidance: string;
  /** A named condition the verification must meet to take this status (e.g. `info` for entities only). */
  readonly onlyWhen?: string;
}
