// startSandbox's wiring in-process (templates/sandbox/index.ts), each sandbox started inside its test so that
// Stryker counts what it runs: the signer of each tenant, metrics on and off, the tenant in request lines,
// retention at start (each tenant by its own clock, the default of 30 days, 0 keeping everything), an IPv6
// host, the dispatcher's timeout and retries, the processing tick, and a close() that outlasts its timeout.
// index-units.test.ts has the refusals; stop-units.test.ts the stop itself.
import { describe, expect, it } from "vitest";
import { MemoryReplayStore, verifyWebhook } from "../../generated/webhooks.js";
import type { RequestLog } from "../../templates/sandbox/logging.js";
import { signer, StartError, startSandbox } from "../../templates/sandbox/index.js";
import type { Db, Row } from "../../templates/sandbox/store/index.js";
import { CREDENTIALS, startReceiver, until, v5Individual } from "./helpers.js";
import { binding, inProcessOptions, memoryDb } from "./inprocess.js";

const DAY = 86_400_000;
const BASE = inProcessOptions;
const tenant = (name: string, webhookUrls: string[] = [], signatureVersion: "1" | "2" = "2") => ({
  name,
  credentials: { serviceUid: `${name}-uid`, secret: `${name}-secret` },
  signingSecret: `${name}-signing`,
  webhookUrls,
  signatureVersion,
});
const auth = (c: { serviceUid: string; secret: string }) => `Basic ${Buffer.from(`${c.serviceUid}:${c.secret}`).toString("base64")}`;

/** A verification row of `tenant` last changed at `updatedAt` (ms), as the service stores one. */
async function storedVerification(db: Db, tenantName: string, trace: string, updatedAt: number): Promise<void> {
  await db.query(
    `INSERT INTO verifications (tenant, trace, api, submission_id, type, name, request, verification_status, submission_status, attempt, outcome, created_at, updated_at)
     VALUES ($1, $2, 'v5', $2, 'individual', 'X', '{}', 'pending', 'submitted', 1, 'verified', $3, $3)`,
    [tenantName, trace, updatedAt],
  );
}

/** `db` with every statement it is sent, in and out of transactions, listed in `seen`. */
function recording(db: Db, seen: string[]): Db {
  const q =
    (target: { query: Db["query"] }) =>
    <T extends Row>(text: string, params?: readonly unknown[]) => {
      seen.push(text);
      return target.query<T>(text, params);
    };
  return { ...db, query: q(db), transaction: (fn) => db.transaction((tx) => fn({ query: q(tx) })) };
}

async function create(url: string, c = CREDENTIALS, name = "Start Units"): Promise<string> {
  const r = await fetch(`${url}/v5/verifications`, {
    method: "POST",
    headers: { authorization: auth(c), "content-type": "application/json" },
    body: JSON.stringify(v5Individual(name)),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { trace: string }).trace;
}

describe("signer: each tenant's webhooks", () => {
  it("are signed with that tenant's secret and the version asked; a tenant no longer configured is not signed", async () => {
    const sign = signer(binding, [tenant("a"), tenant("b")]);
    const body = JSON.stringify({ version: "v5", tags: [], attempt: 1, trace: "t-1", timestamp: Date.now() });
    for (const version of ["1", "2"] as const) {
      const headers = sign(version, body, "b");
      const verified = await verifyWebhook({ rawBody: body, headers, secret: "b-signing", replayStore: new MemoryReplayStore() });
      expect(verified.version).toBe(version);
      await expect(verifyWebhook({ rawBody: body, headers, secret: "a-signing", replayStore: new MemoryReplayStore() })).rejects.toThrow();
    }
    expect(() => sign("2", body, "gone")).toThrow(new Error("no tenant gone in this sandbox's configuration: not signed, not sent"));
  });
});

describe("metrics and request lines", () => {
  it("metrics are on unless turned off: /metrics counts the requests, and answers 404 saying why when off", async () => {
    const on = await startSandbox({ ...BASE, metrics: undefined, opening: memoryDb() });
    try {
      expect((await fetch(`${on.url}/healthz`)).status).toBe(200);
      const scraped = await fetch(`${on.url}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/^verispec_sandbox_http_requests_total\{[^}]*route="\/healthz"[^}]*\} 1$/m);
    } finally {
      await on.close();
    }
    const off = await startSandbox({ ...BASE, metrics: false, opening: memoryDb() });
    try {
      const r = await fetch(`${off.url}/metrics`);
      expect([r.status, await r.text()]).toEqual([404, JSON.stringify({ status: "error", message: "Metrics need prom-client: npm install prom-client." })]);
    } finally {
      await off.close();
    }
  });

  it("request lines name the tenant whose credentials a request carried when tenants are given; a one-account sandbox's lines name none", async () => {
    const requests: RequestLog[] = [];
    const logger = { event: () => {}, request: (r: RequestLog) => void requests.push(r) };
    const shared = await startSandbox({ ...BASE, tenants: [tenant("t0"), tenant("t1")], logger, opening: memoryDb() });
    try {
      expect((await fetch(`${shared.url}/_sandbox/state`, { headers: { authorization: auth(tenant("t1").credentials) } })).status).toBe(200);
      await until(() => requests.length === 1, "the request line");
      expect(requests[0]).toMatchObject({ method: "GET", status: 200, tenant: "t1" });
    } finally {
      await shared.close();
    }
    requests.length = 0;
    const single = await startSandbox({ ...BASE, logger, opening: memoryDb() });
    try {
      expect((await fetch(`${single.url}/_sandbox/state`, { headers: { authorization: auth(CREDENTIALS) } })).status).toBe(200);
      await until(() => requests.length === 1, "the request line");
      expect(requests[0]).toMatchObject({ method: "GET", status: 200 });
      expect(requests[0]).not.toHaveProperty("tenant");
    } finally {
      await single.close();
    }
  });
});

describe("retention at start", () => {
  it("removes what is older than --retain-days by each tenant's own clock, and says so in the log", async () => {
    const db = await memoryDb();
    const now = Date.now();
    await db.query("INSERT INTO sandbox_meta (key, value) VALUES ('clockOffset:t1', $1)", [String(10 * DAY)]);
    await storedVerification(db, "t0", "t0-old", now - 3 * DAY);
    await storedVerification(db, "t0", "t0-recent", now - DAY / 2);
    // Half a day old by the wall clock, ten and a half by t1's clock.
    await storedVerification(db, "t1", "t1-shifted", now - DAY / 2);
    const logs: string[] = [];
    const sandbox = await startSandbox({
      ...BASE,
      tenants: [tenant("t0"), tenant("t1")],
      retainDays: 2,
      log: (l) => logs.push(l),
      opening: Promise.resolve(db),
    });
    try {
      await until(() => logs.some((l) => l.startsWith("retention:")), "the retention line");
      expect(logs).toEqual(["retention: removed 2 verifications, 0 deliveries and 0 forms older than 2 days"]);
      expect((await db.query("SELECT trace FROM verifications ORDER BY trace")).map((r) => r.trace)).toEqual(["t0-recent"]);
    } finally {
      await sandbox.close();
    }
  });

  it("keeps 30 days by default, and everything with 0 (no delete is sent); a sweep that removes nothing logs nothing", async () => {
    const db = await memoryDb();
    const now = Date.now();
    await storedVerification(db, "default", "month-and-a-day", now - 31 * DAY);
    await storedVerification(db, "default", "four-weeks", now - 28 * DAY);
    const logs: string[] = [];
    const seen: string[] = [];
    const keeping = await startSandbox({ ...BASE, retainDays: 0, log: (l) => logs.push(l), opening: Promise.resolve(recording(db, seen)) });
    await keeping.close();
    expect(seen.filter((s) => s.startsWith("DELETE"))).toEqual([]);
    expect(logs).toEqual([]);

    const again = await memoryDb();
    await storedVerification(again, "default", "month-and-a-day", now - 31 * DAY);
    await storedVerification(again, "default", "four-weeks", now - 28 * DAY);
    const sandbox = await startSandbox({ ...BASE, log: (l) => logs.push(l), opening: Promise.resolve(again) });
    try {
      await until(() => logs.length > 0, "the retention line");
      expect(logs).toEqual(["retention: removed 1 verifications, 0 deliveries and 0 forms older than 30 days"]);
      expect((await again.query("SELECT trace FROM verifications")).map((r) => r.trace)).toEqual(["four-weeks"]);
    } finally {
      await sandbox.close();
    }
    // Nothing old: the sweep runs, removes nothing and says nothing.
    const quiet: string[] = [];
    const fresh = await startSandbox({ ...BASE, retainDays: 1, log: (l) => quiet.push(l), opening: memoryDb() });
    await fresh.close();
    expect(quiet).toEqual([]);
  });

  it("a sweep that fails is one error event, and the sandbox keeps serving", async () => {
    const db = await memoryDb();
    const failing: Db = { ...db, transaction: () => Promise.reject(new Error("disk on fire")) };
    const events: string[] = [];
    const sandbox = await startSandbox({
      ...BASE,
      retainDays: 1,
      logger: { event: (level, message) => void events.push(`${level} ${message}`), request: () => {} },
      opening: Promise.resolve(failing),
    });
    try {
      await until(() => events.length > 0, "the retention error");
      expect(events).toEqual(["error retention: disk on fire"]);
      expect((await fetch(`${sandbox.url}/healthz`)).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});

describe("an IPv6 host", () => {
  it("is written in brackets: in the sandbox's URL, and in the line of a listen that fails", async () => {
    const sandbox = await startSandbox({ ...BASE, host: "::1", opening: memoryDb() });
    const port = Number(new URL(sandbox.url).port);
    try {
      expect(sandbox.url).toBe(`http://[::1]:${port}`);
      expect((await fetch(`${sandbox.url}/healthz`)).status).toBe(200);
      const err = await startSandbox({ ...BASE, host: "::1", port, opening: memoryDb() }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StartError);
      expect((err as StartError).message).toBe(`cannot listen on [::1]:${port}: the port is in use (EADDRINUSE)`);
    } finally {
      await sandbox.close();
    }
  });
});

describe("a listen refused for a cause without words of its own", () => {
  it("gives the error's own message and code, and closes the store", async () => {
    const db = await memoryDb();
    const err = await startSandbox({ ...BASE, port: 70_000, opening: Promise.resolve(db) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartError);
    expect((err as StartError).message).toMatch(
      /^cannot listen on 127\.0\.0\.1:70000: options\.port should be >= 0 and < 65536\. Received .*70000.* \(ERR_SOCKET_BAD_PORT\)$/,
    );
    await expect(db.query("SELECT 1")).rejects.toThrow();
  });
});

describe("deliveries and processing", () => {
  it("a tenant's webhooks go to its receivers, signed with its secret and version, in the binding's media type; the timeout and retry delays are the options'", async () => {
    let calls = 0;
    const rx = await startReceiver(() => (++calls === 1 ? "hang" : 200));
    const sandbox = await startSandbox({
      ...BASE,
      tenants: [tenant("t0"), tenant("t1", [rx.url], "1")],
      deliveryTimeoutMs: 300,
      retryDelaysMs: [100],
      opening: memoryDb(),
    });
    try {
      const trace = await create(sandbox.url, tenant("t1").credentials);
      const d = await until(() => rx.deliveries[0], "the second attempt");
      expect(calls).toBe(2);
      expect(JSON.parse(d.body).trace).toBe(trace);
      expect(d.headers["content-type"]).toContain(binding.spec.bodyMediaType);
      expect(d.headers["x-svc-delivery-id"]).toMatch(/^[0-9a-f-]{36}$/);
      const verified = await verifyWebhook({ rawBody: d.body, headers: d.headers, secret: "t1-signing", replayStore: new MemoryReplayStore() });
      expect(verified.version).toBe("1");
      // t0 has no receivers: its create sends nothing.
      await create(sandbox.url, tenant("t0").credentials);
      const attempts = await sandbox.db.query("SELECT status_code FROM delivery_attempts ORDER BY id");
      expect(attempts.map((a) => a.status_code)).toEqual([null, 200]);
    } finally {
      await sandbox.close();
      await rx.close();
    }
  });

  it("with a processing time, a verification completes on the sandbox's own tick: its completion webhook comes with no request to wake it", async () => {
    const rx = await startReceiver();
    const sandbox = await startSandbox({ ...BASE, webhookUrls: [rx.url], processingMs: 200, opening: memoryDb() });
    try {
      const trace = await create(sandbox.url);
      const done = await until(
        () => rx.deliveries.map((d) => JSON.parse(d.body)).find((b) => b.trace === trace && b.verificationStatus !== "pending"),
        "the completion webhook",
      );
      expect(done.verificationStatus).not.toBe("pending");
    } finally {
      await sandbox.close();
      await rx.close();
    }
  });
});

describe("close()", () => {
  it("with a delivery held past the shutdown timeout: a warning, its connection cut, and the sandbox closed all the same", async () => {
    const rx = await startReceiver(() => "hang");
    const events: string[] = [];
    const sandbox = await startSandbox({
      ...BASE,
      webhookUrls: [rx.url],
      deliveryTimeoutMs: 600_000,
      shutdownTimeoutMs: 200,
      logger: { event: (level, message) => void events.push(`${level} ${message}`), request: () => {} },
      opening: memoryDb(),
    });
    try {
      await create(sandbox.url);
      await until(() => new Promise<boolean>((r) => rx.server.getConnections((_e, n) => r(n > 0))), "the held delivery");
      // Within its own timeout (200 ms, then a second's grace), well before the default 10 s.
      const started = Date.now();
      await sandbox.close();
      expect(Date.now() - started).toBeLessThan(8000);
      expect(events).toEqual([
        "warn shutdown: work still running after the shutdown timeout; closing its connections (webhook deliveries still in flight are sent again after the restart)",
      ]);
      await expect(sandbox.db.query("SELECT 1")).rejects.toThrow();
    } finally {
      await rx.close();
    }
  });
});
