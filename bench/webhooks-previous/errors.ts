/** Why a delivery was refused. The order of checks is documented on `verifyWebhook`. */
export type WebhookVerificationReason =
  | "missing_signature"
  | "malformed_signature"
  | "signature_mismatch"
  | "timestamp_out_of_tolerance"
  | "replayed"
  | "unsupported_version"
  | "invalid_payload";

export const WEBHOOK_VERIFICATION_REASONS: readonly WebhookVerificationReason[] = [
  "missing_signature",
  "malformed_signature",
  "signature_mismatch",
  "timestamp_out_of_tolerance",
  "replayed",
  "unsupported_version",
  "invalid_payload",
];

/** One payload validation problem, shaped like the service's own validation details (the service's specification, section 7). */
export interface WebhookPayloadIssue {
  readonly message: string;
  readonly code: string;
  readonly path: ReadonlyArray<string | number>;
}

/**
 * A refused delivery. The message is fixed text chosen by verispec: it never contains the signing
 * key, header values or body text, so it is safe to log as is.
 */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookVerificationReason;
  /** Present for `invalid_payload`. */
  readonly errors: readonly WebhookPayloadIssue[] | undefined;

  constructor(reason: WebhookVerificationReason, message: string, errors?: readonly WebhookPayloadIssue[]) {
    super(message);
    this.reason = reason;
    this.errors = errors;
  }

  toJSON(): { name: string; reason: WebhookVerificationReason; message: string; errors?: readonly WebhookPayloadIssue[] } {
    return this.errors === undefined
      ? { name: this.name, reason: this.reason, message: this.message }
      : { name: this.name, reason: this.reason, message: this.message, errors: this.errors };
  }
}

/** Duck-typed check that also works across copies of this module (e.g. generated vs template). */
export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  if (!(value instanceof Error) || value.name !== "WebhookVerificationError") return false;
  const reason = (value as { reason?: unknown }).reason;
  return typeof reason === "string" && (WEBHOOK_VERIFICATION_REASONS as readonly string[]).includes(reason);
}
