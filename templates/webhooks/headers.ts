/**
 * Header access for the signature headers (the service's specification, section 6.4). Names are case-insensitive; accepted
 * inputs are a fetch `Headers`, Node's `IncomingHttpHeaders` (including array values) or a plain object.
 * The names are the scheme's (spec/webhooks.yaml signatures, through the generated rules).
 */
import type { SignatureScheme } from "./signature.js";

/** Anything with a case-insensitive `get`, such as the fetch API's `Headers`. */
export interface HeaderGetter {
  get(name: string): string | null;
}

export type WebhookHeaders = HeaderGetter | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/** The four header names of a scheme, lower-cased, and the shortest of them (other headers are skipped by length). */
interface LowerNames {
  readonly version: string;
  readonly v2: string;
  readonly sha: string;
  readonly keccak: string;
  readonly shortest: number;
  /** The letter every name starts with, lower-cased, or -1: other headers cost one comparison. */
  readonly firstChar: number;
}

const namesOfScheme = new WeakMap<SignatureScheme, LowerNames>();
function lowerNames(scheme: SignatureScheme): LowerNames {
  let names = namesOfScheme.get(scheme);
  if (names === undefined) {
    const all = [scheme.versionHeader, scheme.v2.name, scheme.v1.sha.name, scheme.v1.keccak.name].map((n) => n.toLowerCase());
    const first = all[0]!.charCodeAt(0);
    names = {
      version: all[0]!,
      v2: all[1]!,
      sha: all[2]!,
      keccak: all[3]!,
      shortest: Math.min(...all.map((n) => n.length)),
      firstChar: first >= 0x61 && first <= 0x7a && all.every((n) => n.charCodeAt(0) === first) ? first : -1,
    };
    namesOfScheme.set(scheme, names);
  }
  return names;
}

/** A header sent more than once: ambiguous, so the caller refuses it rather than picking one. */
export const DUPLICATE_HEADER: unique symbol = Symbol("duplicate header");
export type HeaderValue = string | typeof DUPLICATE_HEADER | undefined;

export interface SignatureHeaders {
  readonly version: HeaderValue;
  readonly v2: HeaderValue;
  readonly sha: HeaderValue;
  readonly keccak: HeaderValue;
}

/** Reads the scheme's four signature headers. Empty values count as absent. */
export function readSignatureHeaders(scheme: SignatureScheme, headers: WebhookHeaders): SignatureHeaders {
  const names = lowerNames(scheme);
  if (isHeaderGetter(headers)) {
    // Headers joins repeated values with ", ", which then fails the format check.
    return {
      version: clean(headers.get(names.version)),
      v2: clean(headers.get(names.v2)),
      sha: clean(headers.get(names.sha)),
      keccak: clean(headers.get(names.keccak)),
    };
  }
  return readFromRecord(names, headers);
}

function readFromRecord(names: LowerNames, record: Readonly<Record<string, unknown>>): SignatureHeaders {
  let version: HeaderValue, v2: HeaderValue, sha: HeaderValue, keccak: HeaderValue;
  // One pass over the keys, so one header under two capitalisations in one object is seen as a duplicate.
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    if (key.length < names.shortest || (names.firstChar >= 0 && (key.charCodeAt(0) | 0x20) !== names.firstChar)) continue;
    const name = lowerCase(key);
    if (name === names.v2) v2 = merge(v2, headerValueOf(record[key]));
    else if (name === names.version) version = merge(version, headerValueOf(record[key]));
    else if (name === names.sha) sha = merge(sha, headerValueOf(record[key]));
    else if (name === names.keccak) keccak = merge(keccak, headerValueOf(record[key]));
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

function headerValueOf(raw: unknown): HeaderValue {
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
