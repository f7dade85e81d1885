/**
 * Replay stores: an atomic "add if absent, with expiry" (the service's specification, section 6.4 "reject replays").
 * `verifyWebhook` passes a TTL of twice the tolerance: a delivery accepted at time t has a timestamp
 * within t ± tolerance, so after t + 2 × tolerance a replay fails the timestamp check anyway.
 */

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
 * A receiver running as several instances needs a shared store such as `RedisReplayStore`.
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
 * The part of a connected `redis` (v4 to v6) client this store uses. Typed structurally so the
 * runtime does not import `redis` (an optional peer dependency).
 */
export interface RedisSetClient {
  set(key: string, value: string, options: { NX: true; PX: number }): Promise<unknown>;
}

export interface RedisReplayStoreOptions {
  /** Prefix for the keys; default "verispec:webhook:replay:". */
  readonly keyPrefix?: string;
}

/**
 * Shared store for receivers running as several instances: `SET key 1 NX PX ttl` is atomic in Redis,
 * so exactly one instance sees a given delivery as new. Errors from Redis propagate: a receiver
 * that cannot check for replays refuses to process rather than accepting blindly.
 */
export class RedisReplayStore implements ReplayStore {
  readonly keyPrefix: string;
  readonly #client: RedisSetClient;

  constructor(client: RedisSetClient, options: RedisReplayStoreOptions = {}) {
    this.#client = client;
    this.keyPrefix = options.keyPrefix ?? "verispec:webhook:replay:";
  }

  async addIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    // PX must be a positive integer for Redis.
    const px = Math.max(1, Math.ceil(ttlMs));
    const reply = await this.#client.set(this.keyPrefix + key, "1", { NX: true, PX: px });
    return reply === "OK";
  }
}
