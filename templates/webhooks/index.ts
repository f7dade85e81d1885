/**
 * verispec webhook runtime: verify, sign, order and interpret the service's webhooks (the service's specification, sections 3, 6, 8, 9).
 * The rules (tolerance, and the life cycle's statuses and transitions from ../lifecycle/) are data from the spec, given to `createWebhookKit`.
 */
import { MemoryReplayStore, type ReplayStore } from "./replay.js";
import { canTransition, type WebhookOutcome } from "../lifecycle/index.js";
import { interpretWebhook, type WebhookInterpretation, type WebhookRules } from "./interpret.js";
import { signWebhookWith, type SignWebhookInput } from "./signature.js";
import { verifyWebhookWith, type ValidatePayload, type VerifiedWebhook, type VerifyWebhookInput } from "./verify.js";
import { verifyWebhookRequestWith, type WebhookRequestOptions } from "./request.js";

export interface WebhookKitConfig {
  readonly rules: WebhookRules;
  /** Runs after the body is parsed; a failure is `invalid_payload` with these errors attached. */
  readonly validatePayload?: ValidatePayload;
  /** Used when a `verifyWebhook` call passes no `replayStore`; default: a new `MemoryReplayStore`. */
  readonly replayStore?: ReplayStore;
}

/** `V5`, `V4`: the payload types of each format; `O`: the spec's outcomes (generated/webhooks.d.ts passes their names). */
export interface WebhookKit<V5 = unknown, V4 = unknown, O extends WebhookOutcome = WebhookOutcome> {
  /** Verifies a delivery; see `verify.ts` for the order of checks. Throws `WebhookVerificationError`. */
  verifyWebhook(input: VerifyWebhookInput): Promise<VerifiedWebhook<V5, V4>>;
  /**
   * Verifies a Fetch API `Request` (Hono, Next.js route handlers, Workers, Deno, Bun): reads its exact
   * bytes within `maxBodyBytes`, then `verifyWebhook`. Refusals map to a status with `webhookRefusal`.
   */
  verifyWebhookRequest(request: Request, options: WebhookRequestOptions): Promise<VerifiedWebhook<V5, V4>>;
  /** Headers a sender attaches (tests, local tools). */
  signWebhook(input: SignWebhookInput): Record<string, string>;
  /** What a verified payload's status means for the receiver (the service's specification, sections 3, 6.2). */
  interpretWebhook(payload: V5 | V4): WebhookInterpretation<O>;
  /** Whether the specification's transition table allows `from` → `to`; `from` null is "no prior state". */
  canTransition(from: string | null, to: string, fields?: Readonly<Record<string, unknown>>): boolean;
}

export function createWebhookKit<V5 = unknown, V4 = unknown, O extends WebhookOutcome = WebhookOutcome>(config: WebhookKitConfig): WebhookKit<V5, V4, O> {
  const { rules, validatePayload } = config;
  const context = {
    scheme: rules.signatures,
    toleranceMs: rules.toleranceMs,
    validatePayload,
    defaultReplayStore: config.replayStore ?? new MemoryReplayStore(),
  };
  const verifyWebhook = (input: VerifyWebhookInput) => verifyWebhookWith<V5, V4>(context, input);
  return {
    verifyWebhook,
    verifyWebhookRequest: (request, options) => verifyWebhookRequestWith(verifyWebhook, request, options),
    signWebhook: (input) => signWebhookWith(rules.signatures, input),
    interpretWebhook: (payload) => interpretWebhook(rules, payload) as WebhookInterpretation<O>,
    canTransition: (from, to, fields) => canTransition(rules, from, to, fields),
  };
}

export { isWebhookVerificationError, WEBHOOK_VERIFICATION_REASONS, WebhookVerificationError } from "./errors.js";
export type { WebhookPayloadIssue, WebhookVerificationReason } from "./errors.js";
export type { HeaderGetter, WebhookHeaders } from "./headers.js";
export { createOrderingGuard, MemoryOrderingState } from "./ordering.js";
export type { MemoryOrderingStateOptions, OrderingGuard, OrderingRecord, OrderingState } from "./ordering.js";
export { MemoryReplayStore, ReplayStoreUnavailableError } from "./replay.js";
export { DEFAULT_MAX_WEBHOOK_BODY_BYTES, WebhookBodyTooLargeError, webhookRefusal, webhookRefusalResponse } from "./request.js";
export type { VerifyWebhookFunction, WebhookRefusal, WebhookRequestOptions } from "./request.js";
export type { MemoryReplayStoreOptions, ReplayStore } from "./replay.js";
// RedisReplayStore: its own module, redis.ts (`verispec/webhooks/redis`).
// The life cycle (statuses, conditions, transitions) has its home in ../lifecycle/; re-exported for receivers.
export { evaluateCondition, findTransitions } from "../lifecycle/index.js";
export type { ConditionExpr, TransitionRule, WebhookOutcome } from "../lifecycle/index.js";
export type { WebhookInterpretation, WebhookRules } from "./interpret.js";
export { signWebhookWith } from "./signature.js";
export type { DigestHeader, RawBody, SignatureScheme, SignatureVersion, SignWebhookInput, SigningSecret } from "./signature.js";
export { isV5Payload, payloadTimestampMs } from "./timestamp.js";
export type { ValidatePayload, VerifiedWebhook, VerifyWebhookInput } from "./verify.js";
