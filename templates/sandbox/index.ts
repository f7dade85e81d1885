// Starts the sandbox: opens the store (migrations applied), restores the clock, starts the processing
// loop and the dispatcher, then listens, with the operator's routes, metrics and request log in front
// (ops.ts). `close()` (SIGTERM) drains: readiness turns 503, nothing new is accepted, in-flight requests,
// processing and deliveries finish within `shutdownTimeoutMs` (then the remaining connections are cut),
// the loops stop and the database closes.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { choice, type SandboxBinding } from "./binding.js";
import { SandboxClock } from "./clock.js";
import { Dispatcher } from "./dispatcher.js";
import { type SandboxLogger } from "./logging.js";
import { createMetrics, loadPromClient, type SandboxMetrics } from "./metrics.js";
import { createOps, OPS_PATHS } from "./ops.js";
import { DEFAULT_RETAIN_DAYS, sweep } from "./retention.js";
import { routeNamer } from "./routes.js";
import { createHandler, type Account, type Credentials } from "./server.js";
import { SandboxService } from "./service.js";
import { closeWhenOpen, DEFAULT_TENANT, describeDb, openStore, type Db } from "./store/index.js";

export interface SandboxOptions {
  readonly binding: SandboxBinding;
  readonly host: string;
  readonly port: number;
  /** A directory (PGlite), "memory", or a postgres:// URL. */
  readonly db: string;
  readonly cwd: string;
  /** The store of `db`, already opening (openStore, started by the caller while it loaded the rest); closed if the start fails. */
  readonly opening?: Promise<Db>;
  /**
   * The accounts (docs/operating-a-shared-sandbox.md, Tenants). Without it, the one account named
   * DEFAULT_TENANT made of `credentials`, `signingSecret`, `webhookUrls` and `signatureVersion`.
   */
  readonly tenants?: readonly TenantOptions[];
  readonly webhookUrls?: readonly string[];
  readonly signatureVersion?: "1" | "2";
  readonly processingMs: number | "manual";
  readonly requestedActionsPath: string;
  readonly maxBodyBytes: number;
  readonly credentials?: Credentials;
  readonly signingSecret?: string;
  readonly deliveryTimeoutMs: number;
  readonly retryDelaysMs: readonly number[];
  readonly log: (line: string) => void;
  /** Internal errors are logged with their stack. */
  readonly debug?: boolean;
  /** Sets a stored clock offset back to 0 (real time) before starting. */
  readonly resetClock?: boolean;
  /** Events and request lines (default: events as `log` lines, requests not logged). */
  readonly logger?: SandboxLogger;
  /** Serve Prometheus metrics at /metrics (default true; needs prom-client, else /metrics answers 404). */
  readonly metrics?: boolean;
  /** How long close() waits for in-flight requests, processing and deliveries (default 10,000 ms). */
  readonly shutdownTimeoutMs?: number;
  /** Days stored data is kept (retention.ts; default 30); 0 keeps everything. */
  readonly retainDays?: number;
}

/** One account of the sandbox: its credentials, signing secret and webhook receivers. */
export interface TenantOptions {
  /** Letters, digits, `_` and `-` (it labels rows, logs and metrics; never a secret). */
  readonly name: string;
  readonly credentials: Credentials;
  readonly signingSecret: string;
  readonly webhookUrls: readonly string[];
  readonly signatureVersion: "1" | "2";
}

/** Why the sandbox did not start, in one line for its user (the CLI prints it and exits 2). */
export class StartError extends Error {
  constructor(
    message: string,
    readonly code: "VERISPEC_LISTEN" | "VERISPEC_CLOCK_RANGE" | "VERISPEC_TENANTS",
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = "StartError";
  }
}

/** Why a listen failed, in words (the error's code stays beside them). */
function listenCause(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case "EADDRINUSE":
      return "the port is in use";
    case "EADDRNOTAVAIL":
      return "the address is not one of this machine's";
    case "EACCES":
      return "permission denied (a port below 1024 needs privileges)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return "the host name does not resolve";
    default:
      return err.message;
  }
}

/** How often retention looks for old data (it also looks once at start). */
const RETENTION_EVERY_MS = 3_600_000;

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** prom-client's metrics, or undefined (logged once) when it is not installed. */
async function loadMetrics(db: Db, logger: SandboxLogger): Promise<SandboxMetrics | undefined> {
  try {
    return await createMetrics(db, Date.now);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw err;
    logger.event("warn", "metrics off: prom-client is not installed (npm install prom-client)");
    return undefined;
  }
}

export interface RunningSandbox {
  readonly url: string;
  readonly db: Db;
  close(): Promise<void>;
}

/** An account's clock's stored offset (0 with --reset-clock); a stored offset out of range is a start-up error. */
async function restoreClock(o: SandboxOptions, { service, clock }: Account): Promise<void> {
  if (o.resetClock) await service.setClockOffset(0);
  const stored = await service.loadClockOffset();
  if (!clock.allows(stored)) {
    const whose = service.tenant === DEFAULT_TENANT ? "" : ` (tenant ${service.tenant})`;
    throw new StartError(
      `the sandbox clock${whose} stored in ${describeDb(o.db)} is ${String(stored)} ms ahead, outside 0 to ${clock.maxOffsetMs} ms: start once with --reset-clock to set it back to real time`,
      "VERISPEC_CLOCK_RANGE",
    );
  }
  clock.set(stored);
}

/** The accounts of the options: `tenants`, or the one account of the single-account options; names and service UIDs each distinct. */
export function tenantsOf(o: SandboxOptions): readonly TenantOptions[] {
  const tenants =
    o.tenants ??
    (o.credentials && o.signingSecret !== undefined
      ? [
          {
            name: DEFAULT_TENANT,
            credentials: o.credentials,
            signingSecret: o.signingSecret,
            webhookUrls: o.webhookUrls ?? [],
            signatureVersion: o.signatureVersion ?? "2",
          },
        ]
      : []);
  if (!tenants.length) throw new StartError("the sandbox needs an account: credentials and a signing secret, or tenants", "VERISPEC_TENANTS");
  const twice = (values: string[]) => values.find((v, i) => values.indexOf(v) !== i);
  if (twice(tenants.map((t) => t.name)) !== undefined) throw new StartError(`two tenants are named ${twice(tenants.map((t) => t.name))}`, "VERISPEC_TENANTS");
  // Not the UID itself: the message may reach a log, and which UIDs exist is the accounts' business.
  const uid = twice(tenants.map((t) => t.credentials.serviceUid));
  if (uid !== undefined)
    throw new StartError(
      `two tenants have one service UID (${tenants
        .filter((t) => t.credentials.serviceUid === uid)
        .map((t) => t.name)
        .join(", ")})`,
      "VERISPEC_TENANTS",
    );
  return tenants;
}

/** Each tenant's account: its own clock (restored from the store) and a service acting on its rows only. */
async function openAccounts(o: SandboxOptions, db: Db, tenants: readonly TenantOptions[]): Promise<Account[]> {
  const accounts = tenants.map((t): Account => {
    const clock = new SandboxClock(0, choice<number>(o.binding.spec, "controlApi", "maxClockOffsetMs"));
    const service = new SandboxService({
      binding: o.binding,
      db,
      clock,
      webhookUrls: t.webhookUrls,
      signatureVersion: t.signatureVersion,
      processingMs: o.processingMs,
      signingSecret: t.signingSecret,
      tenant: t.name,
    });
    return { name: t.name, credentials: t.credentials, service, clock };
  });
  for (const a of accounts) await restoreClock(o, a);
  return accounts;
}

/** Signs a tenant's webhook with its signing secret; a row of a tenant no longer configured is not signed (its delivery fails and is retried as the policy says). */
export function signer(
  binding: SandboxBinding,
  tenants: readonly TenantOptions[],
): (version: "1" | "2", body: string, tenant: string) => Record<string, string> {
  const secrets = new Map(tenants.map((t) => [t.name, t.signingSecret]));
  return (version, body, tenant) => {
    const secret = secrets.get(tenant);
    if (secret === undefined) throw new Error(`no tenant ${tenant} in this sandbox's configuration: not signed, not sent`);
    return binding.signWebhook({ version, rawBody: body, secret });
  };
}

/** Listens on the configured host and port; a failure runs `stop` and is one StartError line. */
async function listenOrStop(server: Server, o: SandboxOptions, stop: () => Promise<void>): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(o.port, o.host, () => resolve());
    });
  } catch (err) {
    await stop();
    const e = err as NodeJS.ErrnoException;
    const where = o.host.includes(":") ? `[${o.host}]:${o.port}` : `${o.host}:${o.port}`;
    throw new StartError(`cannot listen on ${where}: ${listenCause(e)} (${e.code ?? e.name})`, "VERISPEC_LISTEN", err);
  }
}

/** --retain-days: a sweep now and every RETENTION_EVERY_MS, one at a time, each account by its own clock; `stop` ends it, `running` is the sweep under way. */
function startRetention(
  db: Db,
  accounts: readonly Account[],
  logger: SandboxLogger,
  retainDays: number,
): { stop(): void; running(): Promise<unknown> | undefined } {
  let sweeping: Promise<unknown> | undefined;
  let stopping = false;
  const retain = () => {
    if (sweeping || retainDays === 0 || stopping) return;
    sweeping = sweep(db, {
      days: retainDays,
      now: Date.now,
      tenants: accounts.map((a) => ({ name: a.name, now: () => a.clock.now() })),
      stopped: () => stopping,
    })
      .then((t) => {
        if (t.verifications + t.deliveries + t.forms)
          logger.event(
            "info",
            `retention: removed ${t.verifications} verifications, ${t.deliveries} deliveries and ${t.forms} forms older than ${retainDays} days`,
          );
      })
      .catch((err: Error) => logger.event("error", `retention: ${err.message}`))
      .finally(() => (sweeping = undefined));
  };
  const timer = setInterval(retain, RETENTION_EVERY_MS);
  timer.unref();
  retain();
  return {
    stop: () => {
      stopping = true;
      clearInterval(timer);
    },
    running: () => sweeping,
  };
}

export async function startSandbox(o: SandboxOptions): Promise<RunningSandbox> {
  let tenants: readonly TenantOptions[];
  try {
    tenants = tenantsOf(o);
  } catch (err) {
    if (o.opening) await closeWhenOpen(o.opening);
    throw err;
  }
  // prom-client loads on this thread while the database starts on its own (start-up: sandbox-start.md).
  if (o.metrics !== false) loadPromClient().catch(() => {});
  const db = await (o.opening ?? openStore(o.db, o.cwd));
  const logger = o.logger ?? { event: (_level, message) => o.log(message), request: () => {} };
  let accounts: Account[];
  try {
    accounts = await openAccounts(o, db, tenants);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  const dispatcher = new Dispatcher({
    db,
    sign: signer(o.binding, tenants),
    deliveryIdHeader: choice<string>(o.binding.spec, "deliveryId", "header"),
    mediaType: o.binding.spec.bodyMediaType,
    timeoutMs: o.deliveryTimeoutMs,
    delaysMs: o.retryDelaysMs,
    log: (line) => logger.event("warn", line),
  });
  for (const { service } of accounts) {
    service.onChange = () => dispatcher.wake();
    service.onQueued = (rows) => dispatcher.handOver(rows);
  }

  let processing: Promise<unknown> | undefined;
  const process = () => {
    if (processing) return;
    processing = processAll(accounts)
      .catch((err: Error) => logger.event("error", `processing: ${err.message}`))
      .finally(() => (processing = undefined));
  };
  const tick = setInterval(process, o.processingMs === "manual" ? 250 : Math.max(10, Math.min(100, o.processingMs / 4)));
  tick.unref();

  let server: Server | undefined;
  let address = "";
  const tenantOf = new WeakMap<ServerResponse, string>();
  const handler = createHandler({
    binding: o.binding,
    db,
    accounts,
    maxBodyBytes: o.maxBodyBytes,
    requestedActionsPath: o.requestedActionsPath,
    // Request lines name the tenant when tenants were given; a one-account sandbox's lines stay as they were.
    onAccount: o.tenants ? (res, name) => tenantOf.set(res, name) : undefined,
    baseUrl: () => address,
    log: (line) => o.log(line),
    debug: o.debug,
    wakeProcessing: () => {
      process();
      dispatcher.wake();
    },
  });
  const ops = createOps({
    db,
    logger,
    metrics: o.metrics === false ? undefined : await loadMetrics(db, logger),
    routeOf: routeNamer(handler.routes, OPS_PATHS),
    tenantOf: (res) => tenantOf.get(res),
  });
  const serve = ops.wrap(handler);
  await dispatcher.start();
  // The handler answers every error itself; a rejection reaching here is logged, never left unhandled.
  server = createServer((req, res) => void serve(req, res).catch((err: Error) => o.log(`internal error: ${err?.message}`)));
  server.keepAliveTimeout = 5000;
  await listenOrStop(server, o, async () => {
    // Nothing may keep the process alive after a failed start: the loops and the database are stopped.
    clearInterval(tick);
    await dispatcher.stop().catch(() => {});
    await db.close().catch(() => {});
  });
  const retention = startRetention(db, accounts, logger, o.retainDays ?? DEFAULT_RETAIN_DAYS);
  const { port } = server.address() as AddressInfo;
  address = `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${port}`;

  let closing: Promise<void> | undefined;
  const parts = {
    ops,
    retention,
    tick,
    server,
    processing: () => processing,
    dispatcher,
    db,
    logger,
    timeoutMs: o.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
  };
  return { url: address, db, close: () => (closing ??= shutdown(parts)) };
}

/** Completes what is due for each account, one after another (each by its own clock). */
async function processAll(accounts: readonly Account[]): Promise<void> {
  for (const { service } of accounts) await service.processDue();
}

/** Drains, stops the loops, lets running work finish within the shutdown timeout (then closes its connections), closes the database. */
async function shutdown(p: {
  ops: { drain(): void };
  retention: { stop(): void; running(): Promise<unknown> | undefined };
  tick: NodeJS.Timeout;
  server: Server;
  processing: () => Promise<unknown> | undefined;
  dispatcher: Dispatcher;
  db: Db;
  logger: SandboxLogger;
  timeoutMs: number;
}): Promise<void> {
  p.ops.drain();
  p.retention.stop();
  clearInterval(p.tick);
  const closed = new Promise<void>((resolve) => p.server.close(() => resolve()));
  p.server.closeIdleConnections();
  const finished = (async () => {
    await closed;
    await p.processing();
    await p.retention.running();
    await p.dispatcher.stop();
  })();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), p.timeoutMs)));
  if ((await Promise.race([finished, bound])) === "late") {
    p.logger.event(
      "warn",
      "shutdown: work still running after the shutdown timeout; closing its connections (webhook deliveries still in flight are sent again after the restart)",
    );
    p.server.closeAllConnections();
    p.dispatcher.abandon(); // held deliveries are cut: sent again after the restart (docs/sandbox-delivery.md)
    await Promise.race([finished, new Promise((r) => setTimeout(r, 1000))]);
  }
  clearTimeout(timer);
  await p.db.close();
}
