// What the browser bundle of test/msw/browser.test.ts uses for `node:crypto`: templates/webhooks/ still imports
// it (its signer and replay keys; issue 37, section 1 makes that module runtime-neutral), though the v5
// requests this test makes never sign anything. Same functions, on @noble/hashes.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

const bytes = (v: string | Uint8Array) => (typeof v === "string" ? utf8ToBytes(v) : v);

export function createHmac(_algorithm: "sha256", key: string | Uint8Array) {
  const h = hmac.create(sha256, bytes(key));
  const self = { update: (data: string | Uint8Array) => (h.update(bytes(data)), self), digest: () => h.digest() };
  return self;
}

export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function hash(_algorithm: "sha256", data: string | Uint8Array): string {
  return bytesToHex(sha256(bytes(data)));
}
