// The operator's parts in-process (templates/sandbox/ops.ts, metrics.ts, logging.ts), over a stub store:
// ops.test.ts drives them through the CLI as users run it, where mutation testing cannot reach them.
import { mkdtempSync, openSync, readFileSync, rmSync, closeSync } from "node:fs";
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLogger, textLogger, type RequestLog } from "../../templates/sandbox/logging.js";
import { createMetrics, type SandboxMetrics } from "../../templates/sandbox/metrics.js";
import { createOps, OPS_PATHS, readiness } from "../../templates/sandbox/ops.js";
import type { Db, Row } from "../../templates/sandbox/store/index.js";
import { MIGRATIONS } from "../../templates/sandbox/store/migrations.js";

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

/** A store that answers each query by the first matching rule, or throws when `fail` is set. */
function stubDb(rules: readonly [RegExp, Row[]][], fail = false): Db {
  const query = async <T extends Row>(text: string): Promise<T[]> => {
    if (fail) throw new Error("connection refused");
    return (rules.find(([re]) => re.test(text))?.[1] ?? []) as T[];
  };
  return { query, transaction: (fn) => fn({ query }), close: async () => {}, kind: "pglite", exclusive: true };
}
const migrated = (version = LATEST) => stubDb([[/schema_migrations/, [{ v: version }]]]);

interface Answer {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}
function get(url: string, path: string, headers: Record<string, string> = {}, method = "GET", agent: Agent | false = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers, agent }, (res) => {
      let body = "";
      res
        .setEncoding("utf8")
        .on("data", (c: string) => (body += c))
        .on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject).end();
  });
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** createOps in front of a handler that answers 204 (or `inner`), on a port; the request log lines it wrote. */
async function opsServer(
  db: Db,
  metrics: SandboxMetrics | undefined,
  inner?: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  tenantOf?: (res: ServerResponse) => string | undefined,
) {
  const requests: RequestLog[] = [];
  const events: string[] = [];
  const ops = createOps({
    db,
    metrics,
    logger: { event: (level, message) => events.push(`${level} ${message}`), request: (r) => requests.push(r) },
    routeOf: (method, path) => ({ method, route: path.startsWith("/v5/verifications/") ? "/v5/verifications/{trace}" : path }),
    tenantOf,
  });
  const handle = inner ?? (async (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(204).end());
  const server = createServer((req, res) => void ops.wrap(handle)(req, res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  /** The log line of the request with this id, once its answer has closed. */
  const logged = async (requestId: string) => {
    for (let i = 0; i < 200 && !requests.some((r) => r.requestId === requestId); i++) await new Promise((r) => setImmediate(r));
    return requests.find((r) => r.requestId === requestId);
  };
  return { url: `http://127.0.0.1:${port}`, ops, requests, events, logged };
}

describe("readiness", () => {
  it("ready when the store holds the newest migration or a later one; the reason otherwise", async () => {
    expect(await readiness(migrated())).toEqual({ ready: true });
    expect(await readiness(migrated(LATEST + 1))).toEqual({ ready: true });
    expect(await readiness(migrated(LATEST - 1))).toEqual({
      ready: false,
      reason: `migrations not applied (database at ${LATEST - 1}, sandbox needs ${LATEST})`,
    });
    expect(await readiness(stubDb([], true))).toEqual({ ready: false, reason: "database unreachable" });
    expect(OPS_PATHS).toEqual(["/healthz", "/readyz", "/metrics"]);
  });
});

describe("createOps", () => {
  it("answers /healthz and /readyz for GET and HEAD only, without reaching the handler; other paths and methods go through", async () => {
    const s = await opsServer(migrated(), undefined);
    const health = await get(s.url, "/healthz");
    expect([health.status, health.body, health.headers["content-type"], health.headers["cache-control"]]).toEqual([
      200,
      '{"status":"up"}',
      "application/json; charset=utf-8",
      "no-store",
    ]);
    expect(health.headers["content-length"]).toBe(String(Buffer.byteLength(health.body)));
    expect((await get(s.url, "/healthz", {}, "HEAD")).status).toBe(200);
    expect((await get(s.url, "/readyz")).body).toBe('{"status":"ready"}');
    expect((await get(s.url, "/healthz", {}, "POST")).status).toBe(204);
    expect((await get(s.url, "/healthz/x")).status).toBe(204);
    expect((await get(s.url, "/healthz?x=1")).status).toBe(200);
  });

  it("/readyz: 503 with the reason when the store is behind or unreachable, and while draining; draining closes every connection", async () => {
    const behind = await opsServer(migrated(LATEST - 1), undefined);
    const r = await get(behind.url, "/readyz");
    expect([r.status, JSON.parse(r.body)]).toEqual([
      503,
      { status: "not ready", reason: `migrations not applied (database at ${LATEST - 1}, sandbox needs ${LATEST})` },
    ]);
    const down = await opsServer(stubDb([], true), undefined);
    expect(JSON.parse((await get(down.url, "/readyz")).body)).toEqual({ status: "not ready", reason: "database unreachable" });
    const s = await opsServer(migrated(), undefined);
    const keepAlive = new Agent({ keepAlive: true });
    try {
      expect((await get(s.url, "/readyz", {}, "GET", keepAlive)).headers.connection).toBe("keep-alive");
      s.ops.drain();
      const drained = await get(s.url, "/readyz", {}, "GET", keepAlive);
      expect([drained.status, JSON.parse(drained.body), drained.headers.connection]).toEqual([503, { status: "not ready", reason: "shutting down" }, "close"]);
      expect((await get(s.url, "/anything", {}, "GET", keepAlive)).headers.connection).toBe("close");
    } finally {
      keepAlive.destroy();
    }
  });

  it("/metrics: 404 with a line naming prom-client when metrics are off; the scrape when on; 503 when the scrape fails", async () => {
    const off = await opsServer(migrated(), undefined);
    const m = await get(off.url, "/metrics");
    expect([m.status, JSON.parse(m.body)]).toEqual([404, { status: "error", message: "Metrics need prom-client: npm install prom-client." }]);
    const on = await opsServer(migrated(), { observe: () => {}, scrape: async () => ({ contentType: "text/plain; version=0.0.4", body: "x 1\n" }) });
    const scraped = await get(on.url, "/metrics");
    expect([scraped.status, scraped.body, scraped.headers["content-type"]]).toEqual([200, "x 1\n", "text/plain; version=0.0.4"]);
    const failing = await opsServer(migrated(), { observe: () => {}, scrape: async () => Promise.reject(new Error("boom")) });
    const failed = await get(failing.url, "/metrics");
    expect([failed.status, JSON.parse(failed.body)]).toEqual([503, { status: "error", message: "Unavailable." }]);
  });

  it("every request: an id (the caller's plain token, else a new UUID), observed and logged once by route template with status and duration", async () => {
    const observed: unknown[][] = [];
    const s = await opsServer(migrated(), { observe: (...a) => void observed.push(a), scrape: async () => ({ contentType: "", body: "" }) });
    const mine = await get(s.url, "/v5/verifications/secret-trace?x=1", { "X-Request-Id": "req-1.a:b_c" });
    expect(mine.headers["x-request-id"]).toBe("req-1.a:b_c");
    const line = await s.logged("req-1.a:b_c");
    expect(line).toMatchObject({ requestId: "req-1.a:b_c", method: "GET", route: "/v5/verifications/{trace}", status: 204 });
    expect(line!.durationMs).toBeGreaterThanOrEqual(0);
    expect(line!.durationMs).toBeLessThan(60_000);
    expect(observed).toEqual([["GET", "/v5/verifications/{trace}", 204, expect.any(Number)]]);
    for (const bad of ["has space", "x".repeat(129), "a/b", ""]) {
      const r = await get(s.url, "/healthz", { "X-Request-Id": bad });
      expect(r.headers["x-request-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect((await s.logged(r.headers["x-request-id"] as string))?.route).toBe("/healthz");
    }
    expect((await get(s.url, "/healthz", { "X-Request-Id": "x".repeat(128) })).headers["x-request-id"]).toBe("x".repeat(128));
    expect(JSON.stringify(s.requests)).not.toContain("secret-trace");
  });

  it("a request's line names its tenant when the sandbox has one for it, and has no tenant key otherwise", async () => {
    const s = await opsServer(migrated(), undefined, undefined, (res) => (res.req.url === "/mine" ? "team-a" : undefined));
    await get(s.url, "/mine", { "X-Request-Id": "t-1" });
    await get(s.url, "/theirs", { "X-Request-Id": "t-2" });
    expect((await s.logged("t-1"))?.tenant).toBe("team-a");
    expect(Object.keys((await s.logged("t-2"))!)).not.toContain("tenant");
  });

  it("the duration is the request's, in milliseconds (a handler that takes 30 ms is logged at 30 ms or more)", async () => {
    const s = await opsServer(migrated(), undefined, async (_req, res) => {
      await new Promise((r) => setTimeout(r, 30));
      res.writeHead(200).end();
    });
    await get(s.url, "/slow", { "X-Request-Id": "d-1" });
    const ms = (await s.logged("d-1"))!.durationMs;
    expect(ms).toBeGreaterThanOrEqual(29);
    expect(ms).toBeLessThan(30_000);
    // At most three decimals as written (ms * 1000 need not be an exact integer in floating point: 30.123 * 1000 is not).
    expect(String(ms)).toMatch(/^\d+(\.\d{1,3})?$/);
  });

  it("a connection closed before its answer ended is logged with status 0", async () => {
    let hold: () => void = () => {};
    const s = await opsServer(
      migrated(),
      undefined,
      (_req, res) =>
        new Promise<void>((resolve) => {
          res.writeHead(200);
          res.write("partial");
          hold = () => resolve();
        }),
    );
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${s.url}/slow`, { headers: { "X-Request-Id": "cut-1" }, agent: false }, (res) => res.once("data", () => req.destroy()));
      req
        .on("close", () => resolve())
        .on("error", () => {})
        .end();
    });
    expect((await s.logged("cut-1"))?.status).toBe(0);
    hold();
  });
});

describe("createMetrics", () => {
  it("counts requests by method, route and status, times them by route, and reads the outbox at scrape time", async () => {
    const db = stubDb([
      [
        /GROUP BY state/,
        [
          { state: "delivered", n: "3" },
          { state: "archived", n: "1" },
        ],
      ],
      [/count\(\*\) AS n FROM outbox WHERE state = 'queued'/, [{ n: "2" }]],
      [/SELECT min\(created_at\) AS created_at FROM outbox/, [{ created_at: "10000" }]],
    ]);
    const metrics = await createMetrics(db, () => 25_000);
    metrics.observe("GET", "/healthz", 200, 0.003);
    metrics.observe("GET", "/healthz", 200, 0.2);
    metrics.observe("POST", "/v5/verifications", 422, 0.01);
    const { contentType, body } = await metrics.scrape();
    expect(contentType).toMatch(/^text\/plain/);
    const lines = new Set(body.split("\n"));
    for (const want of [
      'verispec_sandbox_http_requests_total{method="GET",route="/healthz",status="200"} 2',
      'verispec_sandbox_http_requests_total{method="POST",route="/v5/verifications",status="422"} 1',
      'verispec_sandbox_http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/healthz"} 0',
      'verispec_sandbox_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/healthz"} 1',
      'verispec_sandbox_http_request_duration_seconds_bucket{le="0.25",method="GET",route="/healthz"} 2',
      'verispec_sandbox_http_request_duration_seconds_count{method="GET",route="/healthz"} 2',
      'verispec_sandbox_deliveries{state="queued"} 0',
      'verispec_sandbox_deliveries{state="delivered"} 3',
      'verispec_sandbox_deliveries{state="failed"} 0',
      'verispec_sandbox_deliveries{state="no_receiver"} 0',
      'verispec_sandbox_deliveries{state="archived"} 1',
      "verispec_sandbox_delivery_queue_depth 2",
      "verispec_sandbox_delivery_oldest_queued_age_seconds 15",
    ])
      expect(lines, want).toContain(want);
    expect(body).toContain("# HELP verispec_sandbox_http_requests_total HTTP requests answered, by method, route template and status.");
    expect(body).toMatch(/^verispec_sandbox_process_cpu_user_seconds_total /m);
  });

  it("no queued delivery: age 0; a store that fails does not fail the scrape, and no delivery state is reported", async () => {
    const empty = await createMetrics(stubDb([[/count\(\*\)/, [{ n: "0" }]]]), () => 25_000);
    const lines = new Set((await empty.scrape()).body.split("\n"));
    expect(lines).toContain("verispec_sandbox_delivery_oldest_queued_age_seconds 0");
    expect(lines).toContain("verispec_sandbox_delivery_queue_depth 0");
    const future = await createMetrics(stubDb([[/SELECT min\(created_at\)/, [{ created_at: "90000" }]]]), () => 25_000);
    expect((await future.scrape()).body.split("\n")).toContain("verispec_sandbox_delivery_oldest_queued_age_seconds 0");
    const broken = await createMetrics(stubDb([], true), () => 0);
    const text = (await broken.scrape()).body;
    expect(text).toContain("# TYPE verispec_sandbox_delivery_queue_depth gauge");
    expect(text).not.toMatch(/^verispec_sandbox_deliveries\{/m);
    expect(text).toMatch(/^verispec_sandbox_http_requests_total|# TYPE verispec_sandbox_http_requests_total counter/m);
  });
});

describe("the loggers", () => {
  it("text: events as `verispec sandbox: <message>` lines, requests not logged", () => {
    const lines: string[] = [];
    const log = textLogger((l) => lines.push(l));
    log.event("warn", "a thing happened");
    log.request({ requestId: "r", method: "GET", route: "/healthz", status: 200, durationMs: 1 });
    expect(lines).toEqual(["verispec sandbox: a thing happened\n"]);
  });

  it("json: one object a line with ISO time, level name, service, message; a request line carries only its id, method, route, status and duration", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verispec-log-"));
    try {
      const fd = openSync(join(dir, "log"), "w");
      const log = await jsonLogger(fd);
      log.event("error", "it broke");
      log.event("info", "started");
      log.request({ requestId: "r-1", method: "POST", route: "/v5/verifications", status: 201, durationMs: 1.5 });
      log.request({ requestId: "r-2", method: "GET", route: "/healthz", status: 200, durationMs: 0.2, tenant: "team-a" });
      closeSync(fd);
      const lines = readFileSync(join(dir, "log"), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map(({ time: _t, pid: _p, hostname: _h, ...rest }) => rest)).toEqual([
        { level: "error", service: "verispec-sandbox", msg: "it broke" },
        { level: "info", service: "verispec-sandbox", msg: "started" },
        {
          level: "info",
          service: "verispec-sandbox",
          msg: "request",
          requestId: "r-1",
          method: "POST",
          route: "/v5/verifications",
          status: 201,
          durationMs: 1.5,
        },
        {
          level: "info",
          service: "verispec-sandbox",
          msg: "request",
          requestId: "r-2",
          method: "GET",
          route: "/healthz",
          status: 200,
          durationMs: 0.2,
          tenant: "team-a",
        },
      ]);
      for (const l of lines) expect(l.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
