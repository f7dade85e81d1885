/**
 * Replay stores: an atomic "add if absent, with expiry" (the service's specification, section 6.4 "reject replays").
 * The Redis store has its own module (redis.ts, `verispec/webhooks/redis`).
 * `verifyWebhook` passes a TTL of twice the tolerance: a delivery accepted at time t has a timestamp
 * within t ± tolerance, so after t + 2 × tolerance a replay fails the timestamp check anyway.
 */
import { hmacSha256, toBytes, toHex } from "./bytes.js";

/** Bytes of HMAC-SHA256 a replay key keeps: 128 bits, and never a whole signature a store could hand out. */
const REPLAY_DIGEST_BYTES = 16;

/**
 * The replay keys of one delivery: "h:" + hex of the first 16 bytes of HMAC-SHA256 of the signed bytes,
 * under each configured signing key (one key, one entry; two during a rotation). A delivery is a replay
 * when any of its keys is already in the store, and all are recorded. Since a delivery verifies only
 * with a key in the configuration, a replay verifies with a key of both the first configuration and the
 * one it meets, and that key's entry was recorded: the same bytes are one delivery whatever signature
 * version (1 or 2) or signing key signed them, and across instances and rotations, as long as
 * consecutive configurations share a key (they must, for the old deliveries to verify at all). The
 * service's specification does not say where a delivery id would be carried, so the bytes are the
 * identity: a re-delivery has the same bytes. An older payload that embeds its `signature` object is
 * identified by the text without it, whether headers or the body carried the signature (`verify.ts`).
 *
 * Why keyed, not a plain SHA-256 of the bytes (verispec before issue 41): version 2 has already
 * computed HMAC-SHA256 of the body with the first key, so the common delivery (one key, version 2)
 * hashes its body once instead of twice. A shared store sees only keyed digests: it cannot confirm a
 * guessed body, and it never holds a presentable signature (16 of the 32 bytes).
 *
 * `known[i]`, when given, is HMAC-SHA256 of `signedBytes` under `secrets[i]`, already computed.
 */
export function replayKeys(secrets: readonly (string | Uint8Array)[], signedBytes: string | Uint8Array, known: readonly Uint8Array[] = []): string[] {
  const bytes = toBytes(signedBytes);
  const keys: string[] = new Array(secrets.length);
  for (let i = 0; i < secrets.length; i++) keys[i] = `h:${toHex(known[i] ?? hmacSha256(secrets[i]!, bytes), REPLAY_DIGEST_BYTES)}`;
  return keys;
}

export interface ReplayStore {
  /** Records `key` for `ttlMs`; true when it was absent (first delivery), false when already present. */
  addIfAbsent(key: string, ttlMs: number): Promise<boolean> | boolean;
}

export interface MemoryReplayStoreOptions {
  /** Upper bound on remembered deliveries; the oldest is evicted first. Default 100 000. */
  readonly maxEntries?: number;
  /** Clock in Unix ms, for tests. */
  readonly now?: () => number;
}

/**
 * In-process store, bounded in memory. Size `maxEntries` above your peak deliveries per
 * 2 × tolerance: an entry evicted early could be replayed until its timestamp is out of tolerance.
 * A receiver running as several instances needs a shared store such as `RedisReplayStore`
 * (`verispec/webhooks/redis`).
 */
export class MemoryReplayStore implements ReplayStore {
  readonly maxEntries: number;
  readonly #now: () => number;
  /** key → expiry (Unix ms); a Map iterates in insertion order, so the first key is the oldest. */
  readonly #entries = new Map<string, number>();

  constructor(options: MemoryReplayStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError("MemoryReplayStore: maxEntries must be a positive integer");
    }
    this.maxEntries = maxEntries;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  addIfAbsent(key: string, ttlMs: number): boolean {
    const now = this.#now();
    const expiry = this.#entries.get(key);
    if (expiry !== undefined && expiry > now) return false;
    if (expiry !== undefined) this.#entries.delete(key);
    this.#dropExpired(now);
    while (this.#entries.size >= this.maxEntries) this.#evictOldest();
    this.#entries.set(key, now + ttlMs);
    return true;
  }

  /** Expired entries sit at the front when TTLs are equal; stop at the first live one (amortised O(1)). */
  #dropExpired(now: number): void {
    for (const [key, expiry] of this.#entries) {
      if (expiry > now) return;
      this.#entries.delete(key);
    }
  }

  #evictOldest(): void {
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }
}

/**
 * The replay store could not be asked (Redis down, unreachable, too slow): the delivery was not
 * accepted. Not a `WebhookVerificationError`: nothing is wrong with the delivery, so a receiver should
 * answer 5xx and let the service deliver it again. The Redis client's error is `cause`.
 */
export class ReplayStoreUnavailableError extends Error {
  override readonly name = "ReplayStoreUnavailableError";
}
