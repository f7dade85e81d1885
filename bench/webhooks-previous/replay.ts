/**
 * Replay stores: an atomic "add if absent, with expiry" (the service's specification, section 6.4 "reject replays").
 * `verifyWebhook` passes a TTL of twice the tolerance: a delivery accepted at time t has a timestamp
 * within t ± tolerance, so after t + 2 × tolerance a replay fails the timestamp check anyway.
 */
import { hash } from "node:crypto";

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
  // crypto.hash: the one-shot form, about a quarter faster than createHash on a 2 kB body (Node >= 20.12).
  return `d:${hash("sha256", signedBytes, "hex")}`;
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
  /** How long to wait for Redis before refusing the delivery; default 2000 ms. */
  readonly timeoutMs?: number;
}

/**
 * The replay store could not be asked (Redis down, unreachable, too slow): the delivery was not
 * accepted. Not a `WebhookVerificationError`: nothing is wrong with the delivery, so a receiver should
 * answer 5xx and let the service deliver it again. The Redis client's error is `cause`.
 */
export class ReplayStoreUnavailableError extends Error {
  override readonly name = "ReplayStoreUnavailableError";
}

/**
 * Shared store for receivers running as several instances: `SET key 1 NX PX ttl` is atomic in Redis,
 * so exactly one instance sees a given delivery as new. When Redis fails or does not answer within
 * `timeoutMs`, `addIfAbsent` rejects with `ReplayStoreUnavailableError`: a receiver that cannot check
 * for replays refuses to process rather than accepting blindly (fail closed). A SET that still lands
 * after the timeout records a delivery that was refused; the service's next attempt then reads as
 * "replayed", so a receiver should treat "replayed" as done only once it has processed the first one.
 */
export class RedisReplayStore implements ReplayStore {
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  readonly #client: RedisSetClient;

  constructor(client: RedisSetClient, options: RedisReplayStoreOptions = {}) {
    const timeoutMs = options.timeoutMs ?? 2000;
    if (!(timeoutMs > 0)) throw new RangeError("RedisReplayStore: timeoutMs must be a positive number");
    this.#client = client;
    this.keyPrefix = options.keyPrefix ?? "verispec:webhook:replay:";
    this.timeoutMs = timeoutMs;
  }

  async addIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    // PX must be a positive integer for Redis.
    const px = Math.max(1, Math.ceil(ttlMs));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ReplayStoreUnavailableError(`the replay store (Redis) did not answer within ${this.timeoutMs} ms; the delivery was not accepted`)), this.timeoutMs);
    });
    try {
      const reply = await Promise.race([this.#client.set(this.keyPrefix + key, "1", { NX: true, PX: px }), timeout]);
      return reply === "OK";
    } catch (err) {
      if (err instanceof ReplayStoreUnavailableError) throw err;
      throw new ReplayStoreUnavailableError(`the replay store (Redis) is unavailable (${describe(err)}); the delivery was not accepted`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The error's kind, never its full text (which may quote a connection URL). */
function describe(err: unknown): string {
  const e = Object(err) as { name?: unknown; code?: unknown };
  return [e.name, e.code].filter((x) => typeof x === "string" && x !== "").join(" ") || "unknown error";
}
