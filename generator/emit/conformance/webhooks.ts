// generated/conformance/webhooks.json: signature vectors for both signature versions (the service's
// specification, section 6.4): fixed secrets, bodies and clocks, so the file is the same on every run.
// Header names, prefixes, digests and the tolerance come from the model; the digests are computed here
// with @noble/hashes (the signing side), and every verifier must reproduce the verdicts.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256, sha3_256 } from "@noble/hashes/sha3.js";
import type { Model, SignatureHeader, SignatureScheme } from "../../model/types.js";

/** Why a verifier refuses a delivery, checked in this order (the first failing check names the reason). */
export const REASONS = [
  "missing_signature",
  "malformed_signature",
  "unsupported_version",
  "signature_mismatch",
  "invalid_payload",
  "timestamp_out_of_tolerance",
  "replayed",
] as const;
export type Reason = (typeof REASONS)[number];

export interface Delivery {
  /** The signing keys the receiver holds (any one may match: a key rotation). */
  readonly secrets: readonly string[];
  /** The body text; its bytes are its UTF-8 encoding. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The receiver's clock, Unix ms. */
  readonly now: number;
  /** The deprecated body-embedded signature is accepted (only when no signature header is present). */
  readonly allowBodySignature?: true;
  readonly expect: { readonly verdict: "accept" } | { readonly verdict: "reject"; readonly reason: Reason };
}

export interface WebhookCase extends Delivery {
  readonly id: string;
  readonly title: string;
  readonly signatureVersion: string;
}

export interface WebhookSequence {
  readonly id: string;
  readonly title: string;
  /** Run in order against one fresh replay store. */
  readonly steps: readonly Delivery[];
}

const enc = new TextEncoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const concat = (a: Uint8Array, b: Uint8Array) => Uint8Array.from([...a, ...b]);

const DIGESTS: Readonly<Record<NonNullable<SignatureHeader["digest"]>, (key: string, body: string) => string>> = {
  "hmac-sha256": (key, body) => hex(hmac(sha256, enc.encode(key), enc.encode(body))),
  "sha3-256": (key, body) => hex(sha3_256(concat(enc.encode(body), enc.encode(key)))),
  "keccak-256": (key, body) => hex(keccak_256(concat(enc.encode(body), enc.encode(key)))),
};

/** The headers of a scheme for a body: each digest header with its prefix, and the version header. */
function sign(scheme: SignatureScheme, key: string, body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of scheme.headers) {
    if (h.digest) out[h.name] = `${h.prefix ?? ""}${DIGESTS[h.digest](key, body)}`;
    else if (h.value !== undefined) out[h.name] = h.value;
  }
  return out;
}

// Fixed inputs: 2026-01-01T00:00:00Z, and keys that say what they are.
const NOW = 1767225600000;
const KEY = "whsec_conformance_current_6c1f";
const OLD_KEY = "whsec_conformance_rotated_out_92ab";
const WRONG_KEY = "whsec_conformance_not_the_key_0000";

function v5Body(timestamp: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: "v5",
    userId: "conformance-1",
    tags: ["verispec:conformance"],
    trace: "5b0c1e8a-0d7c-4e55-9a53-2f2a8c1f0a11",
    submissionId: "5b0c1e8a-0d7c-4e55-9a53-2f2a8c1f0a11",
    name: "José Conformance Test",
    country: "AUS",
    type: "company",
    subType: "none",
    verificationStatus: "verified",
    submissionStatus: "submitted",
    attempt: 1,
    timestamp,
    ...extra,
  });
}

const ok = { verdict: "accept" } as const;
const no = (reason: Reason) => ({ verdict: "reject", reason }) as const;
const digestHeaders = (s: SignatureScheme) => s.headers.filter((h) => h.digest);
const caseOf = (id: string, title: string, s: SignatureScheme, d: Delivery): WebhookCase => ({
  id: `v${s.version}/${id}`,
  title,
  signatureVersion: s.version,
  ...d,
});

export function webhookCases(model: Model): { cases: WebhookCase[]; sequences: WebhookSequence[]; toleranceMs: number } {
  const tol = model.webhookToleranceMs;
  const v2 = model.signatures.find((s) => s.version === "2")!;
  const v1 = model.signatures.find((s) => s.version === "1")!;
  const schemes = [v2, v1];
  const cases: WebhookCase[] = [
    ...schemes.flatMap((s) => schemeCases(s, schemes, tol)),
    ...v1DigestCases(v1),
    ...bodyVariantCases(v1),
    ...unreadablePayloadCases(v2),
  ];
  return { cases, sequences: replaySequences(v2, v1, tol), toleranceMs: tol };
}

/** The version header's values of every scheme, in numeric order. */
const versionValues = (schemes: readonly SignatureScheme[]) =>
  schemes.map((s) => s.versionHeader.value).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));

/** A version value no scheme names: one past the highest numeric value. */
const unknownVersion = (schemes: readonly SignatureScheme[]) => String(Math.max(0, ...versionValues(schemes).map(Number).filter(Number.isFinite)) + 1);

/** The cases every scheme shares: a valid delivery, the tolerance edges, tampering, keys, headers, prefixes. */
function schemeCases(s: SignatureScheme, schemes: readonly SignatureScheme[], tol: number): WebhookCase[] {
  const body = v5Body(NOW);
  const signed = sign(s, KEY, body);
  const at = (now: number) => ({ secrets: [KEY], body, headers: signed, now });
  const add = (id: string, title: string, d: Delivery) => caseOf(id, title, s, d);
  return [
    add("valid", "a correctly signed delivery", { ...at(NOW), expect: ok }),
    add("tolerance/exactly-past", `timestamp exactly ${tol} ms in the past`, { ...at(NOW + tol), expect: ok }),
    add("tolerance/exactly-future", `timestamp exactly ${tol} ms in the future`, { ...at(NOW - tol), expect: ok }),
    add("tolerance/past-plus-1ms", `timestamp ${tol + 1} ms in the past`, {
      ...at(NOW + tol + 1),
      expect: no("timestamp_out_of_tolerance"),
    }),
    add("tolerance/future-plus-1ms", `timestamp ${tol + 1} ms in the future`, {
      ...at(NOW - tol - 1),
      expect: no("timestamp_out_of_tolerance"),
    }),
    ...tamperAndKeyCases(s, body, at(NOW)),
    add("headers/none", "no signature header at all", { ...at(NOW), headers: {}, expect: no("missing_signature") }),
    add("headers/lowercase", "header names in lower case (HTTP names are case-insensitive)", {
      ...at(NOW),
      headers: Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toLowerCase(), v])),
      expect: ok,
    }),
    add("headers/unknown-version", `a signature version other than ${versionValues(schemes).join(" or ")}`, {
      ...at(NOW),
      headers: { ...signed, [s.versionHeader.name]: unknownVersion(schemes) },
      expect: no("unsupported_version"),
    }),
    ...digestHeaders(s).flatMap((h) => prefixAndDigestCases(s, h, schemes, at(NOW))),
  ];
}

type Signed = { secrets: string[]; body: string; headers: Record<string, string>; now: number };

/** A body changed after signing, and deliveries signed with another, an old or a dropped key. */
function tamperAndKeyCases(s: SignatureScheme, body: string, base: Signed): WebhookCase[] {
  const add = (id: string, title: string, d: Delivery) => caseOf(id, title, s, d);
  return [
    add("tamper/body", "one character of the body changed after signing", {
      ...base,
      body: body.replace("verified", "rejected"),
      expect: no("signature_mismatch"),
    }),
    add("tamper/trailing-newline", "a newline appended to the body after signing", {
      ...base,
      body: `${body}\n`,
      expect: no("signature_mismatch"),
    }),
    add("tamper/reserialised", "the body re-serialised with spaces (same JSON, other bytes)", {
      ...base,
      body: JSON.stringify(JSON.parse(body), null, 1),
      expect: no("signature_mismatch"),
    }),
    add("key/wrong", "signed with another key", {
      ...base,
      headers: sign(s, WRONG_KEY, body),
      expect: no("signature_mismatch"),
    }),
    add("key/rotation-old", "signed with the old key while the receiver holds both", {
      ...base,
      secrets: [KEY, OLD_KEY],
      headers: sign(s, OLD_KEY, body),
      expect: ok,
    }),
    add("key/rotation-dropped", "signed with the old key after the receiver dropped it", {
      ...base,
      headers: sign(s, OLD_KEY, body),
      expect: no("signature_mismatch"),
    }),
  ];
}

/** One digest header without its prefix, with another header's prefix, one digit short, in upper case. */
function prefixAndDigestCases(s: SignatureScheme, h: SignatureHeader, schemes: readonly SignatureScheme[], base: Signed): WebhookCase[] {
  const signed = base.headers;
  const value = signed[h.name]!;
  const digest = value.slice((h.prefix ?? "").length);
  const short = h.name.replace(/^X-Svc-Signature-?/, "") || "signature";
  const other = schemes.flatMap(digestHeaders).find((o) => o.prefix !== h.prefix)!;
  const add = (id: string, title: string, d: Delivery) => caseOf(id, title, s, d);
  return [
    add(`prefix/${short}/missing`, `${h.name} without its prefix ${h.prefix}`, {
      ...base,
      headers: { ...signed, [h.name]: digest },
      expect: no("malformed_signature"),
    }),
    add(`prefix/${short}/other`, `${h.name} with the prefix of ${other.name}`, {
      ...base,
      headers: { ...signed, [h.name]: `${other.prefix}${digest}` },
      expect: no("malformed_signature"),
    }),
    add(`digest/${short}/short`, `${h.name} with 63 hex digits`, {
      ...base,
      headers: { ...signed, [h.name]: value.slice(0, -1) },
      expect: no("malformed_signature"),
    }),
    add(`digest/${short}/uppercase`, `${h.name} with the hex digits in upper case`, {
      ...base,
      headers: { ...signed, [h.name]: `${h.prefix}${digest.toUpperCase()}` },
      expect: ok,
    }),
  ];
}

/** Version 1: each digest on its own, a pair whose digests disagree, the wrong hash, the key on the wrong side. */
function v1DigestCases(v1: SignatureScheme): WebhookCase[] {
  const body = v5Body(NOW);
  const signed1 = sign(v1, KEY, body);
  const [sha, keccak] = digestHeaders(v1);
  const version = { [v1.versionHeader.name]: v1.versionHeader.value };
  const add = (id: string, title: string, headers: Record<string, string>, expect: Delivery["expect"]) =>
    caseOf(id, title, v1, { secrets: [KEY], body, headers, now: NOW, expect });
  return [
    add("digest/sha3-256-only", `only ${sha!.name} (SHA3-256)`, { [sha!.name]: signed1[sha!.name]!, ...version }, ok),
    add("digest/keccak-256-only", `only ${keccak!.name} (Keccak-256)`, { [keccak!.name]: signed1[keccak!.name]!, ...version }, ok),
    add(
      "digest/sha3-in-keccak-header",
      `the SHA3-256 digest sent as the Keccak-256 one`,
      { ...signed1, [keccak!.name]: `${keccak!.prefix}${signed1[sha!.name]!.slice(sha!.prefix!.length)}` },
      no("signature_mismatch"),
    ),
    add(
      "digest/sha2-not-sha3",
      "SHA-2 (not SHA3-256) in the SHA header",
      { [sha!.name]: `${sha!.prefix}${hex(sha256(concat(enc.encode(body), enc.encode(KEY))))}`, ...version },
      no("signature_mismatch"),
    ),
    add(
      "digest/key-prepended",
      "the key prepended instead of appended",
      { [sha!.name]: `${sha!.prefix}${hex(sha3_256(enc.encode(KEY + body)))}`, ...version },
      no("signature_mismatch"),
    ),
  ];
}

/** The deprecated body variant: `signature` left out of the hashed text (compact JSON of the rest). */
function bodyVariantCases(v1: SignatureScheme): WebhookCase[] {
  const [sha, keccak] = digestHeaders(v1);
  const unsigned = JSON.parse(v5Body(NOW)) as Record<string, unknown>;
  const text = JSON.stringify(unsigned);
  const embedded = JSON.stringify({
    ...unsigned,
    signature: {
      version: "1",
      sha256: `${sha!.prefix}${DIGESTS["sha3-256"](KEY, text)}`,
      keccak256: `${keccak!.prefix}${DIGESTS["keccak-256"](KEY, text)}`,
    },
  });
  const base = { secrets: [KEY], body: embedded, headers: {}, now: NOW };
  return [
    caseOf("body-variant/valid", "the deprecated body-embedded signature, allowed by the receiver", v1, {
      ...base,
      allowBodySignature: true,
      expect: ok,
    }),
    caseOf("body-variant/not-allowed", "the body-embedded signature when the receiver does not allow it", v1, {
      ...base,
      expect: no("missing_signature"),
    }),
    caseOf("body-variant/tampered", "the body-embedded signature over a changed body", v1, {
      ...base,
      body: embedded.replace("verified", "rejected"),
      allowBodySignature: true,
      expect: no("signature_mismatch"),
    }),
  ];
}

/** Signed, but not a payload: a body that is not JSON, and a payload without timestamp. */
function unreadablePayloadCases(v2: SignatureScheme): WebhookCase[] {
  const notJson = "not json";
  const noTimestamp = JSON.stringify({ ...JSON.parse(v5Body(NOW)), timestamp: undefined });
  return [
    caseOf("payload/not-json", "a correctly signed body that is not JSON", v2, {
      secrets: [KEY],
      body: notJson,
      headers: sign(v2, KEY, notJson),
      now: NOW,
      expect: no("invalid_payload"),
    }),
    caseOf("payload/no-timestamp", "a correctly signed payload without timestamp", v2, {
      secrets: [KEY],
      body: noTimestamp,
      headers: sign(v2, KEY, noTimestamp),
      now: NOW,
      expect: no("invalid_payload"),
    }),
  ];
}

/** Replay sequences: one delivery is accepted once, whatever signed it. */
function replaySequences(v2: SignatureScheme, v1: SignatureScheme, tol: number): WebhookSequence[] {
  const step = (s: SignatureScheme, key: string, secrets: readonly string[], b: string, now: number, expect: Delivery["expect"]): Delivery => ({
    secrets,
    body: b,
    headers: sign(s, key, b),
    now,
    expect,
  });
  const b1 = v5Body(NOW);
  const b2 = v5Body(NOW + 1000, { verificationStatus: "rejected", attempt: 1, maxAttempts: 5 });
  return [
    {
      id: "replay/same-delivery-twice",
      title: "the same delivery twice: the second is a replay",
      steps: [step(v2, KEY, [KEY], b1, NOW, ok), step(v2, KEY, [KEY], b1, NOW + 1, no("replayed"))],
    },
    {
      id: "replay/same-delivery-v1-twice",
      title: "the same version 1 delivery twice",
      steps: [step(v1, KEY, [KEY], b1, NOW, ok), step(v1, KEY, [KEY], b1, NOW + 1, no("replayed"))],
    },
    {
      id: "replay/across-versions",
      title: "the same body signed with version 2, then version 1: one delivery",
      steps: [step(v2, KEY, [KEY], b1, NOW, ok), step(v1, KEY, [KEY], b1, NOW + 1, no("replayed"))],
    },
    {
      id: "replay/across-rotated-keys",
      title: "the same body signed with the old key, then the new one: one delivery",
      steps: [step(v2, OLD_KEY, [KEY, OLD_KEY], b1, NOW, ok), step(v2, KEY, [KEY, OLD_KEY], b1, NOW + 1, no("replayed"))],
    },
    {
      id: "replay/new-change",
      title: "a new change (new timestamp) after a delivery is not a replay",
      steps: [step(v2, KEY, [KEY], b1, NOW, ok), step(v2, KEY, [KEY], b2, NOW + 1000, ok)],
    },
    {
      id: "replay/refused-then-valid",
      title: "a refused (stale) delivery is not remembered: the same bytes in time are accepted",
      steps: [step(v2, KEY, [KEY], b1, NOW + tol + 1, no("timestamp_out_of_tolerance")), step(v2, KEY, [KEY], b1, NOW, ok)],
    },
    {
      id: "replay/tampered-then-valid",
      title: "a tampered copy first does not block the genuine delivery",
      steps: [{ ...step(v2, KEY, [KEY], b1, NOW, no("signature_mismatch")), headers: sign(v2, WRONG_KEY, b1) }, step(v2, KEY, [KEY], b1, NOW, ok)],
    },
  ];
}
