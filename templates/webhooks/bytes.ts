/**
 * Bytes, hex and digests with no runtime built-in in the import graph: the same module on Node, Deno, Bun,
 * workerd and in browsers. Hashes are `@noble/hashes` (audited, pure JavaScript, synchronous); Web Crypto
 * was measured beside it and is slower per delivery on Node (asynchronous, a thread-pool job a call). Where
 * the runtime hands out its native crypto without an import (`process.getBuiltinModule`, Node 20.16+,
 * Bun, Deno), HMAC-SHA256, SHA-256 and SHA3-256 use it: the same digests, at native speed (see
 * docs/engineering/benchmarks.md, "Webhook verification"). Keccak-256 is always `@noble/hashes`.
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

/** Hex of `bytes`, or of its first `length` bytes. */
export function toHex(bytes: Uint8Array, length = bytes.length): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BYTE_HEX[bytes[i]!]!;
  return out;
}

/** The value of each hex digit (either case) by character code below 128; -1 for every other character. */
const HEX_VALUE: Int8Array = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE[HEX_DIGITS.charCodeAt(i)] = i;
  HEX_VALUE[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i;
}

/**
 * The bytes of the hex digits of `hex` from `start` (an even count), or undefined when a character is not a
 * hex digit. Read in place: a signature header's digest is not copied out of it first.
 */
export function fromHex(hex: string, start = 0): Uint8Array | undefined {
  const digits = hex.length - start;
  if (digits < 0 || digits % 2 !== 0) return undefined;
  const out = new Uint8Array(digits / 2);
  let bad = 0; // any digit's -1 (a character that is none) sets the sign bit
  for (let i = 0, at = start; i < out.length; i++, at += 2) {
    const high = hex.charCodeAt(at);
    const low = hex.charCodeAt(at + 1);
    const h = high < 128 ? HEX_VALUE[high]! : -1;
    const l = low < 128 ? HEX_VALUE[low]! : -1;
    bad |= h | l;
    out[i] = (h << 4) | l;
  }
  return bad < 0 ? undefined : out;
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

/** The digests verification needs: portable (pure JavaScript) or native (the runtime's crypto). */
export interface Digests {
  readonly hmacSha256: (key: string | Uint8Array, body: Uint8Array) => Uint8Array;
  readonly sha256: (body: Uint8Array) => Uint8Array;
  readonly sha256Hex: (body: Uint8Array) => string;
  readonly sha3Of: (first: Uint8Array, second: Uint8Array) => Uint8Array;
}

/** The few members of Node's crypto module used here (Bun and Deno have the same). */
interface NativeCrypto {
  createHmac(algorithm: string, key: string | Uint8Array): NativeHash;
  createHash(algorithm: string): NativeHash;
  getHashes(): string[];
}
interface NativeHash {
  update(data: Uint8Array): NativeHash;
  digest(): Uint8Array;
  digest(encoding: "hex"): string;
}

/** The runtime's crypto module, when it gives it out without an import; undefined elsewhere (workerd, browsers). */
export function runtimeCrypto(scope: unknown = globalThis): NativeCrypto | undefined {
  const process = (scope as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const crypto = process?.getBuiltinModule?.("node:crypto") as NativeCrypto | undefined;
    return typeof crypto?.createHmac === "function" && crypto.getHashes().includes("sha3-256") ? crypto : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A string signing key's UTF-8 bytes, kept: the runtime's HMAC would encode the string again for every
 * delivery (about 100 ns of a 2.5 µs verification). Keys are few (one, two during a rotation); bounded.
 */
const keyBytes = new Map<string, Uint8Array>();
function keyBytesOf(key: string | Uint8Array): Uint8Array {
  if (typeof key !== "string") return key;
  let bytes = keyBytes.get(key);
  if (bytes === undefined) {
    bytes = encoder.encode(key);
    if (keyBytes.size >= 16) keyBytes.clear();
    keyBytes.set(key, bytes);
  }
  return bytes;
}

export function nativeDigests(crypto: NativeCrypto): Digests {
  return {
    hmacSha256: (key, body) => crypto.createHmac("sha256", keyBytesOf(key)).update(body).digest(),
    sha256: (body) => crypto.createHash("sha256").update(body).digest(),
    sha256Hex: (body) => crypto.createHash("sha256").update(body).digest("hex"),
    sha3Of: (first, second) => crypto.createHash("sha3-256").update(first).update(second).digest(),
  };
}

type KeyedHmac = ReturnType<typeof hmac.create>;
/**
 * HMAC's keyed state (the hashed inner and outer pads) per signing key, cloned for each body: two
 * compressions fewer per delivery. Keys are few (one, two during a rotation); the map is bounded.
 */
const keyedStates = new Map<string, KeyedHmac>();

function portableHmacSha256(key: string | Uint8Array, body: Uint8Array): Uint8Array {
  if (typeof key !== "string") return hmac(sha256, key, body);
  let keyed = keyedStates.get(key);
  if (keyed === undefined) {
    keyed = hmac.create(sha256, encoder.encode(key));
    if (keyedStates.size >= 16) keyedStates.clear();
    keyedStates.set(key, keyed);
  }
  return keyed.clone().update(body).digest();
}

export const portableDigests: Digests = {
  hmacSha256: portableHmacSha256,
  sha256: (body) => sha256(body),
  sha256Hex: (body) => toHex(sha256(body)),
  sha3Of: (first, second) => sha3_256.create().update(first).update(second).digest(),
};

const native = runtimeCrypto();
/** The digests in use: the runtime's native ones where it has them, else the portable ones. */
export const digests: Digests = native === undefined ? portableDigests : nativeDigests(native);

export const hmacSha256 = (key: string | Uint8Array, body: Uint8Array): Uint8Array => digests.hmacSha256(key, body);

export function sha256Hex(body: Uint8Array): string {
  return digests.sha256Hex(body);
}

/** SHA3-256 of `first` then `second` (v1 hashes the body followed by the key). */
export const sha3Of = (first: Uint8Array, second: Uint8Array): Uint8Array => digests.sha3Of(first, second);

export function keccakOf(first: Uint8Array, second: Uint8Array): Uint8Array {
  return keccak_256.create().update(first).update(second).digest();
}
