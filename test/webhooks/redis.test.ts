/**
 * RedisReplayStore against a real redis-server (Debian package `redis-server`, installed by CI).
 * The server is started here on 127.0.0.1 on a free port, without persistence, and stopped after.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { createWebhookKit } from "../../templates/webhooks/index.js";
import { RedisReplayStore, type RedisSetClient } from "../../templates/webhooks/redis.js";
import { fixtureRules, signWebhook } from "./rules.fixture.js";
import { expectReason, v5Body, vectors } from "./helpers.js";
import { needProgram } from "../support/services.js";

const redis = needProgram("redis-server", "apt-get install -y redis-server");

const newClient = () => createClient({ socket: { host: "127.0.0.1", port } });
type Client = ReturnType<typeof newClient>;

let server: ChildProcess | undefined;
let port = 0;
const clients: Client[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function startRedis(listenPort: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(redis.path, ["--port", String(listenPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 15_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code}:\n${output}`));
    });
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  });
}

async function connect(): Promise<Client> {
  const client = newClient();
  client.on("error", () => undefined); // errors surface through the awaited commands
  await client.connect();
  clients.push(client);
  return client;
}

beforeAll(async () => {
  if (!redis.found) return;
  port = await freePort();
  server = await startRedis(port);
});

afterAll(async () => {
  for (const client of clients) await client.quit().catch(() => undefined);
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
});

describe.skipIf(!redis.found)("RedisReplayStore with a real redis-server", () => {
  it("accepts a real redis client without casts", async () => {
    const client = await connect();
    const typed: RedisSetClient = client;
    expect(await typed.set("verispec:test:probe", "1", { NX: true, PX: 1_000 })).toBe("OK");
  });

  it("two verifier instances sharing the store refuse a replay sent to the second", async () => {
    const prefix = `verispec:test:${port}:`;
    // Two instances of a receiver: separate connections, separate kits, one Redis.
    const first = createWebhookKit({ rules: fixtureRules, replayStore: new RedisReplayStore(await connect(), { keyPrefix: prefix }) });
    const second = createWebhookKit({ rules: fixtureRules, replayStore: new RedisReplayStore(await connect(), { keyPrefix: prefix }) });

    const rawBody = v5Body(vectors.now, { trace: "redis-trace" });
    const delivery = { rawBody, headers: signWebhook({ version: "2", rawBody, secret: vectors.secret }), secret: vectors.secret, now: vectors.now };

    await expect(first.verifyWebhook(delivery)).resolves.toMatchObject({ version: "2" });
    await expectReason(second.verifyWebhook(delivery), "replayed");
    await expectReason(first.verifyWebhook(delivery), "replayed");

    const inspector = await connect();
    const keys = await inspector.keys(`${prefix}*`);
    expect(keys).toHaveLength(1);
    const ttl = await inspector.pTTL(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2 * fixtureRules.toleranceMs);
    expect(keys[0]).not.toContain(vectors.secret);
  });

  it("a different delivery is still accepted by the second instance", async () => {
    const store = new RedisReplayStore(await connect(), { keyPrefix: `verispec:test:${port}:other:` });
    expect(await store.addIfAbsent("a", 60_000)).toBe(true);
    expect(await store.addIfAbsent("b", 60_000)).toBe(true);
    expect(await store.addIfAbsent("a", 60_000)).toBe(false);
  });
});
