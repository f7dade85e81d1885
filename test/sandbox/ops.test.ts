// Operating the sandbox (templates/sandbox/ops.ts, metrics.ts, logging.ts), as users run it: health and
// readiness without credentials, a Prometheus scrape after traffic, JSON logs that never carry a secret,
// and SIGTERM under load (every request the sandbox took is answered, deliveries in flight are recorded,
// exit 0).
import { request as httpRequest, Agent } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../templates/sandbox/store/index.js";
import { basic, call, CREDENTIALS, request, ROOT, SIGNING_SECRET, startReceiver, startSandbox, until, v5Individual, type Sandbox } from "./helpers.js";

/** The sample lines of a Prometheus exposition: `name{labels} value`. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

describe("health, readiness and metrics", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await startSandbox(["--db", "memory", "--processing-ms", "manual", "--webhook-url", receiver.url]);
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
    await receiver?.close();
  });

  it("answers /healthz and /readyz without credentials and shows no data", async () => {
    const health = await request(sandbox.url, "GET", "/healthz");
    expect([health.status, health.body]).toEqual([200, { status: "up" }]);
    const ready = await request(sandbox.url, "GET", "/readyz");
    expect([ready.status, ready.body]).toEqual([200, { status: "ready" }]);
    expect(ready.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    // The caller's own request id is kept when it is a plain token, replaced when it is not.
    expect((await request(sandbox.url, "GET", "/healthz", undefined, { "x-request-id": "abc-123" })).headers.get("x-request-id")).toBe("abc-123");
    expect((await request(sandbox.url, "GET", "/healthz", undefined, { "x-request-id": "a b" })).headers.get("x-request-id")).not.toBe("a b");
    // Other methods on these paths are the service's 404.
    expect((await request(sandbox.url, "POST", "/healthz", {})).status).toBe(404);
  });

  it("serves Prometheus metrics: requests by route and status, latency, deliveries by state, queue depth and age", async () => {
    const created = await call(sandbox.url, "POST", "/v5/verifications", v5Individual("Metric Person"));
    expect(created.status).toBe(200);
    const trace = created.body.trace as string;
    expect((await call(sandbox.url, "GET", `/v5/verifications/${trace}`)).status).toBe(200);
    expect((await call(sandbox.url, "GET", "/v5/verifications/no-such-trace")).status).toBe(404);
    await until(() => receiver.deliveries.length >= 1, "the initial webhook");
    const scraped = await until(async () => {
      const r = await fetch(`${sandbox.url}/metrics`);
      const m = samples(await r.text());
      return m.get('verispec_sandbox_deliveries{state="delivered"}') === 1 ? { r, m } : undefined;
    }, "the delivered row in the metrics");
    expect(scraped.r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = scraped.m;
    expect(m.get('verispec_sandbox_http_requests_total{method="POST",route="/v5/verifications",status="200"}')).toBe(1);
    expect(m.get('verispec_sandbox_http_requests_total{method="GET",route="/v5/verifications/{trace}",status="200"}')).toBe(1);
    expect(m.get('verispec_sandbox_http_requests_total{method="GET",route="/v5/verifications/{trace}",status="404"}')).toBe(1);
    expect(m.get('verispec_sandbox_http_request_duration_seconds_count{method="POST",route="/v5/verifications"}')).toBe(1);
    expect(m.get('verispec_sandbox_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v5/verifications"}')).toBe(1);
    expect(m.get('verispec_sandbox_deliveries{state="queued"}')).toBe(0);
    expect(m.get("verispec_sandbox_delivery_queue_depth")).toBe(0);
    expect(m.get("verispec_sandbox_delivery_oldest_queued_age_seconds")).toBe(0);
    // No label carries what a caller put in the path.
    expect([...m.keys()].some((k) => k.includes(trace) || k.includes("no-such-trace"))).toBe(false);
  });
});

describe("JSON logs", { timeout: 120_000 }, () => {
  it("writes one JSON object a line with time, level, request id, route, status and duration, and never a secret", async () => {
    const secret = CREDENTIALS.secret;
    const sandbox = await startSandbox(["--db", "memory", "--processing-ms", "manual", "--log-format", "json"]);
    try {
      const created = await call(sandbox.url, "POST", "/v5/verifications", v5Individual("Log Person"), { "x-request-id": "log-test-1" });
      expect(created.status).toBe(200);
      // The secret in every place a caller can put it: Basic header, query, path, older endpoints' body.
      await request(sandbox.url, "GET", `/v5/verifications/${secret}?secret=${secret}`, undefined, { authorization: basic() });
      await request(sandbox.url, "POST", "/verify", { metadata_serviceUid: CREDENTIALS.serviceUid, metadata_secretKey: secret, name: secret });
      await request(sandbox.url, "GET", `/${encodeURIComponent(secret)}`, undefined, {
        authorization: `Basic ${Buffer.from(`x:${secret}`).toString("base64")}`,
      });
      await request(sandbox.url, "GET", "/healthz", undefined, { "x-request-id": "log-test-last" });
      await until(() => sandbox.stderr.includes("log-test-last"), "the last request's line");
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
    const lines = sandbox.stderr.split("\n").filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = records.filter((r) => r.msg === "request");
    expect(requests).toHaveLength(5);
    expect(requests[0]).toMatchObject({ level: "info", requestId: "log-test-1", method: "POST", route: "/v5/verifications", status: 200 });
    for (const r of requests) {
      expect(Date.parse(String(r.time))).not.toBeNaN();
      expect(typeof r.durationMs).toBe("number");
      expect(Object.keys(r).sort()).toEqual(
        ["durationMs", "level", "method", "msg", "requestId", "route", "service", "status", "time"].concat("pid" in r ? ["pid"] : []).sort(),
      );
    }
    expect(requests.map((r) => r.route)).toEqual(["/v5/verifications", "/v5/verifications/{trace}", "/verify", "other", "/healthz"]);
    const everything = sandbox.stderr + sandbox.stdout;
    for (const form of [secret, Buffer.from(secret).toString("base64"), encodeURIComponent(secret), SIGNING_SECRET, basic().slice(6)])
      expect(everything).not.toContain(form);
    // The start lines on stdout are JSON too, one object a line, each with the text it stands for.
    const starts = sandbox.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(starts.map((r) => r.event)).toEqual(["serving", "listening", "page"]);
    expect(starts[1]).toMatchObject({ level: "info", service: "verispec-sandbox", msg: `verispec sandbox listening on ${sandbox.url}`, url: sandbox.url });
    expect(starts[2]).toMatchObject({ url: `${sandbox.url}/_sandbox` });
    for (const r of starts) expect(Date.parse(String(r.time))).not.toBeNaN();
  });

  it("refuses an unknown --log-format with usage and exit 2", async () => {
    await expect(startSandbox(["--db", "memory", "--log-format", "xml"])).rejects.toThrow(/sandbox exited 2: .*--log-format must be text or json/s);
  });
});

describe("graceful shutdown", () => {
  it("under load, SIGTERM answers every request it took, records the delivery in flight and exits 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verispec-shutdown-"));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let deliveryArrived!: () => void;
    const arrived = new Promise<void>((r) => (deliveryArrived = r));
    // The receiver holds its first answer until SIGTERM has been sent.
    const receiver = await startReceiver();
    receiver.server.removeAllListeners("request");
    receiver.server.on("request", (req, res) => {
      req.resume();
      req.on("end", () => {
        deliveryArrived();
        void held.then(() => res.writeHead(200).end());
      });
    });
    const sandbox = await startSandbox([
      "--db",
      join(dir, "db"),
      "--processing-ms",
      "manual",
      "--webhook-url",
      receiver.url,
      "--log-format",
      "json",
      "--shutdown-timeout-ms",
      "20000",
      "--delivery-timeout-ms",
      "60000",
    ]);
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const body = JSON.stringify(v5Individual("Load Person"));
    const outcomes: { id: string; status?: number; error?: string }[] = [];
    let n = 0;
    let stopped = false;
    const send = () =>
      new Promise<void>((resolve) => {
        const id = `load-${n++}`;
        const req = httpRequest(
          `${sandbox.url}/v5/verifications`,
          { method: "POST", agent, headers: { authorization: basic(), "content-type": "application/json", "x-request-id": id } },
          (res) => {
            res.resume();
            res.on("end", () => resolve(void outcomes.push({ id, status: res.statusCode })));
            res.on("error", (e) => resolve(void outcomes.push({ id, error: e.message })));
          },
        );
        req.on("error", (e: NodeJS.ErrnoException) => resolve(void outcomes.push({ id, error: e.code ?? e.message })));
        req.end(body);
      });
    const worker = async () => {
      while (!stopped) {
        await send();
        if (outcomes.at(-1)?.error) stopped = true;
      }
    };
    try {
      const load = Promise.all(Array.from({ length: 20 }, worker));
      await arrived; // a delivery is in flight
      await until(() => outcomes.filter((o) => o.status === 200).length >= 100, "100 answered creates");
      const exit = sandbox.stop("SIGTERM");
      // The delivery is held until the sandbox refuses new connections, so it is in flight through the drain.
      await until(() => stopped, "a refused connection");
      release();
      await load;
      expect(await exit).toBe(0);
    } finally {
      agent.destroy();
      release();
      await receiver.close();
    }
    // Every request the sandbox logged was answered in full, and every answer the client got is logged.
    const logged = new Map(
      sandbox.stderr
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { msg: string; requestId: string; status: number })
        .filter((r) => r.msg === "request")
        .map((r) => [r.requestId, r.status]),
    );
    const answered = outcomes.filter((o) => o.status !== undefined);
    expect(answered.every((o) => o.status === 200 && logged.get(o.id) === 200)).toBe(true);
    expect([...logged.values()].every((s) => s === 200)).toBe(true);
    expect(logged.size).toBe(answered.length);
    // Requests that got no answer were never taken: refused or reset before the sandbox read them.
    for (const o of outcomes.filter((x) => x.error)) expect(logged.has(o.id)).toBe(false);
    // The delivery in flight at SIGTERM was recorded as delivered before the database closed.
    const db = await openStore(join(dir, "db"), ROOT);
    try {
      const rows = await db.query<{ state: string }>("SELECT state FROM outbox ORDER BY id LIMIT 1");
      expect(rows[0]?.state).toBe("delivered");
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
