/**
 * The life cycle of a verification in one home (the service's specification, sections 3, 6.2): statuses,
 * outcomes, named conditions and the transition table as data, and their evaluation. The webhook runtime
 * (`interpretWebhook`, `canTransition`) and the sandbox both read it.
 */
export { evaluateCondition } from "./conditions.js";
export type { ConditionExpr, NamedConditions } from "./conditions.js";
export { rejectionOutcome, statusOutcome } from "./outcomes.js";
export type { LifecycleRules, StatusFields } from "./outcomes.js";
export type { StatusRule, SubmissionStatus, VerificationStatus, WebhookOutcome } from "./statuses.js";
export { canTransition, findTransitions } from "./transitions.js";
export type { TransitionRule, TransitionTable } from "./transitions.js";
