// The digest checks of both signature versions (the service's specification, section 6.4): a header's value
// parsed against its prefix (spec/webhooks.yaml, through the scheme), then compared in constant time with each key.
import { WebhookVerificationError } from "./errors.js";
import { DUPLICATE_HEADER, type HeaderValue, type SignatureHeaders } from "./headers.js";
import {
  digestsEqual,
  hmacSha256,
  keccakDigest,
  parseDigest,
  sha3Digest,
  toHex,
  type DigestHeader,
  type RawBody,
  type SignatureScheme,
  type SigningSecret,
} from "./signature.js";

/** The digest bytes of `value`, which must be `header.prefix` + 64 hex digits; `shownAs` names the value in the refusal. */
export function expectDigest(value: HeaderValue, header: DigestHeader, shownAs = header.name): Uint8Array {
  const { prefix } = header;
  const digest = value === undefined || value === DUPLICATE_HEADER ? undefined : parseDigest(value, prefix);
  if (digest === undefined) {
    const problem = value === DUPLICATE_HEADER ? "was sent more than once" : `must be ${prefix} followed by 64 hex digits`;
    throw new WebhookVerificationError("malformed_signature", `${shownAs} ${problem}`);
  }
  return digest;
}

export interface V1Expected {
  readonly sha: Uint8Array | undefined;
  readonly keccak: Uint8Array | undefined;
}

export function v1Digests(scheme: SignatureScheme, headers: SignatureHeaders): V1Expected {
  return {
    sha: headers.sha === undefined ? undefined : expectDigest(headers.sha, scheme.v1.sha),
    keccak: headers.keccak === undefined ? undefined : expectDigest(headers.keccak, scheme.v1.keccak),
  };
}

/**
 * Returns verispec 0.1's replay key: the version plus the digest computed with the matching key. Each
 * digest computed is appended to `hmacs` (in the order of `secrets`).
 */
export function checkV2(secrets: readonly SigningSecret[], body: Uint8Array, expected: Uint8Array, hmacs: Uint8Array[]): () => string {
  for (const secret of secrets) {
    const digest = hmacSha256(secret, body);
    hmacs.push(digest);
    if (digestsEqual(digest, expected)) return () => `2:${toHex(digest)}`;
  }
  throw mismatch();
}

/** the service's specification, section 6.4 — every v1 digest header present must match, with the same key. */
export function checkV1(secrets: readonly SigningSecret[], body: RawBody, expected: V1Expected): string {
  for (const secret of secrets) {
    const sha = sha3Digest(secret, body);
    if (expected.sha !== undefined && !digestsEqual(sha, expected.sha)) continue;
    if (expected.keccak !== undefined && !digestsEqual(keccakDigest(secret, body), expected.keccak)) continue;
    return `1:${toHex(sha)}`;
  }
  throw mismatch();
}

export const constant = (value: string) => () => value;

function mismatch(): WebhookVerificationError {
  return new WebhookVerificationError("signature_mismatch", "the signature does not match the body with any configured signing key");
}
