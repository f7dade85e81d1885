// Contract between the hand-written core and the generated wrapper (generated/client.js).
// Type-only module: contributes nothing to the bundle.

/** One endpoint as the generated wrapper describes it. */
export interface OperationSpec {
  /** e.g. "verify", "v5.getVerification" */
  readonly name: string;
  readonly method: "GET" | "POST";
  /** e.g. "/v5/verifications/{trace}"; null = the service's specification does not show it, the caller supplies `input.path` (the service's specification, section 4.4). */
  readonly path: string | null;
  /** body: older interface, credentials in the JSON body; basic: HTTP Basic serviceUid:secret (the service's specification, section 5). */
  readonly auth: "body" | "basic";
  /** Schema id for `validate: true`; the body is validated after the client added the credentials. */
  readonly requestSchema?: string;
  /** Schema id for `validateResponses: true`. */
  readonly responseSchema?: string;
}

/** Facts from the spec YAML, passed in by the generated wrapper so the core hard-codes none. */
export interface SpecConstants {
  /** Value of `metadata_version` (the service's specification, section 2.1, "4"). */
  readonly olderVersion: string;
  /** The media type of every body (the service's specification, section 4: `application/json`). */
  readonly mediaType: string;
  /** HTTP status -> error type (the service's specification, section 7; errors.yaml). */
  readonly errorTypesByStatus: Readonly<Record<number, string>>;
  /**
   * Error type -> the class the client throws (errors.yaml `role`); any other type is an HttpError. A Map, not an
   * object: an unknown type such as "constructor" must not hit Object.prototype.
   */
  readonly errorClasses: ReadonlyMap<unknown, new (message: string, init?: object) => Error>;
}

/** One validation issue, the shape of the service's `error.details` items (the service's specification, section 7). */
export interface ServiceIssue {
  message: string;
  code: string;
  path: Array<string | number>;
}

export type Validate = (schemaId: string, data: unknown) => { valid: true } | { valid: false; errors: ServiceIssue[] };

export interface RetryOptions {
  /** Extra attempts after the first; default 2. */
  retries?: number;
  /** Delay before the first retry, doubled per attempt; default 200. */
  baseDelayMs?: number;
  /** Cap of one delay; default 2000. */
  maxDelayMs?: number;
}

export interface ClientOptions {
  baseUrl: string;
  serviceUid: string;
  secret: string;
  /** Defaults to the global fetch, looked up per call. */
  fetch?: typeof fetch;
  /** Per attempt, a positive integer; default 30 000. */
  timeoutMs?: number;
  validate?: boolean;
  validateResponses?: boolean;
  /** GET only; `false` switches retries off. */
  retry?: false | RetryOptions;
  /** Largest response body read, in bytes; default 10 MiB (10 485 760). Larger: ResponseTooLargeError. */
  maxResponseBytes?: number;
  /** Extra headers; the client's Accept, Content-Type and Authorization win. */
  headers?: Record<string, string>;
}

export interface CallInput {
  body?: Record<string, unknown>;
  pathParams?: Record<string, string>;
  /** Only for operations whose `path` is null: a relative path starting with "/". */
  path?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ClientCore {
  call<T>(op: OperationSpec, input: CallInput): Promise<T>;
}
