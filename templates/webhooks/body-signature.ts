// The deprecated body-embedded v1 signature (the service's specification, sections 6.4, 9), and reading a body as JSON.
import { WebhookVerificationError } from "./errors.js";
import { checkV1, constant, expectDigest, type V1Expected } from "./digests.js";
import { replayKeys } from "./replay.js";
import type { RawBody, SignatureScheme, SignatureVersion, SigningSecret } from "./signature.js";

export type JsonObject = Record<string, unknown>;

export interface Authenticated {
  readonly version: SignatureVersion;
  readonly payload: JsonObject;
  /** Identify the delivery for the replay store (`replayKeys`, one per signing key): see `headerFormReplayKeys`. */
  readonly replayKeys: readonly string[];
  /** The key verispec 0.1 used: signature version + the digest computed with the matching key. */
  readonly legacyKey: () => string; // built only when asked for (legacyReplayKeys)
}

/**
 * @deprecated The body-embedded v1 signature (the service's specification, section 6.4 "in the body variant the `signature`
 * object is left out of the text that is hashed"; 9: deprecated). Used only with
 * `allowBodySignature: true` and when no signature header is present.
 *
 * The hashed text, as verispec reads the service's specification (which does not show the exact serialisation):
 * parse the body, delete the top-level `signature` key, take `JSON.stringify` of the rest (key order
 * as received, no whitespace), append the signing key, then SHA3-256 / Keccak-256 of the UTF-8 bytes.
 * `signature.sha256` / `signature.keccak256` carry the same prefixed values as the v1 headers, and
 * `signature.version` must be 1. The returned payload is the rest, without `signature`: only what
 * was signed is handed on.
 */
export function verifyBodySignature(scheme: SignatureScheme, rawBody: RawBody, secrets: readonly SigningSecret[]): Authenticated {
  // The body is unauthenticated here: only the signature object is read, to check it.
  const parsed = tryParseJsonObject(rawBody);
  const signature = parsed?.["signature"];
  if (parsed === undefined || typeof signature !== "object" || signature === null || Array.isArray(signature)) {
    throw new WebhookVerificationError("missing_signature", "no signature header and no signature object in the body");
  }
  const { sha256, keccak256, version } = signature as { sha256?: unknown; keccak256?: unknown; version?: unknown };
  if (sha256 === undefined && keccak256 === undefined) {
    throw new WebhookVerificationError("missing_signature", "the body's signature object has neither sha256 nor keccak256");
  }
  const expected: V1Expected = {
    sha: sha256 === undefined ? undefined : expectDigest(stringOrEmpty(sha256), scheme.v1.sha, "signature.sha256"),
    keccak: keccak256 === undefined ? undefined : expectDigest(stringOrEmpty(keccak256), scheme.v1.keccak, "signature.keccak256"),
  };
  // The body variant is the older scheme's: its `version` names it, as a string or a number.
  if ((typeof version !== "string" && typeof version !== "number") || String(version) !== scheme.v1.version) {
    throw new WebhookVerificationError("unsupported_version", `the body's signature.version is not ${scheme.v1.version}`);
  }
  const { signature: _omitted, ...unsigned } = parsed;
  const signed = unsignedText(parsed);
  const legacyKey = `1b:${checkV1(secrets, signed, expected).slice(2)}`;
  // The signed text: the same delivery sent with headers (with or without its signature object) has the same key.
  return { version: scheme.v1.version, payload: unsigned, replayKeys: replayKeys(secrets, signed), legacyKey: constant(legacyKey) };
}

function stringOrEmpty(value: unknown): string {
  return typeof value === "string" ? value : "";
}

// fatal: invalid UTF-8 is refused rather than silently replaced.
const decoder = new TextDecoder("utf-8", { fatal: true });

function bodyText(rawBody: RawBody): string | undefined {
  if (typeof rawBody === "string") return rawBody;
  try {
    return decoder.decode(rawBody);
  } catch {
    return undefined;
  }
}

function tryParseJsonObject(rawBody: RawBody): JsonObject | undefined {
  const text = bodyText(rawBody);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

export function parseJsonObject(rawBody: RawBody): JsonObject {
  const parsed = tryParseJsonObject(rawBody);
  // The parser's message is not passed on: it can quote body text.
  if (parsed === undefined) throw new WebhookVerificationError("invalid_payload", "the body is not a UTF-8 JSON object");
  return parsed;
}

/** The payload without its top-level `signature`, as compact JSON (key order as received). */
export function unsignedText(payload: JsonObject): string {
  const { signature: _omitted, ...unsigned } = payload;
  return JSON.stringify(unsigned);
}
