/** A `WebhookRules` value written by hand from the seed (sections 3, 6.2, 8), standing in for the generated one. */
import { signWebhookWith, type SignWebhookInput, type WebhookRules } from "../../templates/webhooks/index.js";

const ALL_STATUSES = ["new", "pending", "verified", "rejected", "info", "locked", "error", "removed"];

export const fixtureRules: WebhookRules = {
  toleranceMs: 5 * 60 * 1000, // seed: 8, "plus or minus 5 minutes"
  // seed: 6.4, the header names and digest prefixes of both versions
  signatures: {
    versionHeader: "X-Svc-Signature-version",
    v2: { name: "X-Svc-Signature", prefix: "sha256=", version: "2" },
    v1: {
      version: "1",
      sha: { name: "X-Svc-Signature-SHA", prefix: "svc_sec_sha256_" },
      keccak: { name: "X-Svc-Signature-KECCAK", prefix: "svc_sec_keccak256_" },
    },
  },
  statuses: {
    new: {
      meaning: "Defined; webhooks for it are currently not sent.",
      outcome: "processing",
      guidance: "Not processed yet; webhooks for it are currently not sent.",
    },
    pending: {
      meaning: "Waiting for processing (for an individual this also follows a rejection when the individual retries).",
      outcome: "processing",
      guidance: "Processing, or a new attempt after a rejection; wait for the next webhook.",
    },
    verified: { meaning: "Verification succeeded.", outcome: "verified", guidance: "Verification succeeded." },
    rejected: { meaning: "Verification unsuccessful.", outcome: "by_attempts", guidance: "Decided by attempt, maxAttempts and submissionStatus." },
    info: {
      meaning: "Legal entities only: additional information (individuals or documents) is required.",
      outcome: "fetch_details",
      guidance: "Fetch the details (GET /v5/verifications/:trace) to see which individuals or documents are required.",
    },
    locked: {
      meaning: "Too many unsuccessful attempts (older webhook format).",
      outcome: "locked",
      guidance: "Too many unsuccessful attempts; no further resubmissions.",
    },
    error: {
      meaning: "Error scenario; details are fetched by the details call.",
      outcome: "fetch_details",
      guidance: "Fetch the details (GET /v5/verifications/:trace) to see the error.",
    },
    removed: {
      meaning: "Stakeholder webhooks only: an individual was marked as removed.",
      outcome: "stakeholder_removed",
      guidance: "The individual was removed from the entity; match parentTrace to the entity's trace.",
    },
  },
  outcomes: {
    processing: "Processing (or a new attempt after rejection).",
    verified: "Verification succeeded.",
    retry_possible: "Rejected; attempt is below maxAttempts and the submission is not locked, so a retry is possible.",
    final_rejection: "Rejected and final: the submission is locked or retries are not capped by maxAttempts.",
    fetch_details: "Fetch the details by the details call.",
    stakeholder_removed: "A stakeholder was removed from the entity.",
    locked: "Too many unsuccessful attempts (older webhook format).",
  },
  transitions: [
    { id: "submit", from: null, to: ["pending"], trigger: "submission via API or portal", condition: "always" },
    { id: "complete", from: "pending", to: ["verified", "rejected", "info"], trigger: "processing completes" },
    { id: "followUp", from: "info", to: [], trigger: "follow-up request with the requested actions" },
    {
      id: "retry",
      from: "rejected",
      to: ["pending"],
      when: { ref: "canRetry" },
      trigger: "individual retries",
      condition: "attempt below maxAttempts and submissionStatus not locked",
    },
    { id: "lock", from: "rejected", to: ["rejected"], trigger: "resubmission", condition: "attempt cap exhausted", when: { ref: "capExhausted" } },
    {
      id: "compliance",
      from: "any",
      to: ALL_STATUSES.filter((status) => status !== "new"),
      trigger: "automated compliance check, portal edit, or manual re-send from the portal",
      condition: "status changes",
    },
    { id: "remove", from: "any", to: ["removed"], when: { ref: "isStakeholder" }, trigger: "individual in an entity marked as removed" },
    {
      id: "removeFirst",
      from: null,
      to: ["removed"],
      when: { ref: "isStakeholder" },
      trigger: "individual in an entity marked as removed",
      condition: "may be the first webhook for that individual",
    },
  ],
  conditions: {
    canRetry: {
      all: [
        { field: "attempt", below: "maxAttempts" },
        { field: "submissionStatus", notEquals: "locked" },
      ],
    },
    capExhausted: { not: { ref: "canRetry" } },
    isStakeholder: { field: "parentTrace", present: true },
  },
  retryCondition: "canRetry",
  rejectionOutcomes: { retry: "retry_possible", final: "final_rejection" },
};

/** Signs as the service does, with the fixture's scheme (the kit's signWebhook, without a kit). */
export const signWebhook = (input: SignWebhookInput): Record<string, string> => signWebhookWith(fixtureRules.signatures, input);
