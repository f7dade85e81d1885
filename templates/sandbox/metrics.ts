// Prometheus metrics at GET /metrics (prom-client, an optional peer dependency loaded only here): requests
// by method, route and status, a latency histogram by route, deliveries by state, the delivery queue's
// depth and its oldest queued row's age. The database figures are read at scrape time. Labels are route
// templates (routes.ts), never a caller's path; nothing else a request carried is recorded.
import type { Db } from "./store/index.js";
import { oldestQueuedCreatedAt, outboxCountsByState, queuedCount } from "./store/outbox.js";

export interface SandboxMetrics {
  /** One finished request. */
  observe(method: string, route: string, status: number, seconds: number): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

interface Labelled {
  labels(...values: string[]): { inc(): void; observe(v: number): void; set(v: number): void };
  reset(): void;
  set(v: number): void;
}
interface PromClient {
  Registry: new () => { contentType: string; metrics(): Promise<string> };
  Counter: new (o: object) => Labelled;
  Histogram: new (o: object) => Labelled;
  Gauge: new (o: object) => Labelled;
  collectDefaultMetrics(o: object): void;
}

/** The delivery states the dispatcher writes (dispatcher.ts), each reported even when none is stored. */
const DELIVERY_STATES = ["queued", "delivered", "failed", "no_receiver"] as const;

let promClient: Promise<PromClient> | undefined;

/** prom-client, imported once (startSandbox begins this while the database starts: it takes about 0.1 s). */
export function loadPromClient(): Promise<PromClient> {
  promClient ??= import("prom-client").then((mod) => ((mod as unknown as { default?: PromClient }).default ?? mod) as unknown as PromClient);
  return promClient;
}

/** Loads prom-client and registers the sandbox's metrics in a registry of their own. */
export async function createMetrics(db: Db, now: () => number): Promise<SandboxMetrics> {
  const prom = await loadPromClient();
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry, prefix: "verispec_sandbox_" });
  const requests = new prom.Counter({
    name: "verispec_sandbox_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const latency = new prom.Histogram({
    name: "verispec_sandbox_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's end, by method and route template.",
    labelNames: ["method", "route"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new prom.Gauge({
    name: "verispec_sandbox_deliveries",
    help: "Webhook deliveries (outbox rows) stored, by state.",
    labelNames: ["state"],
    registers: [registry],
    async collect(this: Labelled) {
      const counts = await outboxCountsByState(db).catch(() => undefined);
      if (!counts) return;
      for (const state of new Set([...DELIVERY_STATES, ...counts.keys()])) this.labels(state).set(counts.get(state) ?? 0);
    },
  });
  new prom.Gauge({
    name: "verispec_sandbox_delivery_queue_depth",
    help: "Deliveries queued (waiting for their first try or a retry).",
    registers: [registry],
    async collect(this: Labelled) {
      const queued = await queuedCount(db).catch(() => undefined);
      if (queued !== undefined) this.set(queued);
    },
  });
  new prom.Gauge({
    name: "verispec_sandbox_delivery_oldest_queued_age_seconds",
    help: "Age of the oldest queued delivery (0 when none is queued).",
    registers: [registry],
    async collect(this: Labelled) {
      const oldest = await oldestQueuedCreatedAt(db).then(
        (at) => ({ at }),
        () => undefined,
      );
      if (oldest) this.set(oldest.at !== undefined ? Math.max(0, (now() - oldest.at) / 1000) : 0);
    },
  });
  return {
    observe: (method, route, status, seconds) => {
      requests.labels(method, route, String(status)).inc();
      latency.labels(method, route).observe(seconds);
    },
    scrape: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
