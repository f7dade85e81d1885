// Emits generated/sandbox.ts: what `verispec sandbox` takes from the spec (specification sections 3, 4, 7, 8 and the
// sandbox's documented choices of spec/sandbox.yaml), bound to the generated validators and webhook kit.
// Only data comes from here; the behaviour is templates/sandbox/.
import type { Model } from "../model/types.js";
import { BANNER, type OutputFile } from "./output.js";

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`sandbox emitter: ${what} missing from the model`);
  return value;
}

/** The spec facts the sandbox reads, as one plain JSON value. */
export function sandboxSpec(model: Model) {
  const limit = (name: string, key: string) => need(model.limits[name]?.numbers[key], `limits.yaml ${name}.${key}`);
  const payload = (prefix: string) => need(model.webhookPayloads.find((p) => p.schema.startsWith(prefix)), `webhooks.yaml ${prefix} payload`).schema;
  return {
    specVersion: model.versions.specVersion ?? null,
    choices: model.sandbox.choices,
    testValues: model.sandbox.testValues,
    limits: {
      formLifetimeDays: limit("formLifetime", "days"),
      prefilledDataReducedAfterMinutes: limit("formLifetime", "prefilledDataReducedAfterMinutes"),
      formOpens: limit("formOpens", "count"),
      formAttempts: limit("formAttempts", "count"),
    },
    attempts: { startsAt: model.attempts.startsAt, observedDefaultCap: model.attempts.observedDefaultCap },
    // The submission status after which no resubmission is accepted (statuses.yaml locksResubmission).
    lockingSubmissionStatus: need(model.submissionStatuses.find((s) => s.locksResubmission)?.value, "a submission status with locksResubmission"),
    errors: Object.fromEntries(model.errorTypes.map((e) => [e.type, { httpStatus: e.httpStatus, ...(e.message ? { message: e.message } : {}) }])),
    endpoints: Object.fromEntries(
      model.endpoints.map((e) => [e.operationId, { method: e.method, path: e.path, auth: e.auth, ...(e.request ? { request: e.request } : {}), responses: e.responses }]),
    ),
    metadataVersion: model.versions.metadataVersion,
    webhookVersion: model.versions.webhookVersion,
    payloadSchemas: { v5: payload("v5."), older: payload("v4.") },
    olderVerificationStatuses: model.olderVerificationStatuses,
    verificationStatuses: model.verificationStatuses.map((s) => s.value),
    createdMessage: need(model.shapes["v5.VerificationCreateResponse"]?.properties?.["message"]?.examples?.[0] as string | undefined, "v5.VerificationCreateResponse message example"),
  };
}

export function emitSandbox(model: Model): OutputFile[] {
  const text = `// ${BANNER}
// What \`verispec sandbox\` takes from the spec: statuses, transitions and conditions (through the webhook
// rules), limits, errors, endpoints, and the sandbox's documented choices where the service's
// specification is silent (spec/sandbox.yaml). The behaviour is the sandbox runtime's.
import { validate } from "./validators/index.js";
import { signWebhook, webhookRules } from "./webhooks.js";

/** Spec facts and documented choices the sandbox reads. */
export const sandboxSpec = ${JSON.stringify(sandboxSpec(model), null, 2)} as const;

/** Everything the sandbox runtime is bound to: the spec data, the validators and the webhook kit. */
export const sandboxBinding = { spec: sandboxSpec, rules: webhookRules, validate, signWebhook };
`;
  return [{ path: "sandbox.ts", contents: text }];
}
