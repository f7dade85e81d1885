import {
  HttpError,
  NetworkError,
  ResponseValidationError,
  SubmissionConflictError,
  TimeoutError,
  TooManyAttemptsError,
  ValidationError,
  type VerispecError,
} from "./errors.js";
import type { CallInput, ClientCore, ClientOptions, OperationSpec, SpecConstants, Validate } from "./types.js";
import { backoffMs, base64Utf8, buildPath, parseBody, redactor } from "./util.js";

// Error type (the service's specification, section 7) -> class; the status -> type mapping comes from the spec via SpecConstants.
// A Map, not an object: an unknown type such as "constructor" must not hit Object.prototype.
const BY_TYPE = new Map<unknown, typeof VerispecError>([
  ["validation_error", ValidationError],
  ["too_many_attempts", TooManyAttemptsError],
  ["submission_conflict", SubmissionConflictError],
]);

/** Maps a non-2xx reply (body already redacted) to its error class; the envelope's type wins over the status. */
export function toError(status: number, body: unknown, constants: SpecConstants): VerispecError {
  // Object(x): the value itself for objects, an empty wrapper for text, null or undefined.
  const env = Object(body);
  const err = Object(env.error);
  const Cls =
    BY_TYPE.get(err.type) ?? BY_TYPE.get(env.type) ?? BY_TYPE.get(constants.errorTypesByStatus[status]) ?? HttpError;
  return new Cls(`HTTP ${status}` + (env.message ? ": " + env.message : ""), {
    status,
    trace: env.trace,
    body,
    ...(Cls == ValidationError && { details: err.details ?? env.details ?? [] }), // v5: error.details (the service's specification, section 7)
  });
}

/**
 * The hand-written core behind generated/client.ts.
 *
 * Credentials: for `auth: "body"` the client adds metadata_version, metadata_serviceUid and
 * metadata_secretKey (the service's specification, section 5). Should a body already carry any of them (the generated types do not
 * allow it; a body copied from elsewhere might), the configured values win: only the credentials the
 * client was created with are ever sent, never stale or another account's.
 *
 * Retries: only GETs are retried, on network errors and 5xx, with capped exponential backoff and
 * jitter. POSTs are never retried: they are not idempotent (a repeated POST /verify or
 * /v5/verifications creates a second verification or a second attempt), and a 475 means another
 * resubmission is in flight, so the right move is to wait for the first outcome (webhook or
 * details call), not to send again. Timeouts are not retried either: the caller chose the budget.
 */
export function createClientCore(
  options: ClientOptions,
  constants: SpecConstants,
  loadValidate: () => Promise<Validate>,
): ClientCore {
  const { secret } = options;
  const token = base64Utf8(options.serviceUid + ":" + secret);
  const redact = redactor([secret, token]);
  const credentials = {
    metadata_version: constants.olderVersion,
    metadata_serviceUid: options.serviceUid,
    metadata_secretKey: secret,
  };

  // Loaded lazily and once, so validators stay out of the core bundle.
  let validator: Promise<Validate> | undefined;
  /** Throws `Cls` with the validator's issues (redacted) when `data` does not match `schemaId`. */
  async function check(
    Cls: typeof ValidationError | typeof ResponseValidationError,
    prefix: string,
    schemaId: string | undefined,
    data: unknown,
  ): Promise<void> {
    if (!schemaId) return;
    const result = (await (validator ??= loadValidate()))(schemaId, data);
    if (!result.valid) {
      const details = redact(result.errors);
      throw new Cls(`${prefix} ${schemaId}: ${JSON.stringify(details)}`, { schemaId, details, body: redact(data) });
    }
  }

  async function call<T>(op: OperationSpec, input: CallInput): Promise<T> {
    const { signal } = input;
    const url = options.baseUrl.replace(/\/+$/, "") + buildPath(op.path ?? input.path, input.pathParams);
    // Headers.set: the client's values replace the caller's whatever their letter case.
    const headers = new Headers(options.headers);
    headers.set("Accept", "application/json");
    headers.set("Content-Type", "application/json");
    let body = input.body;
    if (op.auth == "basic") headers.set("Authorization", "Basic " + token);
    else body = { ...body, ...credentials }; // the configured credentials win over any in the body
    if (options.validate) await check(ValidationError, "Validation error:", op.requestSchema, body);

    const { retries = 2, baseDelayMs = 200, maxDelayMs = 2000 } = options.retry || {};
    const attempts = op.method == "GET" && options.retry !== false ? retries : 0; // never a POST
    const ms = input.timeoutMs ?? options.timeoutMs ?? 30_000;
    for (let attempt = 0; ; attempt++) {
      // AbortSignal.timeout/any: Node >= 20.3, all current browsers; keeps the core free of timer bookkeeping.
      const timeout = AbortSignal.timeout(ms);
      let res: Response | undefined;
      let data: unknown;
      try {
        const fetchFn = options.fetch ?? fetch; // called unbound: browsers reject fetch with a foreign `this`
        const r = await fetchFn(url, {
          method: op.method,
          headers,
          body: body && JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        data = parseBody(await r.text());
        res = r; // only once the body is read: a failure while reading is a network error
      } catch (e) {
        if (signal?.aborted) throw e; // the caller's abort stays the caller's AbortError
        if (timeout.aborted) throw new TimeoutError(`Timeout ${ms} ms`);
        if (attempt >= attempts) throw new NetworkError("Network error", { cause: e });
      }
      if (res?.ok) {
        if (options.validateResponses) await check(ResponseValidationError, "Response does not match", op.responseSchema, data);
        return data as T;
      }
      if (res && (res.status < 500 || attempt >= attempts)) throw toError(res.status, redact(data), constants);
      await new Promise((r) => setTimeout(r, backoffMs(attempt, baseDelayMs, maxDelayMs)));
    }
  }

  return { call };
}
