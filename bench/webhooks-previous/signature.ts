/**
 * Signature digests for both versions (the service's specification, sections 6.4, 9).
 * v2: `sha256=` + hex HMAC-SHA256(key, raw body).
 * v1: `svc_sec_sha256_` + hex SHA3-256(raw body + key) and `svc_sec_keccak256_` + hex Keccak-256(raw body + key).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { keccak_256, sha3_256 } from "@noble/hashes/sha3.js";
import {
  HEADER_SIGNATURE_KECCAK,
  HEADER_SIGNATURE_SHA,
  HEADER_SIGNATURE_V2,
  HEADER_SIGNATURE_VERSION,
} from "./headers.js";

/** The exact bytes received: a string is taken as UTF-8. */
export type RawBody = string | Uint8Array;
/** A signing key: a string is taken as UTF-8. */
export type SigningSecret = string | Uint8Array;
export type SignatureVersion = "1" | "2";

export const V2_PREFIX = "sha256=";
export const V1_SHA_PREFIX = "svc_sec_sha256_";
export const V1_KECCAK_PREFIX = "svc_sec_keccak256_";

const encoder = new TextEncoder();

/** The 32 digest bytes after `prefix`, or undefined when the value is not `prefix` + 64 hex digits. */
// Declared as Uint8Array, not Buffer: these signatures reach the published .d.ts, and a project without
// @types/node has no `Buffer` type (docs/client-and-types.md).
export function parseDigest(value: string, prefix: string): Uint8Array | undefined {
  if (!value.startsWith(prefix)) return undefined;
  const hex = value.slice(prefix.length);
  if (hex.length !== 64) return undefined;
  // Node stops decoding hex at the first invalid character, so 32 bytes out means 64 valid digits in.
  const digest = Buffer.from(hex, "hex");
  return digest.length === 32 ? digest : undefined;
}

export function hmacSha256(secret: SigningSecret, body: RawBody): Uint8Array {
  // createHmac takes strings (as UTF-8) and byte views directly: no copy of the body.
  return createHmac("sha256", secret).update(body).digest();
}

export function sha3Digest(secret: SigningSecret, body: RawBody): Uint8Array {
  return sha3_256.create().update(toBytes(body)).update(toBytes(secret)).digest();
}

export function keccakDigest(secret: SigningSecret, body: RawBody): Uint8Array {
  return keccak_256.create().update(toBytes(body)).update(toBytes(secret)).digest();
}

/** Constant-time equality; both digests are 32 bytes, so `timingSafeEqual` never sees unequal lengths. */
export function digestsEqual(expected: Uint8Array, received: Uint8Array): boolean {
  return expected.length === received.length && timingSafeEqual(expected, received);
}

export function toBytes(value: RawBody): Uint8Array {
  return typeof value === "string" ? encoder.encode(value) : value;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

export interface SignWebhookInput {
  readonly version: SignatureVersion;
  readonly rawBody: RawBody;
  readonly secret: SigningSecret;
}

/** Headers a sender attaches, with the canonical capitalisation of section 6.4. of the service's specification For tests and local tools. */
export function signWebhook(input: SignWebhookInput): Record<string, string> {
  const { version, rawBody, secret } = input;
  assertSecret(secret, "signWebhook");
  if (version === "2") {
    return {
      [canonical(HEADER_SIGNATURE_V2)]: V2_PREFIX + toHex(hmacSha256(secret, rawBody)),
      [canonical(HEADER_SIGNATURE_VERSION)]: "2",
    };
  }
  if (version === "1") {
    return {
      [canonical(HEADER_SIGNATURE_SHA)]: V1_SHA_PREFIX + toHex(sha3Digest(secret, rawBody)),
      [canonical(HEADER_SIGNATURE_KECCAK)]: V1_KECCAK_PREFIX + toHex(keccakDigest(secret, rawBody)),
      [canonical(HEADER_SIGNATURE_VERSION)]: "1",
    };
  }
  throw new TypeError('signWebhook: version must be "1" or "2"');
}

/** Programmer errors, not refused deliveries: the message never contains the key. */
export function assertSecret(secret: unknown, where: string): asserts secret is SigningSecret {
  const ok = (typeof secret === "string" || secret instanceof Uint8Array) && secret.length > 0;
  if (!ok) throw new TypeError(`${where}: the signing key must be a non-empty string or Uint8Array`);
}

const CANONICAL_NAMES: Record<string, string> = {
  [HEADER_SIGNATURE_V2]: "X-Svc-Signature",
  [HEADER_SIGNATURE_SHA]: "X-Svc-Signature-SHA",
  [HEADER_SIGNATURE_KECCAK]: "X-Svc-Signature-KECCAK",
  [HEADER_SIGNATURE_VERSION]: "X-Svc-Signature-version",
};

function canonical(lowerName: string): string {
  return CANONICAL_NAMES[lowerName] ?? lowerName;
}
