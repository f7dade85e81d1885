import type { ServiceIssue } from "./types.js";

// Names are set on the prototype in static blocks, not taken from the class name:
// minifiers rename classes, and the prototype value is in place before the stack is captured.

/**
 * Base of every error the client raises. Misuse (bad path, credentials passed by the caller)
 * is a TypeError; a caller's own abort rethrows the caller's AbortError unchanged.
 *
 * Stored bodies are redacted before they get here: no secret, no Authorization value.
 */
export class VerispecError extends Error {
  declare readonly status?: number;
  /** `trace` of the v5 envelope, when the response had one. */
  declare readonly trace?: string;
  /** Response body: parsed JSON, or raw text when not JSON; for validation errors the data checked. Redacted. */
  declare readonly body?: unknown;
  static {
    VerispecError.prototype.name = "VerispecError";
  }
  /** `init` becomes own fields (status, trace, body, details, cause...). */
  constructor(message: string, init?: object) {
    super(message);
    Object.assign(this, init);
  }
  toJSON(): object {
    return { ...this, name: this.name, message: this.message };
  }
}

/**
 * The service's validation error (the service's specification, section 7; errors.yaml role `validation`). `details` are the service's `{message, code, path}` items.
 * Raised locally by `validate: true` with the same details, the `schemaId` and no `status` (nothing was sent).
 */
export class ValidationError extends VerispecError {
  declare readonly details: ServiceIssue[];
  declare readonly schemaId?: string;
  static {
    ValidationError.prototype.name = "ValidationError";
  }
}

/** The error of a resubmission past the attempt cap (the service's specification, section 7; errors.yaml role `attemptsExhausted`): data not re-verified. */
export class TooManyAttemptsError extends VerispecError {
  static {
    TooManyAttemptsError.prototype.name = "TooManyAttemptsError";
  }
}

/**
 * The error of a resubmission while another is in flight (the service's specification, section 7; errors.yaml role
 * `resubmissionInFlight`): wait for the first resubmission's outcome, then retry.
 */
export class SubmissionConflictError extends VerispecError {
  static {
    SubmissionConflictError.prototype.name = "SubmissionConflictError";
  }
}

/** Any other non-2xx response. */
export class HttpError extends VerispecError {
  declare readonly status: number;
  static {
    HttpError.prototype.name = "HttpError";
  }
}

/** The client's timeout fired (per attempt). */
export class TimeoutError extends VerispecError {
  static {
    TimeoutError.prototype.name = "TimeoutError";
  }
}

/** fetch rejected (connection refused, reset, DNS...); the original error is `cause`. */
export class NetworkError extends VerispecError {
  declare readonly cause: unknown;
  static {
    NetworkError.prototype.name = "NetworkError";
  }
}

/** A 2xx body did not match its schema: the service's spec drifted from the generated one. */
export class ResponseValidationError extends VerispecError {
  declare readonly schemaId: string;
  /** The validator's issues, `{message, code, path}` like ValidationError's. */
  declare readonly details: ServiceIssue[];
  static {
    ResponseValidationError.prototype.name = "ResponseValidationError";
  }
}

/**
 * The service answered 3xx. Redirects are never followed, so nothing (body, credentials, Authorization)
 * goes to `targetOrigin`; `status` is 0 in browsers, which hide a redirect's status and target.
 */
export class RedirectError extends VerispecError {
  declare readonly status: number;
  declare readonly targetOrigin?: string;
  static {
    RedirectError.prototype.name = "RedirectError";
  }
}

/** A 2xx whose body is not JSON (HTML, text) or is empty, for an operation that answers JSON. `body`: a redacted excerpt. */
export class ResponseFormatError extends VerispecError {
  declare readonly status: number;
  static {
    ResponseFormatError.prototype.name = "ResponseFormatError";
  }
}

/** The response body exceeded `maxResponseBytes`; reading stopped there. */
export class ResponseTooLargeError extends VerispecError {
  declare readonly status: number;
  static {
    ResponseTooLargeError.prototype.name = "ResponseTooLargeError";
  }
}
