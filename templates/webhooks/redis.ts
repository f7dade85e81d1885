/**
 * The shared replay store on Redis (`verispec/webhooks/redis`), for receivers running as several
 * instances. Its own module: receivers on one instance, or on runtimes without a Redis client, never load it.
 */
import { ReplayStoreUnavailableError, type ReplayStore } from "./replay.js";

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
      timer = setTimeout(
        () => reject(new ReplayStoreUnavailableError(`the replay store (Redis) did not answer within ${this.timeoutMs} ms; the delivery was not accepted`)),
        this.timeoutMs,
      );
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
