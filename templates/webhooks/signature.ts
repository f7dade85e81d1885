/**
 * Signature digests for both versions (the service's specification, sections 6.4, 9).
 * v2: the v2 header's prefix + hex HMAC-SHA256(key, raw body).
 * v1: each digest header's prefix + hex SHA3-256(raw body + key), and + hex Keccak-256(raw body + key).
 * The header names and prefixes are the spec's (spec/webhooks.yaml signatures), given in `SignatureScheme`.
 * No runtime built-in (bytes.ts): the same code runs on every JavaScript runtime.
 */
import { bytesEqual, fromHex, hmacSha256 as hmacBytes, keccakOf, sha3Of, toBytes, toHex, type RawBody } from "./bytes.js";

export type { RawBody } from "./bytes.js";
export { toBytes, toHex } from "./bytes.js";
/** A signing key: a string is taken as UTF-8. */
export type SigningSecret = string | Uint8Array;
/** The value of the version header that names a signature scheme: `2` and `1` in the service's specification, section 6.4 (spec/webhooks.yaml). */
export type SignatureVersion = string;

/** A digest header: its name as the service writes it and the text before the hex digest. */
export interface DigestHeader {
  readonly name: string;
  readonly prefix: string;
}

/** The signature headers of both versions (spec/webhooks.yaml signatures; the generator writes it into the rules). */
export interface SignatureScheme {
  /** The header naming the version. */
  readonly versionHeader: string;
  /** The current scheme (HMAC-SHA256) and the value of the version header that names it. */
  readonly v2: DigestHeader & { readonly version: SignatureVersion };
  /** The older scheme (SHA3-256 and Keccak-256 digests) and the value of the version header that names it. */
  readonly v1: { readonly version: SignatureVersion; readonly sha: DigestHeader; readonly keccak: DigestHeader };
}

/** The 32 digest bytes after `prefix`, or undefined when the value is not `prefix` + 64 hex digits. */
export function parseDigest(value: string, prefix: string): Uint8Array | undefined {
  if (value.length !== prefix.length + 64 || !value.startsWith(prefix)) return undefined;
  return fromHex(value, prefix.length);
}

export function hmacSha256(secret: SigningSecret, body: RawBody): Uint8Array {
  return hmacBytes(secret, toBytes(body));
}

export function sha3Digest(secret: SigningSecret, body: RawBody): Uint8Array {
  return sha3Of(toBytes(body), toBytes(secret));
}

export function keccakDigest(secret: SigningSecret, body: RawBody): Uint8Array {
  return keccakOf(toBytes(body), toBytes(secret));
}

/** Constant-time equality (bytes.ts); digests of different lengths are unequal. */
export function digestsEqual(expected: Uint8Array, received: Uint8Array): boolean {
  return bytesEqual(expected, received);
}

export interface SignWebhookInput {
  readonly version: SignatureVersion;
  readonly rawBody: RawBody;
  readonly secret: SigningSecret;
}

/** Headers a sender attaches, named as the scheme writes them (section 6.4 of the service's specification). For tests and local tools. */
export function signWebhookWith(scheme: SignatureScheme, input: SignWebhookInput): Record<string, string> {
  const { version, rawBody, secret } = input;
  assertSecret(secret, "signWebhook");
  if (version === scheme.v2.version) {
    return {
      [scheme.v2.name]: scheme.v2.prefix + toHex(hmacSha256(secret, rawBody)),
      [scheme.versionHeader]: version,
    };
  }
  if (version === scheme.v1.version) {
    const { sha, keccak } = scheme.v1;
    return {
      [sha.name]: sha.prefix + toHex(sha3Digest(secret, rawBody)),
      [keccak.name]: keccak.prefix + toHex(keccakDigest(secret, rawBody)),
      [scheme.versionHeader]: version,
    };
  }
  throw new TypeError(`signWebhook: version must be "${scheme.v1.version}" or "${scheme.v2.version}"`);
}

/** Programmer errors, not refused deliveries: the message never contains the key. */
export function assertSecret(secret: unknown, where: string): asserts secret is SigningSecret {
  const ok = (typeof secret === "string" || secret instanceof Uint8Array) && secret.length > 0;
  if (!ok) throw new TypeError(`${where}: the signing key must be a non-empty string or Uint8Array`);
}
