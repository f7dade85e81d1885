// Emits generated/webhooks.ts: the webhook runtime (templates/webhooks) bound to the spec's statuses,
// outcomes, transitions and timestamp tolerance. Only data comes from here; the logic is the template's.
import type { Model } from "../model/types.js";
import { BANNER, type OutputFile } from "./output.js";

export function webhookRules(model: Model) {
  const locked = model.submissionStatuses.find((s) => s.locksResubmission);
  if (!locked) throw new Error("statuses.yaml: no submission status locks resubmission");
  return {
    toleranceMs: model.webhookToleranceMs,
    statuses: Object.fromEntries(
      model.verificationStatuses.map((s) => [
        s.value,
        { meaning: s.meaning, outcome: s.outcome, guidance: s.outcome === "by_attempts" ? "" : model.outcomes[s.outcome]!.guidance },
      ]),
    ),
    outcomes: Object.fromEntries(Object.entries(model.outcomes).map(([k, o]) => [k, o.guidance])),
    transitions: model.transitions.map((t) => ({ from: t.from, to: t.to, trigger: t.trigger, ...(t.condition ? { condition: t.condition } : {}) })),
    lockedSubmissionStatus: locked.value,
  };
}

export function emitWebhooks(model: Model): OutputFile[] {
  const rules = JSON.stringify(webhookRules(model), null, 2);
  const text = `// ${BANNER}
// Webhook verification bound to the spec (seed: 3, 6, 8). The logic is in runtime/webhooks/.
import { createWebhookKit, type WebhookKit, type WebhookRules } from "./runtime/webhooks/index.js";

/** Statuses, receiver outcomes, transitions and the timestamp tolerance, from the spec YAML. */
export const webhookRules: WebhookRules = ${rules};

const kit: WebhookKit = createWebhookKit({ rules: webhookRules });

/** Verifies a received webhook (signature version 1 or 2, timestamp, replay) and returns its payload. */
export const verifyWebhook: WebhookKit["verifyWebhook"] = kit.verifyWebhook;
/** Signs a payload as the service does, for tests and local tools. */
export const signWebhook: WebhookKit["signWebhook"] = kit.signWebhook;
/** What a payload's status means for the receiver (seed: 6.2). */
export const interpretWebhook: WebhookKit["interpretWebhook"] = kit.interpretWebhook;
/** Whether the transition table of seed 3 allows going from one status to another. */
export const canTransition: WebhookKit["canTransition"] = kit.canTransition;

export {
  createOrderingGuard, isWebhookVerificationError, MemoryOrderingState, MemoryReplayStore, RedisReplayStore,
  WEBHOOK_VERIFICATION_REASONS, WebhookVerificationError,
} from "./runtime/webhooks/index.js";
export type * from "./runtime/webhooks/index.js";
`;
  return [{ path: "webhooks.ts", contents: text }];
}
