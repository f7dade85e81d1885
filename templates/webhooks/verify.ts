/**
 * Webhook verification (the service's specification, sections 6.1, 6.4, 8). Checks run in this order, and each failure throws a
 * `WebhookVerificationError` before anything later is looked at:
 *
 *  1. a signature header is present .................................. missing_signature
 *  2. the headers of that version are well formed (v1 too) .......... malformed_signature
 *  3. the version is known (no version header: inferred) ............ unsupported_version
 *  4. a signing key matches (every v1 digest header present) ........ signature_mismatch
 *  5. the body is a JSON object and passes `validatePayload` ........ invalid_payload
 *  6. the payload timestamp is within ± tolerance, inclusive ........ timestamp_out_of_tolerance
 *  7. the delivery was not accepted before (replay store) ............ replayed
 *
 * Nothing of the body is read before step 4, except in the deprecated body-embedded variant,
 * where the signature lives in the body itself (see `verifyBodySignature`).
 */
import { WebhookVerificationError, type WebhookPayloadIssue } from "./errors.js";
import { DUPLICATE_HEADER, readSignatureHeaders, type HeaderValue, type SignatureHeaders, type WebhookHeaders } from "./headers.js";
import { replayKeys, type ReplayStore } from "./replay.js";
import {
  assertSecret,
  digestsEqual,
  hmacSha256,
  keccakDigest,
  parseDigest,
  sha3Digest,
  toBytes,
  toHex,
  V1_KECCAK_PREFIX,
  V1_SHA_PREFIX,
  V2_PREFIX,
  type RawBody,
  type SignatureVersion,
  type SigningSecret,
} from "./signature.js";
import { isV5Payload, payloadTimestampMs, withinTolerance } from "./timestamp.js";

export type PayloadValidity = { readonly valid: true } | { readonly valid: false; readonly errors: readonly WebhookPayloadIssue[] };

/** May answer through a promise: the generated kit loads each format's validator on first use. */
export type ValidatePayload = (version: "v5" | "v4", payload: unknown) => PayloadValidity | PromiseLike<PayloadValidity>;

export interface VerifyWebhookInput {
  /** The exact bytes received, before any JSON parsing: re-serialised JSON does not match the signature. */
  readonly rawBody: RawBody;
  readonly headers: WebhookHeaders;
  /** The signing key, or several during a key rotation (any one may match). */
  readonly secret: SigningSecret | readonly SigningSecret[];
  /** Current time in Unix ms; default `Date.now()`. */
  readonly now?: number;
  /** Default: the spec's tolerance (the service's specification, section 8, ± 5 minutes). */
  readonly toleranceMs?: number;
  /** Default: the kit's in-memory store. Use a shared store when the receiver runs as several instances. */
  readonly replayStore?: ReplayStore;
  /**
   * Also record and check the replay key of verispec 0.1 (signature version + signature digest), for
   * a rolling upgrade of receivers sharing a store: keep it on until 2 × tolerance after the last
   * older instance stopped. See the README, "Security".
   */
  readonly legacyReplayKeys?: boolean;
  /**
   * @deprecated Accept the body-embedded v1 signature (the service's specification, sections 6.4, 9) when no signature header is present.
   * See `verifyBodySignature` for the exact text that is hashed.
   */
  readonly allowBodySignature?: boolean;
}

export interface VerifiedWebhook<V5 = unknown, V4 = unknown> {
  /** The signature version that was checked. */
  readonly version: SignatureVersion;
  /** A payload with `version: "v5"` is the current format (the service's specification, section 6.2); otherwise the older one (6.3). */
  readonly payload: V5 | V4;
}

export interface VerifyContext {
  readonly toleranceMs: number;
  readonly validatePayload?: ValidatePayload | undefined;
  readonly defaultReplayStore: ReplayStore;
}

type JsonObject = Record<string, unknown>;

interface Authenticated {
  readonly version: SignatureVersion;
  readonly payload: JsonObject;
  /** Identify the delivery for the replay store (`replayKeys`, one per signing key): see `headerFormReplayKeys`. */
  readonly replayKeys: readonly string[];
  /** The key verispec 0.1 used: signature version + the digest computed with the matching key. */
  readonly legacyKey: () => string; // built only when asked for (legacyReplayKeys)
}

export async function verifyWebhookWith<V5, V4>(context: VerifyContext, input: VerifyWebhookInput): Promise<VerifiedWebhook<V5, V4>> {
  const secrets = secretList(input.secret);
  const toleranceMs = input.toleranceMs ?? context.toleranceMs;
  if (!Number.isFinite(toleranceMs) || toleranceMs < 0) {
    throw new TypeError("verifyWebhook: toleranceMs must be a non-negative number");
  }
  const now = input.now ?? Date.now();

  const authenticated = authenticate(input, secrets);
  const { payload } = authenticated;
  if (context.validatePayload !== undefined) await validate(context.validatePayload, payload);
  checkTimestamp(payload, now, toleranceMs);

  // the service's specification, section 6.4 — last, so only deliveries that passed every other check are remembered.
  const store = input.replayStore ?? context.defaultReplayStore;
  const ttlMs = Math.max(1, 2 * toleranceMs);
  // Every key is recorded, and any one already there makes a replay (replay.ts says why that is one identity).
  let fresh = true;
  for (const key of authenticated.replayKeys) {
    const added = store.addIfAbsent(key, ttlMs);
    // A store that answers at once (the memory store) is not awaited: one turn of the microtask queue less.
    fresh = (typeof added === "boolean" ? added : await added) && fresh;
  }
  if (input.legacyReplayKeys === true) fresh = (await store.addIfAbsent(authenticated.legacyKey(), ttlMs)) && fresh;
  if (!fresh) throw new WebhookVerificationError("replayed", "this delivery was already accepted");
  return { version: authenticated.version, payload: payload as V5 | V4 };
}

function authenticate(input: VerifyWebhookInput, secrets: readonly SigningSecret[]): Authenticated {
  const headers = readSignatureHeaders(input.headers);
  const anyHeader = headers.v2 !== undefined || headers.sha !== undefined || headers.keccak !== undefined;
  if (!anyHeader) {
    if (input.allowBodySignature === true) return verifyBodySignature(input.rawBody, secrets);
    throw new WebhookVerificationError("missing_signature", "no X-Svc-Signature or X-Svc-Signature-SHA/-KECCAK header");
  }
  const version = signatureVersion(headers);
  // One conversion to bytes for every digest of this body (an ArrayBuffer or a string arrives as is).
  const body = toBytes(input.rawBody);
  // Version 2's HMACs, computed in the order of `secrets` up to the matching one, also make the replay keys.
  const hmacs: Uint8Array[] = [];
  const legacyKey =
    version === "2"
      ? checkV2(secrets, body, expectDigest(headers.v2, V2_PREFIX, "X-Svc-Signature"), hmacs)
      : constant(checkV1(secrets, body, v1Digests(headers)));
  const payload = parseJsonObject(typeof input.rawBody === "string" ? input.rawBody : body);
  return { version, payload, replayKeys: headerFormReplayKeys(secrets, body, payload, hmacs), legacyKey };
}

/**
 * One delivery has one replay identity whatever carried its signature. An older payload can embed its
 * own `signature` object (the service's specification, sections 6.3, 6.4) and also arrive with headers:
 * its identity is then the text the body variant hashes (`unsignedText`), so the same delivery with
 * its headers stripped (accepted through `allowBodySignature`) is a replay, and the reverse. Any other
 * body is identified by its bytes: no re-serialisation on the common path.
 */
function headerFormReplayKeys(secrets: readonly SigningSecret[], rawBody: Uint8Array, payload: JsonObject, hmacs: readonly Uint8Array[]): string[] {
  return Object.hasOwn(payload, "signature") ? replayKeys(secrets, unsignedText(payload)) : replayKeys(secrets, rawBody, hmacs);
}

/** The payload without its top-level `signature`, as compact JSON (key order as received). */
function unsignedText(payload: JsonObject): string {
  const { signature: _omitted, ...unsigned } = payload;
  return JSON.stringify(unsigned);
}

/**
 * The declared version, or the one inferred from the headers present when there is no version
 * header: `X-Svc-Signature` means 2 (the current scheme is preferred when both kinds are present),
 * otherwise 1. Also checks the version's own headers are present (the service's specification, section 6.4).
 */
function signatureVersion(headers: SignatureHeaders): SignatureVersion {
  const declared = headers.version;
  if (declared === DUPLICATE_HEADER) {
    throw new WebhookVerificationError("malformed_signature", "X-Svc-Signature-version was sent more than once");
  }
  const version = declared ?? (headers.v2 !== undefined ? "2" : "1");
  if (version === "2" && headers.v2 === undefined) {
    throw new WebhookVerificationError("missing_signature", "signature version 2 needs the X-Svc-Signature header");
  }
  if (version === "1" && headers.sha === undefined && headers.keccak === undefined) {
    throw new WebhookVerificationError("missing_signature", "signature version 1 needs X-Svc-Signature-SHA or X-Svc-Signature-KECCAK");
  }
  if (version === "1" || version === "2") return version;
  // An unknown version has no prefix rules, so there is nothing to call malformed first.
  throw new WebhookVerificationError("unsupported_version", "X-Svc-Signature-version is not 1 or 2");
}

function expectDigest(value: HeaderValue, prefix: string, headerName: string): Uint8Array {
  const digest = value === undefined || value === DUPLICATE_HEADER ? undefined : parseDigest(value, prefix);
  if (digest === undefined) {
    const problem = value === DUPLICATE_HEADER ? "was sent more than once" : `must be ${prefix} followed by 64 hex digits`;
    throw new WebhookVerificationError("malformed_signature", `${headerName} ${problem}`);
  }
  return digest;
}

interface V1Expected {
  readonly sha: Uint8Array | undefined;
  readonly keccak: Uint8Array | undefined;
}

function v1Digests(headers: SignatureHeaders): V1Expected {
  return {
    sha: headers.sha === undefined ? undefined : expectDigest(headers.sha, V1_SHA_PREFIX, "X-Svc-Signature-SHA"),
    keccak: headers.keccak === undefined ? undefined : expectDigest(headers.keccak, V1_KECCAK_PREFIX, "X-Svc-Signature-KECCAK"),
  };
}

/**
 * Returns verispec 0.1's replay key: the version plus the digest computed with the matching key. Each
 * digest computed is appended to `hmacs` (in the order of `secrets`).
 */
function checkV2(secrets: readonly SigningSecret[], body: Uint8Array, expected: Uint8Array, hmacs: Uint8Array[]): () => string {
  for (const secret of secrets) {
    const digest = hmacSha256(secret, body);
    hmacs.push(digest);
    if (digestsEqual(digest, expected)) return () => `2:${toHex(digest)}`;
  }
  throw mismatch();
}

/** the service's specification, section 6.4 — every v1 digest header present must match, with the same key. */
function checkV1(secrets: readonly SigningSecret[], body: RawBody, expected: V1Expected): string {
  for (const secret of secrets) {
    const sha = sha3Digest(secret, body);
    if (expected.sha !== undefined && !digestsEqual(sha, expected.sha)) continue;
    if (expected.keccak !== undefined && !digestsEqual(keccakDigest(secret, body), expected.keccak)) continue;
    return `1:${toHex(sha)}`;
  }
  throw mismatch();
}

const constant = (value: string) => () => value;

function mismatch(): WebhookVerificationError {
  return new WebhookVerificationError("signature_mismatch", "the signature does not match the body with any configured signing key");
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
export function verifyBodySignature(rawBody: RawBody, secrets: readonly SigningSecret[]): Authenticated {
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
    sha: sha256 === undefined ? undefined : expectDigest(stringOrEmpty(sha256), V1_SHA_PREFIX, "signature.sha256"),
    keccak: keccak256 === undefined ? undefined : expectDigest(stringOrEmpty(keccak256), V1_KECCAK_PREFIX, "signature.keccak256"),
  };
  if (version !== 1 && version !== "1") {
    throw new WebhookVerificationError("unsupported_version", "the body's signature.version is not 1");
  }
  const { signature: _omitted, ...unsigned } = parsed;
  const signed = unsignedText(parsed);
  const legacyKey = `1b:${checkV1(secrets, signed, expected).slice(2)}`;
  // The signed text: the same delivery sent with headers (with or without its signature object) has the same key.
  return { version: "1", payload: unsigned, replayKeys: replayKeys(secrets, signed), legacyKey: constant(legacyKey) };
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

function parseJsonObject(rawBody: RawBody): JsonObject {
  const parsed = tryParseJsonObject(rawBody);
  // The parser's message is not passed on: it can quote body text.
  if (parsed === undefined) throw new WebhookVerificationError("invalid_payload", "the body is not a UTF-8 JSON object");
  return parsed;
}

async function validate(validatePayload: ValidatePayload, payload: JsonObject): Promise<void> {
  const result = await validatePayload(isV5Payload(payload) ? "v5" : "v4", payload);
  if (!result.valid) {
    throw new WebhookVerificationError("invalid_payload", "the payload does not match the spec's schema", result.errors);
  }
}

function checkTimestamp(payload: JsonObject, now: number, toleranceMs: number): void {
  const timestampMs = payloadTimestampMs(payload);
  if (timestampMs === undefined) {
    const issue: WebhookPayloadIssue = { message: "timestamp must be a number (Unix time)", code: "invalid_type", path: ["timestamp"] };
    throw new WebhookVerificationError("invalid_payload", "the payload has no numeric timestamp", [issue]);
  }
  if (!withinTolerance(timestampMs, now, toleranceMs)) {
    const skew = Math.round(now - timestampMs);
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `the payload timestamp is ${Math.abs(skew)} ms ${skew > 0 ? "in the past" : "in the future"}; the tolerance is ${toleranceMs} ms`,
    );
  }
}

function secretList(secret: SigningSecret | readonly SigningSecret[]): readonly SigningSecret[] {
  const list: readonly SigningSecret[] = Array.isArray(secret) ? secret : [secret as SigningSecret];
  if (list.length === 0) throw new TypeError("verifyWebhook: at least one signing key is required");
  for (const item of list) assertSecret(item, "verifyWebhook");
  return list;
}
