/**
 * Bytes, hex and digests with no runtime built-in: the same code on Node, Deno, Bun, workerd and in
 * browsers. Hashes are `@noble/hashes` (audited, pure JavaScript, synchronous); Web Crypto was measured
 * beside it and is slower per delivery on Node (see docs/engineering/benchmarks.md, "Webhook verification").
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256, sha3_256 } from "@noble/hashes/sha3.js";

/** The exact bytes received: a string is taken as UTF-8. */
export type RawBody = string | Uint8Array | ArrayBuffer;

const encoder = new TextEncoder();

export function toBytes(value: RawBody): Uint8Array {
  if (typeof value === "string") return encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  // A Uint8Array from another realm (an iframe's, a test runner's) fails instanceof: isView still sees bytes.
  const other = value as ArrayBufferView | ArrayBuffer;
  return ArrayBuffer.isView(other) ? new Uint8Array(other.buffer, other.byteOffset, other.byteLength) : new Uint8Array(other);
}

const HEX_DIGITS = "0123456789abcdef";
const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => HEX_DIGITS[i >> 4]! + HEX_DIGITS[i & 15]!);

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += BYTE_HEX[bytes[i]!]!;
  return out;
}

/** 0-15 for a hex digit (either case), -1 otherwise. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The bytes of an even-length hex string, or undefined at the first character that is not a hex digit. */
export function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    const high = hexValue(hex.charCodeAt(2 * i));
    const low = hexValue(hex.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return undefined;
    out[i] = (high << 4) | low;
  }
  return out;
}

/**
 * Constant-time equality of two byte strings of public length (digests): every byte is compared
 * whatever differs first, so the time does not tell how much of a forged digest was right.
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

type KeyedHmac = ReturnType<typeof hmac.create>;
/**
 * HMAC's keyed state (the hashed inner and outer pads) per signing key, cloned for each body: two
 * compressions fewer per delivery. Keys are few (one, two during a rotation); the map is bounded.
 */
const keyedStates = new Map<string, KeyedHmac>();

export function hmacSha256(key: string | Uint8Array, body: Uint8Array): Uint8Array {
  if (typeof key !== "string") return hmac(sha256, key, body);
  let keyed = keyedStates.get(key);
  if (keyed === undefined) {
    keyed = hmac.create(sha256, encoder.encode(key));
    if (keyedStates.size >= 16) keyedStates.clear();
    keyedStates.set(key, keyed);
  }
  return keyed.clone().update(body).digest();
}

export function sha256Hex(body: Uint8Array): string {
  return toHex(sha256(body));
}

/** SHA3-256 of `first` then `second` (v1 hashes the body followed by the key). */
export function sha3Of(first: Uint8Array, second: Uint8Array): Uint8Array {
  return sha3_256.create().update(first).update(second).digest();
}

export function keccakOf(first: Uint8Array, second: Uint8Array): Uint8Array {
  return keccak_256.create().update(first).update(second).digest();
}
