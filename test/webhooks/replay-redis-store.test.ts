// RedisReplayStore without a redis-server: a client that behaves like Redis's SET (NX honoured only
// when asked for), a real `redis` client that is not connected, and one that never answers.
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { createWebhookKit, ReplayStoreUnavailableError } from "../../templates/webhooks/index.js";
import { RedisReplayStore, type RedisSetClient } from "../../templates/webhooks/redis.js";
import { fixtureRules, signWebhook } from "./rules.fixture.js";
import { v5Body, vectors } from "./helpers.js";
import type { Loose } from "../support/loose.js";

/** SET as Redis does it: NX refuses an existing key (reply null), otherwise "OK". */
function fakeRedis(): RedisSetClient & { keys: Map<string, number> } {
  const keys = new Map<string, number>();
  return {
    keys,
    set: async (key, _value, options) => {
      if (options.NX && keys.has(key)) return null;
      keys.set(key, options.PX);
      return "OK";
    },
  };
}

async function caught(p: Promise<unknown>): Promise<Loose> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

describe("RedisReplayStore", () => {
  it("asks for SET NX with PX: the second add of a key is refused", async () => {
    const client = fakeRedis();
    const store = new RedisReplayStore(client, { keyPrefix: "p:" });
    expect(await store.addIfAbsent("k", 1234.2)).toBe(true);
    expect(await store.addIfAbsent("k", 1234.2)).toBe(false);
    expect(await store.addIfAbsent("other", 0)).toBe(true);
    expect([...client.keys]).toEqual([
      ["p:k", 1235],
      ["p:other", 1],
    ]);
  });

  it("Redis down (a real client that is not connected): ReplayStoreUnavailableError saying so; verification fails closed", async () => {
    const client = createClient({ socket: { host: "127.0.0.1", port: 1, reconnectStrategy: false } });
    const store = new RedisReplayStore(client);
    const err = await caught(store.addIfAbsent("k", 1000));
    expect(err).toBeInstanceOf(ReplayStoreUnavailableError);
    expect(err.message).toMatch(/^the replay store \(Redis\) is unavailable \(.+\); the delivery was not accepted$/);
    expect(err.cause).toBeInstanceOf(Error);
    const kit = createWebhookKit({ rules: fixtureRules, replayStore: store });
    const rawBody = v5Body(vectors.now);
    const headers = signWebhook({ version: "2", rawBody, secret: vectors.secret });
    await expect(kit.verifyWebhook({ rawBody, headers, secret: vectors.secret, now: vectors.now })).rejects.toBeInstanceOf(ReplayStoreUnavailableError);
  });

  it("an error with an empty message still says what happened", async () => {
    const store = new RedisReplayStore({ set: () => Promise.reject(new Error("")) });
    const err = await caught(store.addIfAbsent("k", 1000));
    expect(err.message).toBe("the replay store (Redis) is unavailable (Error); the delivery was not accepted");
  });

  it("a Redis that never answers: refused after timeoutMs, not hanging", async () => {
    const store = new RedisReplayStore({ set: () => new Promise(() => undefined) }, { timeoutMs: 30 });
    const err = await caught(store.addIfAbsent("k", 1000));
    expect(err).toBeInstanceOf(ReplayStoreUnavailableError);
    expect(err.message).toBe("the replay store (Redis) did not answer within 30 ms; the delivery was not accepted");
    expect(new RedisReplayStore(fakeRedis()).timeoutMs).toBe(2000);
    expect(() => new RedisReplayStore(fakeRedis(), { timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("RedisReplayStore details", () => {
  it("default key prefix and value; the error's name; a thrown non-error is 'unknown error'; its code is named", async () => {
    const calls: unknown[][] = [];
    const store = new RedisReplayStore({ set: async (...args) => (calls.push(args), "OK") });
    expect(await store.addIfAbsent("k", 10)).toBe(true);
    expect(calls).toEqual([["verispec:webhook:replay:k", "1", { NX: true, PX: 10 }]]);
    const odd = await caught(new RedisReplayStore({ set: () => Promise.reject("down") }).addIfAbsent("k", 1));
    expect(odd.name).toBe("ReplayStoreUnavailableError");
    expect(odd.message).toBe("the replay store (Redis) is unavailable (unknown error); the delivery was not accepted");
    const coded = await caught(
      new RedisReplayStore({ set: () => Promise.reject(Object.assign(new Error("connect failed"), { code: "ECONNREFUSED" })) }).addIfAbsent("k", 1),
    );
    expect(coded.message).toBe("the replay store (Redis) is unavailable (Error ECONNREFUSED); the delivery was not accepted");
    expect(() => new RedisReplayStore(fakeRedis(), { timeoutMs: -1 })).toThrow("RedisReplayStore: timeoutMs must be a positive number");
  });
});
