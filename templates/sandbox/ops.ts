// What an operator's tools ask of a running sandbox, in front of the service's own routes (server.ts):
// GET /healthz (the process is up), GET /readyz (the database answers and has every migration this
// sandbox knows; 503 while shutting down, so a load balancer stops sending), GET /metrics (metrics.ts).
// None takes credentials and none shows data. Every request gets an id (X-Request-Id: the caller's when it
// is a plain token, else a new one), is timed, counted and logged by route template when it ends; while
// the sandbox drains, answers carry Connection: close so kept-alive connections end after their request.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxLogger } from "./logging.js";
import type { SandboxMetrics } from "./metrics.js";
import type { Db } from "./store/index.js";
import { appliedMigration, MIGRATIONS } from "./store/migrations.js";

export interface OpsOptions {
  readonly db: Db;
  readonly logger: SandboxLogger;
  /** Undefined: prom-client is not installed, /metrics answers 404 with a line saying so. */
  readonly metrics: SandboxMetrics | undefined;
  readonly routeOf: (method: string, path: string) => { method: string; route: string };
  /** The tenant whose credentials a request carried (its name, never a secret), for the request's log line. */
  readonly tenantOf?: (res: ServerResponse) => string | undefined;
}

/** The operator's paths, answered here before any route of the service. */
export const OPS_PATHS = ["/healthz", "/readyz", "/metrics"] as const;

const LATEST_MIGRATION = Math.max(...MIGRATIONS.map((m) => m.version));
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Readiness: the database answers and holds every migration this sandbox knows (or a newer one). */
export async function readiness(db: Db): Promise<{ ready: boolean; reason?: string }> {
  try {
    const v = await appliedMigration(db);
    return v >= LATEST_MIGRATION ? { ready: true } : { ready: false, reason: `migrations not applied (database at ${v}, sandbox needs ${LATEST_MIGRATION})` };
  } catch {
    return { ready: false, reason: "database unreachable" };
  }
}

export function createOps(options: OpsOptions) {
  let draining = false;
  const plain = (res: ServerResponse, status: number, body: string, type = "application/json; charset=utf-8") => {
    res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-store" });
    res.end(body);
  };

  /** Answers the operator's routes; false for any other request. */
  async function operate(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    if (path === "/healthz") {
      plain(res, 200, JSON.stringify({ status: "up" }));
      return true;
    }
    if (path === "/readyz") {
      const answer = draining ? { ready: false, reason: "shutting down" } : await readiness(options.db);
      plain(res, answer.ready ? 200 : 503, JSON.stringify(answer.ready ? { status: "ready" } : { status: "not ready", reason: answer.reason }));
      return true;
    }
    if (path === "/metrics") {
      if (!options.metrics) plain(res, 404, JSON.stringify({ status: "error", message: "Metrics need prom-client: npm install prom-client." }));
      else {
        const scraped = await options.metrics.scrape();
        plain(res, 200, scraped.body, scraped.contentType);
      }
      return true;
    }
    return false;
  }

  /** Wraps the service's handler: id, timing, draining, the operator's routes, then metrics and the log line. */
  const wrap =
    (handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>) =>
    async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const started = process.hrtime.bigint();
      const given = req.headers["x-request-id"];
      const requestId = typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader("X-Request-Id", requestId);
      if (draining) res.setHeader("Connection", "close");
      const path = (req.url ?? "/").split("?")[0]!;
      res.once("close", () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const { method, route } = options.routeOf(req.method ?? "GET", path);
        const status = res.writableFinished ? res.statusCode : 0; // 0: the connection closed before the answer ended
        options.metrics?.observe(method, route, status, seconds);
        const tenant = options.tenantOf?.(res);
        options.logger.request({ requestId, method, route, status, durationMs: Math.round(seconds * 1e6) / 1e3, ...(tenant !== undefined ? { tenant } : {}) });
      });
      try {
        if (await operate(req, res, path)) return;
      } catch {
        if (!res.headersSent) plain(res, 503, JSON.stringify({ status: "error", message: "Unavailable." }));
        return;
      }
      return handle(req, res);
    };

  return {
    wrap,
    /** From now on: /readyz answers 503 and every answer closes its connection. */
    drain: () => void (draining = true),
  };
}
