/**
 * Header access for the signature headers (the service's specification, section 6.4). Names are case-insensitive; accepted
 * inputs are a fetch `Headers`, Node's `IncomingHttpHeaders` (including array values) or a plain object.
 */

/** Anything with a case-insensitive `get`, such as the fetch API's `Headers`. */
export interface HeaderGetter {
  get(name: string): string | null;
}

export type WebhookHeaders = HeaderGetter | Readonly<Record<string, string | readonly string[] | number | undefined>>;

export const HEADER_SIGNATURE_V2 = "x-svc-signature";
export const HEADER_SIGNATURE_SHA = "x-svc-signature-sha";
export const HEADER_SIGNATURE_KECCAK = "x-svc-signature-keccak";
export const HEADER_SIGNATURE_VERSION = "x-svc-signature-version";

/** A header sent more than once: ambiguous, so the caller refuses it rather than picking one. */
export const DUPLICATE_HEADER: unique symbol = Symbol("duplicate header");
export type HeaderValue = string | typeof DUPLICATE_HEADER | undefined;

export interface SignatureHeaders {
  readonly version: HeaderValue;
  readonly v2: HeaderValue;
  readonly sha: HeaderValue;
  readonly keccak: HeaderValue;
}

/** Reads the four signature headers. Empty values count as absent. */
export function readSignatureHeaders(headers: WebhookHeaders): SignatureHeaders {
  if (isHeaderGetter(headers)) {
    // Headers joins repeated values with ", ", which then fails the format check.
    return {
      version: clean(headers.get(HEADER_SIGNATURE_VERSION)),
      v2: clean(headers.get(HEADER_SIGNATURE_V2)),
      sha: clean(headers.get(HEADER_SIGNATURE_SHA)),
      keccak: clean(headers.get(HEADER_SIGNATURE_KECCAK)),
    };
  }
  return readFromRecord(headers);
}

function readFromRecord(record: Readonly<Record<string, unknown>>): SignatureHeaders {
  let version: HeaderValue, v2: HeaderValue, sha: HeaderValue, keccak: HeaderValue;
  // One pass over the keys, so "X-Svc-Signature" and "x-svc-signature" in one object are seen as a duplicate.
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    // Every signature header name starts with "x-svc-signature": other headers cost one comparison.
    if (key.length < HEADER_SIGNATURE_V2.length || (key.charCodeAt(0) | 0x20) !== 0x78) continue;
    const name = lowerCase(key);
    if (name === HEADER_SIGNATURE_V2) v2 = merge(v2, valueOf(record[key]));
    else if (name === HEADER_SIGNATURE_VERSION) version = merge(version, valueOf(record[key]));
    else if (name === HEADER_SIGNATURE_SHA) sha = merge(sha, valueOf(record[key]));
    else if (name === HEADER_SIGNATURE_KECCAK) keccak = merge(keccak, valueOf(record[key]));
  }
  return { version, v2, sha, keccak };
}

/** Header names recur on every delivery: their lower-case forms are kept (a bounded set). */
const lowerCased = new Map<string, string>();
function lowerCase(key: string): string {
  let name = lowerCased.get(key);
  if (name === undefined) {
    name = key.toLowerCase();
    if (lowerCased.size < 64) lowerCased.set(key, name);
  }
  return name;
}

function valueOf(raw: unknown): HeaderValue {
  if (Array.isArray(raw)) {
    let result: HeaderValue;
    for (const item of raw) result = merge(result, clean(item));
    return result;
  }
  return clean(raw);
}

function merge(existing: HeaderValue, next: HeaderValue): HeaderValue {
  if (existing === undefined) return next;
  if (next === undefined) return existing;
  return DUPLICATE_HEADER;
}

function clean(raw: unknown): string | undefined {
  if (typeof raw === "number") return String(raw);
  if (typeof raw !== "string") return undefined;
  const trimmed = raw.trim();
  return trimmed === "" ? undefined : trimmed;
}

function isHeaderGetter(headers: WebhookHeaders): headers is HeaderGetter {
  return typeof (headers as { get?: unknown }).get === "function";
}
