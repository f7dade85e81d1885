import {
  HttpError,
  NetworkError,
  RedirectError,
  ResponseFormatError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
  VerispecError,
} from "./errors.js";
import type { CallInput, ClientCore, ClientOptions, OperationSpec, SpecConstants, Validate } from "./types.js";
import { backoffMs, base64Utf8, buildPath, parseBody, redactor } from "./util.js";

/**
 * Maps a non-2xx reply (body already redacted) to its error class; the envelope's type wins over the status. The error
 * type -> class table and the status -> type mapping come from the spec (errors.yaml) via SpecConstants.
 */
export function toError(status: number, body: unknown, constants: SpecConstants): VerispecError {
  // Object(x): the value itself for objects, an empty wrapper for text, null or undefined.
  const env = Object(body);
  const err = Object(env.error);
  const by = constants.errorClasses;
  const Cls = (by.get(err.type) ?? by.get(env.type) ?? by.get(constants.errorTypesByStatus[status]) ?? HttpError) as typeof VerispecError;
  return new Cls(`HTTP ${status}${env.message ? `: ${env.message}` : ""}`, {
    status,
    trace: env.trace,
    body,
    ...(Cls == ValidationError && { details: err.details ?? env.details ?? [] }), // v5: error.details (the service's specification, section 7)
  });
}

/**
 * The hand-written core behind generated/client.js.
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
 *
 * Redirects are never followed (`redirect: "manual"`): a 3xx is a RedirectError naming the status and
 * the target's origin, so neither the body (with metadata_secretKey) nor the Authorization header is
 * ever sent anywhere but `baseUrl`. Response bodies are read up to `maxResponseBytes` (default 10 MiB);
 * a 2xx of an operation with a response schema must be JSON (ResponseFormatError otherwise).
 */
export function createClientCore(options: ClientOptions, constants: SpecConstants, loadValidate: () => Promise<Validate>): ClientCore {
  const { secret } = options;
  // One line naming the option, never a value (a missing variable would send `undefined:undefined`).
  for (const k of ["serviceUid", "secret"] as const)
    if (typeof options[k] != "string" || !options[k]) throw new TypeError(`createClient: ${k} is missing or not a string`);
  const token = base64Utf8(`${options.serviceUid}:${secret}`);
  const redact = redactor([secret, token]);
  const credentials = { metadata_version: constants.olderVersion, metadata_serviceUid: options.serviceUid, metadata_secretKey: secret };

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
    headers.set("Accept", constants.mediaType);
    headers.set("Content-Type", constants.mediaType);
    let body = input.body;
    if (op.auth == "basic") headers.set("Authorization", `Basic ${token}`);
    else body = { ...body, ...credentials }; // the configured credentials win over any in the body
    if (options.validate) await check(ValidationError, "Validation error:", op.requestSchema, body);

    const { retries = 2, baseDelayMs = 200, maxDelayMs = 2000 } = options.retry || {};
    const attempts = op.method == "GET" && options.retry !== false ? retries : 0; // never a POST
    const ms = input.timeoutMs ?? options.timeoutMs ?? 30_000;
    const maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
    for (let attempt = 0; ; attempt++) {
      // AbortSignal.timeout/any: Node >= 20.3, all current browsers; keeps the core free of timer bookkeeping.
      const timeout = AbortSignal.timeout(ms);
      let res: Response | undefined;
      let data: unknown;
      let text = "";
      try {
        const fetchFn = options.fetch ?? fetch; // called unbound: browsers reject fetch with a foreign `this`
        const r = await fetchFn(url, {
          method: op.method,
          headers,
          body: body && JSON.stringify(body),
          redirect: "manual",
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        await refuseRedirect(r, url);
        text = await readText(r, maxBytes);
        data = parseBody(text);
        res = r; // only once the body is read: a failure while reading is a network error
      } catch (e) {
        if (signal?.aborted || e instanceof VerispecError) throw e; // the caller's abort stays the caller's AbortError
        if (timeout.aborted) throw new TimeoutError(`Timeout ${ms} ms`);
        if (attempt >= attempts) throw new NetworkError("Network error", { cause: scrub(e, redact) });
      }
      if (res?.ok) {
        if (op.responseSchema) requireObject(res.status, data, text, redact);
        if (options.validateResponses) await check(ResponseValidationError, "Response does not match", op.responseSchema, data);
        return data as T;
      }
      if (res && (res.status < 500 || attempt >= attempts)) throw toError(res.status, redact(data), constants);
      await new Promise((r) => setTimeout(r, backoffMs(attempt, baseDelayMs, maxDelayMs)));
    }
  }

  return { call };
}

/** A 3xx (browsers hide a manual redirect's status and Location: "opaqueredirect", status 0) is never followed. */
async function refuseRedirect(r: Response, url: string): Promise<void> {
  if (r.type == "opaqueredirect" || (r.status > 299 && r.status < 400)) {
    const to = r.headers.get("location");
    const targetOrigin = to && URL.canParse(to, url) ? new URL(to, url).origin : undefined;
    await r.body?.cancel();
    throw new RedirectError(`HTTP ${r.status || "3xx"} redirect to ${targetOrigin ?? "an unknown location"} not followed`, {
      status: r.status,
      targetOrigin,
    });
  }
}

/** A 2xx of an operation with a response schema is a JSON object: HTML, text, nothing, null, 42 or [] is not a success. */
function requireObject(status: number, data: unknown, text: string, redact: <T>(v: T) => T): void {
  if (Object(data) !== data || Array.isArray(data))
    throw new ResponseFormatError(`HTTP ${status}: response is ${text ? (data === text ? "not JSON" : "not a JSON object") : "empty"}`, {
      status,
      body: redact(text).slice(0, 4096), // redacted first: a cut must not split a secret
    });
}

/**
 * A copy of a fetch error and its causes with only its class, name, message, stack and `code`, redacted:
 * a custom fetch's error may hold the request, its Authorization header and body, which `util.inspect`
 * and `JSON.stringify` would print. No constructor runs: the prototype keeps `instanceof TypeError`.
 */
export function scrub(e: unknown, redact: <T>(v: T) => T, depth = 0): unknown {
  if (!(e instanceof Error)) return typeof e == "string" ? redact(e) : typeof e;
  const { name, message, stack, code, cause } = e as Error & { code?: string };
  const copy = Object.create(Object.getPrototypeOf(e));
  return Object.assign(
    copy,
    { message: redact(message), stack: redact(stack) },
    copy.name != name && { name: redact(name) },
    code && { code: redact(code) },
    depth < 4 && cause !== undefined && { cause: scrub(cause, redact, depth + 1) },
  );
}

/** The body as text, refusing (before or while reading) one larger than `max` bytes. */
async function readText(r: Response, max: number): Promise<string> {
  const tooLarge = () => new ResponseTooLargeError(`HTTP ${r.status}: response larger than ${max} bytes`, { status: r.status });
  if (+r.headers.get("content-length")! > max) {
    await r.body?.cancel();
    throw tooLarge();
  }
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (const reader = r.body?.getReader(); reader; ) {
    const { done, value } = await reader.read();
    if (done) break;
    if ((size += value.length) > max) {
      await reader.cancel();
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
