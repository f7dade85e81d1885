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

export function webhookCases(model: Model): { cases: WebhookCase[]; sequences: WebhookSequence[]; toleranceMs: number } {
  const tol = model.webhookToleranceMs;
  const v2 = model.signatures.find((s) => s.version === "2")!;
  const v1 = model.signatures.find((s) => s.version === "1")!;
  const schemes = [v2, v1];
  const digestHeaders = (s: SignatureScheme) => s.headers.filter((h) => h.digest);
  const versionHeader = (s: SignatureScheme) => s.headers.find((h) => !h.digest)!;
  const cases: WebhookCase[] = [];
  const add = (id: string, title: string, s: SignatureScheme, d: Delivery) =>
    cases.push({ id: `v${s.version}/${id}`, title, signatureVersion: s.version, ...d });
  const ok = { verdict: "accept" } as const;
  const no = (reason: Reason) => ({ verdict: "reject", reason }) as const;

  for (const s of schemes) {
    const body = v5Body(NOW);
    const signed = sign(s, KEY, body);
    const at = (now: number) => ({ secrets: [KEY], body, headers: signed, now });
    add("valid", "a correctly signed delivery", s, { ...at(NOW), expect: ok });
    add("tolerance/exactly-past", `timestamp exactly ${tol} ms in the past`, s, { ...at(NOW + tol), expect: ok });
    add("tolerance/exactly-future", `timestamp exactly ${tol} ms in the future`, s, { ...at(NOW - tol), expect: ok });
    add("tolerance/past-plus-1ms", `timestamp ${tol + 1} ms in the past`, s, { ...at(NOW + tol + 1), expect: no("timestamp_out_of_tolerance") });
    add("tolerance/future-plus-1ms", `timestamp ${tol + 1} ms in the future`, s, { ...at(NOW - tol - 1), expect: no("timestamp_out_of_tolerance") });
    add("tamper/body", "one character of the body changed after signing", s, {
      ...at(NOW),
      body: body.replace("verified", "rejected"),
      expect: no("signature_mismatch"),
    });
    add("tamper/trailing-newline", "a newline appended to the body after signing", s, { ...at(NOW), body: `${body}\n`, expect: no("signature_mismatch") });
    add("tamper/reserialised", "the body re-serialised with spaces (same JSON, other bytes)", s, {
      ...at(NOW),
      body: JSON.stringify(JSON.parse(body), null, 1),
      expect: no("signature_mismatch"),
    });
    add("key/wrong", "signed with another key", s, { ...at(NOW), headers: sign(s, WRONG_KEY, body), expect: no("signature_mismatch") });
    add("key/rotation-old", "signed with the old key while the receiver holds both", s, {
      ...at(NOW),
      secrets: [KEY, OLD_KEY],
      headers: sign(s, OLD_KEY, body),
      expect: ok,
    });
    add("key/rotation-dropped", "signed with the old key after the receiver dropped it", s, {
      ...at(NOW),
      headers: sign(s, OLD_KEY, body),
      expect: no("signature_mismatch"),
    });
    add("headers/none", "no signature header at all", s, { ...at(NOW), headers: {}, expect: no("missing_signature") });
    add("headers/lowercase", "header names in lower case (HTTP names are case-insensitive)", s, {
      ...at(NOW),
      headers: Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toLowerCase(), v])),
      expect: ok,
    });
    add("headers/unknown-version", "a signature version other than 1 or 2", s, {
      ...at(NOW),
      headers: { ...signed, [versionHeader(s).name]: "3" },
      expect: no("unsupported_version"),
    });
    for (const h of digestHeaders(s)) {
      const value = signed[h.name]!;
      const digest = value.slice((h.prefix ?? "").length);
      const short = h.name.replace(/^X-Svc-Signature-?/, "") || "signature";
      add(`prefix/${short}/missing`, `${h.name} without its prefix ${h.prefix}`, s, {
        ...at(NOW),
        headers: { ...signed, [h.name]: digest },
        expect: no("malformed_signature"),
      });
      const other = schemes.flatMap(digestHeaders).find((o) => o.prefix !== h.prefix)!;
      add(`prefix/${short}/other`, `${h.name} with the prefix of ${other.name}`, s, {
        ...at(NOW),
        headers: { ...signed, [h.name]: `${other.prefix}${digest}` },
        expect: no("malformed_signature"),
      });
      add(`digest/${short}/short`, `${h.name} with 63 hex digits`, s, {
        ...at(NOW),
        headers: { ...signed, [h.name]: value.slice(0, -1) },
        expect: no("malformed_signature"),
      });
      add(`digest/${short}/uppercase`, `${h.name} with the hex digits in upper case`, s, {
        ...at(NOW),
        headers: { ...signed, [h.name]: `${h.prefix}${digest.toUpperCase()}` },
        expect: ok,
      });
    }
  }
  // Version 1: each digest on its own, and a pair whose digests disagree.
  const body = v5Body(NOW);
  const signed1 = sign(v1, KEY, body);
  const [sha, keccak] = digestHeaders(v1);
  add("digest/sha3-256-only", `only ${sha!.name} (SHA3-256)`, v1, {
    secrets: [KEY],
    body,
    headers: { [sha!.name]: signed1[sha!.name]!, [versionHeader(v1).name]: "1" },
    now: NOW,
    expect: ok,
  });
  add("digest/keccak-256-only", `only ${keccak!.name} (Keccak-256)`, v1, {
    secrets: [KEY],
    body,
    headers: { [keccak!.name]: signed1[keccak!.name]!, [versionHeader(v1).name]: "1" },
    now: NOW,
    expect: ok,
  });
  add("digest/sha3-in-keccak-header", `the SHA3-256 digest sent as the Keccak-256 one`, v1, {
    secrets: [KEY],
    body,
    headers: { ...signed1, [keccak!.name]: `${keccak!.prefix}${signed1[sha!.name]!.slice(sha!.prefix!.length)}` },
    now: NOW,
    expect: no("signature_mismatch"),
  });
  add("digest/sha2-not-sha3", "SHA-2 (not SHA3-256) in the SHA header", v1, {
    secrets: [KEY],
    body,
    headers: { [sha!.name]: `${sha!.prefix}${hex(sha256(concat(enc.encode(body), enc.encode(KEY))))}`, [versionHeader(v1).name]: "1" },
    now: NOW,
    expect: no("signature_mismatch"),
  });
  add("digest/key-prepended", "the key prepended instead of appended", v1, {
    secrets: [KEY],
    body,
    headers: { [sha!.name]: `${sha!.prefix}${hex(sha3_256(enc.encode(KEY + body)))}`, [versionHeader(v1).name]: "1" },
    now: NOW,
    expect: no("signature_mismatch"),
  });
  // The deprecated body variant: `signature` left out of the hashed text (compact JSON of the rest).
  const unsigned = JSON.parse(v5Body(NOW)) as Record<string, unknown>;
  const text = JSON.stringify(unsigned);
  const embedded = JSON.stringify({
    ...unsigned,
    signature: { version: "1", sha256: `${sha!.prefix}${DIGESTS["sha3-256"](KEY, text)}`, keccak256: `${keccak!.prefix}${DIGESTS["keccak-256"](KEY, text)}` },
  });
  add("body-variant/valid", "the deprecated body-embedded signature, allowed by the receiver", v1, {
    secrets: [KEY],
    body: embedded,
    headers: {},
    now: NOW,
    allowBodySignature: true,
    expect: ok,
  });
  add("body-variant/not-allowed", "the body-embedded signature when the receiver does not allow it", v1, {
    secrets: [KEY],
    body: embedded,
    headers: {},
    now: NOW,
    expect: no("missing_signature"),
  });
  add("body-variant/tampered", "the body-embedded signature over a changed body", v1, {
    secrets: [KEY],
    body: embedded.replace("verified", "rejected"),
    headers: {},
    now: NOW,
    allowBodySignature: true,
    expect: no("signature_mismatch"),
  });
  // Signed, but not a payload.
  const notJson = "not json";
  add("payload/not-json", "a correctly signed body that is not JSON", v2, {
    secrets: [KEY],
    body: notJson,
    headers: sign(v2, KEY, notJson),
    now: NOW,
    expect: no("invalid_payload"),
  });
  const noTimestamp = JSON.stringify({ ...JSON.parse(v5Body(NOW)), timestamp: undefined });
  add("payload/no-timestamp", "a correctly signed payload without timestamp", v2, {
    secrets: [KEY],
    body: noTimestamp,
    headers: sign(v2, KEY, noTimestamp),
    now: NOW,
    expect: no("invalid_payload"),
  });

  // Replay sequences: one delivery is accepted once, whatever signed it.
  const sequences: WebhookSequence[] = [];
  const step = (s: SignatureScheme, key: string, secrets: readonly string[], b: string, now: number, expect: Delivery["expect"]): Delivery => ({
    secrets,
    body: b,
    headers: sign(s, key, b),
    now,
    expect,
  });
  const b1 = v5Body(NOW);
  const b2 = v5Body(NOW + 1000, { verificationStatus: "rejected", attempt: 1, maxAttempts: 5 });
  sequences.push({
    id: "replay/same-delivery-twice",
    title: "the same delivery twice: the second is a replay",
    steps: [step(v2, KEY, [KEY], b1, NOW, ok), step(v2, KEY, [KEY], b1, NOW + 1, no("replayed"))],
  });
  sequences.push({
    id: "replay/same-delivery-v1-twice",
    title: "the same version 1 delivery twice",
    steps: [step(v1, KEY, [KEY], b1, NOW, ok), step(v1, KEY, [KEY], b1, NOW + 1, no("replayed"))],
  });
  sequences.push({
    id: "replay/across-versions",
    title: "the same body signed with version 2, then version 1: one delivery",
    steps: [step(v2, KEY, [KEY], b1, NOW, ok), step(v1, KEY, [KEY], b1, NOW + 1, no("replayed"))],
  });
  sequences.push({
    id: "replay/across-rotated-keys",
    title: "the same body signed with the old key, then the new one: one delivery",
    steps: [step(v2, OLD_KEY, [KEY, OLD_KEY], b1, NOW, ok), step(v2, KEY, [KEY, OLD_KEY], b1, NOW + 1, no("replayed"))],
  });
  sequences.push({
    id: "replay/new-change",
    title: "a new change (new timestamp) after a delivery is not a replay",
    steps: [step(v2, KEY, [KEY], b1, NOW, ok), step(v2, KEY, [KEY], b2, NOW + 1000, ok)],
  });
  sequences.push({
    id: "replay/refused-then-valid",
    title: "a refused (stale) delivery is not remembered: the same bytes in time are accepted",
    steps: [step(v2, KEY, [KEY], b1, NOW + tol + 1, no("timestamp_out_of_tolerance")), step(v2, KEY, [KEY], b1, NOW, ok)],
  });
  sequences.push({
    id: "replay/tampered-then-valid",
    title: "a tampered copy first does not block the genuine delivery",
    steps: [{ ...step(v2, KEY, [KEY], b1, NOW, no("signature_mismatch")), headers: sign(v2, WRONG_KEY, b1) }, step(v2, KEY, [KEY], b1, NOW, ok)],
  });
  return { cases, sequences, toleranceMs: tol };
}
