/**
 * Replay stores: an atomic "add if absent, with expiry" (the service's specification, section 6.4 "reject replays").
 * The Redis store has its own module (redis.ts, `verispec/webhooks/redis`).
 * `verifyWebhook` passes a TTL of twice the tolerance: a delivery accepted at time t has a timestamp
 * within t ± tolerance, so after t + 2 × tolerance a replay fails the timestamp check anyway.
 */
import { sha256Hex, toBytes } from "./bytes.js";

/**
 * The replay key: identifies the delivery, not its signature. "d:" + hex SHA-256 of the signed bytes,
 * so the same bytes are one delivery whatever signature version (1 or 2) or signing key (old or new,
 * during a rotation) signed them, and whatever the header spelling. The service's specification does
 * not say where a delivery id would be carried, so the bytes are the identity: a re-delivery has the
 * same bytes. An older payload that embeds its `signature` object is identified by the text without
 * it, whether headers or the body carried the signature (`verify.ts`). A shared store sees only the
 * digest, never the body.
 */
export function deliveryKey(signedBytes: string | Uint8Array): string {
  return `d:${sha256Hex(toBytes(signedBytes))}`;
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
