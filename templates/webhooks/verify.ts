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
import { type Authenticated, type JsonObject, parseJsonObject, unsignedText, verifyBodySignature } from "./body-signature.js";
import { checkV1, checkV2, constant, expectDigest, v1Digests } from "./digests.js";
import { WebhookVerificationError, type WebhookPayloadIssue } from "./errors.js";
import { DUPLICATE_HEADER, readSignatureHeaders, type SignatureHeaders, type WebhookHeaders } from "./headers.js";
import { replayKeys, type ReplayStore } from "./replay.js";
import { assertSecret, toBytes, type RawBody, type SignatureScheme, type SignatureVersion, type SigningSecret } from "./signature.js";
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
  /** The signature headers' names and prefixes (spec/webhooks.yaml, through the rules). */
  readonly scheme: SignatureScheme;
  readonly toleranceMs: number;
  readonly validatePayload?: ValidatePayload | undefined;
  readonly defaultReplayStore: ReplayStore;
}

export async function verifyWebhookWith<V5, V4>(context: VerifyContext, input: VerifyWebhookInput): Promise<VerifiedWebhook<V5, V4>> {
  const secrets = secretList(input.secret);
  const toleranceMs = input.toleranceMs ?? context.toleranceMs;
  if (!Number.isFinite(toleranceMs) || toleranceMs < 0) {
    throw new TypeError("verifyWebhook: toleranceMs must be a non-negative number");
  }
  const now = input.now ?? Date.now();

  const authenticated = authenticate(context.scheme, input, secrets);
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

function authenticate(scheme: SignatureScheme, input: VerifyWebhookInput, secrets: readonly SigningSecret[]): Authenticated {
  const headers = readSignatureHeaders(scheme, input.headers);
  const anyHeader = headers.v2 !== undefined || headers.sha !== undefined || headers.keccak !== undefined;
  if (!anyHeader) {
    if (input.allowBodySignature === true) return verifyBodySignature(scheme, input.rawBody, secrets);
    throw new WebhookVerificationError("missing_signature", `no ${scheme.v2.name} or ${eitherName(scheme.v1.sha.name, scheme.v1.keccak.name, "/-")} header`);
  }
  const version = signatureVersion(scheme, headers);
  // One conversion to bytes for every digest of this body (an ArrayBuffer or a string arrives as is).
  const body = toBytes(input.rawBody);
  // Version 2's HMACs, computed in the order of `secrets` up to the matching one, also make the replay keys.
  const hmacs: Uint8Array[] = [];
  const legacyKey =
    version === scheme.v2.version
      ? checkV2(secrets, body, expectDigest(headers.v2, scheme.v2), hmacs)
      : constant(checkV1(secrets, body, v1Digests(scheme, headers)));
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

/**
 * The declared version, or the one inferred from the headers present when there is no version
 * header: the v2 digest header means 2 (the current scheme is preferred when both kinds are present),
 * otherwise 1. Also checks the version's own headers are present (the service's specification, section 6.4).
 */
function signatureVersion(scheme: SignatureScheme, headers: SignatureHeaders): SignatureVersion {
  const declared = headers.version;
  if (declared === DUPLICATE_HEADER) {
    throw new WebhookVerificationError("malformed_signature", `${scheme.versionHeader} was sent more than once`);
  }
  const [current, older] = [scheme.v2.version, scheme.v1.version];
  const version = declared ?? (headers.v2 !== undefined ? current : older);
  if (version === current && headers.v2 === undefined) {
    throw new WebhookVerificationError("missing_signature", `signature version ${current} needs the ${scheme.v2.name} header`);
  }
  if (version === older && headers.sha === undefined && headers.keccak === undefined) {
    throw new WebhookVerificationError("missing_signature", `signature version ${older} needs ${scheme.v1.sha.name} or ${scheme.v1.keccak.name}`);
  }
  if (version === older || version === current) return version;
  // An unknown version has no prefix rules, so there is nothing to call malformed first.
  throw new WebhookVerificationError("unsupported_version", `${scheme.versionHeader} is not ${older} or ${current}`);
}

/** Two header names in one: "A-SHA/-KECCAK" when they share a stem ending in "-", else "A or B". */
function eitherName(a: string, b: string, joiner: string): string {
  const stem = a.slice(0, a.lastIndexOf("-") + 1);
  return stem && b.startsWith(stem) ? `${a}${joiner}${b.slice(stem.length)}` : `${a} or ${b}`;
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
