// Starts the sandbox: opens the store (migrations applied), restores the clock, starts the processing
// loop and the dispatcher, then listens, with the operator's routes, metrics and request log in front
// (ops.ts). `close()` (SIGTERM) drains: readiness turns 503, nothing new is accepted, in-flight requests,
// processing and deliveries finish within `shutdownTimeoutMs` (then the remaining connections are cut),
// the loops stop and the database closes.
import type { SignatureVersion } from "../webhooks/index.js";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { choice, type SandboxBinding } from "./binding.js";
import { SandboxClock } from "./clock.js";
import { Dispatcher } from "./dispatcher.js";
import type { SandboxLogger } from "./logging.js";
import { createMetrics, loadPromClient, type SandboxMetrics } from "./metrics.js";
import { createOps, OPS_PATHS } from "./ops.js";
import { DEFAULT_RETAIN_DAYS, sweep } from "./retention.js";
import { routeNamer } from "./routes.js";
import type { Account } from "./exchange.js";
import { createHandler } from "./server.js";
import { SandboxService } from "./service.js";
import { ControlReads } from "./service/reads.js";
import { closeWhenOpen, DEFAULT_TENANT, describeDb, openStore, type Db } from "./store/index.js";
import { type SandboxOptions, StartError, type TenantOptions, tenantsOf } from "./options.js";
import { processAll, shutdown } from "./stop.js";

export { type SandboxOptions, StartError, type TenantOptions, tenantsOf } from "./options.js";

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
async function restoreClock(options: SandboxOptions, { service, clock }: Account): Promise<void> {
  if (options.resetClock) await service.setClockOffset(0);
  const stored = await service.loadClockOffset();
  if (!clock.allows(stored)) {
    const whose = service.tenant === DEFAULT_TENANT ? "" : ` (tenant ${service.tenant})`;
    throw new StartError(
      `the sandbox clock${whose} stored in ${describeDb(options.db)} is ${String(stored)} ms ahead, outside 0 to ${clock.maxOffsetMs} ms: start once with --reset-clock to set it back to real time`,
      "VERISPEC_CLOCK_RANGE",
    );
  }
  clock.set(stored);
}

/** Each tenant's account: its own clock (restored from the store) and a service acting on its rows only. */
async function openAccounts(options: SandboxOptions, db: Db, tenants: readonly TenantOptions[]): Promise<Account[]> {
  const accounts = tenants.map((t): Account => {
    const clock = new SandboxClock(0, choice<number>(options.binding.spec, "controlApi", "maxClockOffsetMs"));
    const service = new SandboxService({
      binding: options.binding,
      db,
      clock,
      webhookUrls: t.webhookUrls,
      signatureVersion: t.signatureVersion,
      processingMs: options.processingMs,
      signingSecret: t.signingSecret,
      tenant: t.name,
    });
    return { name: t.name, credentials: t.credentials, service, reads: new ControlReads(service.core), clock };
  });
  for (const a of accounts) await restoreClock(options, a);
  return accounts;
}

/** Signs a tenant's webhook with its signing secret; a row of a tenant no longer configured is not signed (its delivery fails and is retried as the policy says). */
export function signer(
  binding: SandboxBinding,
  tenants: readonly TenantOptions[],
): (version: SignatureVersion, body: string, tenant: string) => Record<string, string> {
  const secrets = new Map(tenants.map((t) => [t.name, t.signingSecret]));
  return (version, body, tenant) => {
    const secret = secrets.get(tenant);
    if (secret === undefined) throw new Error(`no tenant ${tenant} in this sandbox's configuration: not signed, not sent`);
    return binding.signWebhook({ version, rawBody: body, secret });
  };
}

/** Listens on the configured host and port; a failure runs `stop` and is one StartError line. */
async function listenOrStop(server: Server, options: SandboxOptions, stop: () => Promise<void>): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (err) {
    await stop();
    const error = err as NodeJS.ErrnoException;
    const where = options.host.includes(":") ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`;
    throw new StartError(`cannot listen on ${where}: ${listenCause(error)} (${error.code ?? error.name})`, "VERISPEC_LISTEN", err);
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

export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  let tenants: readonly TenantOptions[];
  try {
    tenants = tenantsOf(options);
  } catch (err) {
    if (options.opening) await closeWhenOpen(options.opening);
    throw err;
  }
  // prom-client loads on this thread while the database starts on its own (start-up: sandbox-start.md).
  if (options.metrics !== false) loadPromClient().catch(() => {});
  const db = await (options.opening ?? openStore(options.db, options.cwd));
  const logger = options.logger ?? { event: (_level, message) => options.log(message), request: () => {} };
  let accounts: Account[];
  try {
    accounts = await openAccounts(options, db, tenants);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  const dispatcher = startDispatcher(options, db, tenants, accounts, logger);
  const loop = startProcessing(options, accounts, logger);
  const process = loop.process;

  let address = "";
  const tenantOf = new WeakMap<ServerResponse, string>();
  const handler = createHandler({
    binding: options.binding,
    db,
    accounts,
    maxBodyBytes: options.maxBodyBytes,
    requestedActionsPath: options.requestedActionsPath,
    // Request lines name the tenant when tenants were given; a one-account sandbox's lines stay as they were.
    onAccount: options.tenants ? (res, name) => tenantOf.set(res, name) : undefined,
    baseUrl: () => address,
    log: (line) => options.log(line),
    debug: options.debug,
    wakeProcessing: () => {
      process();
      dispatcher.wake();
    },
  });
  const ops = createOps({
    db,
    logger,
    metrics: options.metrics === false ? undefined : await loadMetrics(db, logger),
    routeOf: routeNamer(handler.routes, OPS_PATHS),
    tenantOf: (res) => tenantOf.get(res),
  });
  const serve = ops.wrap(handler);
  await dispatcher.start();
  // The handler answers every error itself; a rejection reaching here is logged, never left unhandled.
  const server = createServer((req, res) => void serve(req, res).catch((err: Error) => options.log(`internal error: ${err?.message}`)));
  server.keepAliveTimeout = 5000;
  await listenOrStop(server, options, async () => {
    // Nothing may keep the process alive after a failed start: the loops and the database are stopped.
    clearInterval(loop.tick);
    await dispatcher.stop().catch(() => {});
    await db.close().catch(() => {});
  });
  const retention = startRetention(db, accounts, logger, options.retainDays ?? DEFAULT_RETAIN_DAYS);
  const { port } = server.address() as AddressInfo;
  address = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`;

  let closing: Promise<void> | undefined;
  const parts = {
    ops,
    retention,
    tick: loop.tick,
    server,
    processing: loop.running,
    dispatcher,
    db,
    logger,
    timeoutMs: options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
  };
  return { url: address, db, close: () => (closing ??= shutdown(parts)) };
}

/** The webhook dispatcher of all accounts, woken by each account's service when rows are queued or change. */
function startDispatcher(options: SandboxOptions, db: Db, tenants: readonly TenantOptions[], accounts: readonly Account[], logger: SandboxLogger): Dispatcher {
  const dispatcher = new Dispatcher({
    db,
    sign: signer(options.binding, tenants),
    deliveryIdHeader: choice<string>(options.binding.spec, "deliveryId", "header"),
    mediaType: options.binding.spec.bodyMediaType,
    timeoutMs: options.deliveryTimeoutMs,
    delaysMs: options.retryDelaysMs,
    log: (line) => logger.event("warn", line),
  });
  for (const { service } of accounts) {
    service.onChange = () => dispatcher.wake();
    service.onQueued = (rows) => dispatcher.handOver(rows);
  }
  return dispatcher;
}

/** The processing loop: what is due is completed on a tick, one pass at a time; `process` runs a pass now. */
function startProcessing(options: SandboxOptions, accounts: readonly Account[], logger: SandboxLogger) {
  let processing: Promise<unknown> | undefined;
  const process = () => {
    if (processing) return;
    processing = processAll(accounts)
      .catch((err: Error) => logger.event("error", `processing: ${err.message}`))
      .finally(() => (processing = undefined));
  };
  const tick = setInterval(process, options.processingMs === "manual" ? 250 : Math.max(10, Math.min(100, options.processingMs / 4)));
  tick.unref();
  return { process, tick, running: () => processing };
}
