// Test support for the in-process sandbox tests: a PGlite database in memory with the migrations applied
// (loaded from a template: memoryDb), and the sandbox's parts wired as
// startSandbox wires them (service, dispatcher, HTTP handler on 127.0.0.1, port 0) over that database, so
// Stryker's in-process mutants are exercised. startSandbox itself is driven in index.test.ts.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { sandboxBinding } from "../../generated/sandbox.js";
import type { SandboxBinding } from "../../templates/sandbox/binding.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import { Dispatcher } from "../../templates/sandbox/dispatcher.js";
import type { SandboxOptions } from "../../templates/sandbox/index.js";
import { createHandler } from "../../templates/sandbox/server.js";
import { SandboxService, type ServiceOptions } from "../../templates/sandbox/service.js";
import { ControlReads } from "../../templates/sandbox/service/reads.js";
import { DEFAULT_TENANT, openStore, type Db, type Row } from "../../templates/sandbox/store/index.js";
import { pgliteDb } from "../../templates/sandbox/store/pglite-open.js";
import { migrate } from "../../templates/sandbox/store/migrations.js";
import type { Verification } from "../../templates/sandbox/store/verifications.js";
import { pgliteInMemory, readTemplate, templateName, writeTemplate } from "../../templates/sandbox/store/template.js";
import { CREDENTIALS, ROOT, SIGNING_SECRET } from "./helpers.js";

export const binding = sandboxBinding as unknown as SandboxBinding;

/** startSandbox's options for a test that starts it in-process: the memory store, port 0, processing by hand, no metrics. */
export const inProcessOptions: SandboxOptions = {
  binding,
  host: "127.0.0.1",
  port: 0,
  db: "memory",
  cwd: ROOT,
  processingMs: "manual",
  requestedActionsPath: "/requestedActions",
  maxBodyBytes: 1_000_000,
  credentials: CREDENTIALS,
  signingSecret: SIGNING_SECRET,
  deliveryTimeoutMs: 2000,
  retryDelaysMs: [],
  log: () => {},
  metrics: false,
};

/** A stored v5 individual verification awaiting processing, for tests that write rows through the store. */
export const verificationRow = (trace: string, request: Record<string, unknown>, patch: Partial<Verification> = {}): Verification => ({
  trace,
  api: "v5",
  userId: null,
  submissionId: `${trace}-s`,
  parentTrace: null,
  roles: null,
  type: "individual",
  subType: "data",
  name: "Pat Example",
  country: "AUS",
  request,
  verificationStatus: "pending",
  submissionStatus: "submitted",
  attempt: 1,
  maxAttempts: null,
  outcome: "approved",
  dueAt: null,
  formId: null,
  createdAt: 1,
  updatedAt: 1,
  ...patch,
});

/**
 * A database in memory for the tests of the file or `describe` that calls this: opened before them (handed
 * to `opened`), closed after them.
 */
export function useMemoryDb(opened: (db: Db) => void): void {
  let db: Db | undefined;
  beforeAll(async () => {
    db = await memoryDb();
    opened(db);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });
}

/**
 * A fresh database in memory with every migration applied: loaded from the package's template
 * (store/template.ts, built by npm run build) when it holds the current migrations, else from the run's
 * own dump (test/sandbox/pglite-template.ts), made by the first file that needs it.
 */
export async function memoryDb(): Promise<Db> {
  const shipped = readTemplate();
  // A template older than the current migrations (dist/ not rebuilt yet) gets the newer ones, as a start does.
  if (shipped) return migrated(pgliteDb(await pgliteInMemory(shipped)));
  const dir = process.env.VERISPEC_PGLITE_TEMPLATE;
  if (!dir) return openStore("memory", ROOT);
  const file = join(dir, templateName());
  if (!existsSync(file)) await writeTemplate(dir);
  return migrated(pgliteDb(await pgliteInMemory(readTemplate(file))));
}

async function migrated(db: Db): Promise<Db> {
  await migrate(db);
  return db;
}

export interface HarnessOptions {
  readonly webhookUrls?: readonly string[];
  readonly signatureVersion?: "1" | "2";
  readonly processingMs?: number | "manual";
  readonly maxBodyBytes?: number;
  readonly requestedActionsPath?: string;
  readonly deliveryTimeoutMs?: number;
  readonly retryDelaysMs?: readonly number[];
  /** Start the dispatcher and wake it after each change (default true). */
  readonly dispatch?: boolean;
}

export interface Harness {
  readonly url: string;
  readonly db: Db;
  readonly clock: SandboxClock;
  readonly service: SandboxService;
  readonly dispatcher: Dispatcher;
  readonly logs: string[];
  /** Runs processing once (what startSandbox's tick does). */
  process(): Promise<number>;
  close(): Promise<void>;
}

/** What a test changes of a service's options; `spec` replaces fields of the binding's spec. */
export type TestServiceOptions = Partial<ServiceOptions> & { readonly spec?: Partial<SandboxBinding["spec"]> };

/**
 * A service with the tests' defaults (the package's binding, a real-time clock of its own, no receivers,
 * processing by hand, the test signing secret), over `db` unless `store` is given.
 */
export function testService(db: Db | undefined, o: TestServiceOptions = {}): SandboxService {
  const { spec, ...options } = o;
  return new SandboxService({
    binding: spec ? { ...binding, spec: { ...binding.spec, ...spec } } : binding,
    db,
    clock: new SandboxClock(),
    webhookUrls: [],
    signatureVersion: "2",
    processingMs: "manual",
    signingSecret: SIGNING_SECRET,
    ...options,
  });
}

/** The sandbox's parts over `db`, wired as startSandbox wires them; `db` is not closed by close(). */
export async function harness(db: Db, o: HarnessOptions = {}): Promise<Harness> {
  const clock = new SandboxClock();
  const logs: string[] = [];
  const service = testService(db, {
    clock,
    webhookUrls: o.webhookUrls ?? [],
    signatureVersion: o.signatureVersion ?? "2",
    processingMs: o.processingMs ?? "manual",
  });
  const dispatcher = new Dispatcher({
    db,
    sign: (version, body) => binding.signWebhook({ version, rawBody: body, secret: SIGNING_SECRET }),
    deliveryIdHeader: "X-Svc-Delivery-Id",
    mediaType: binding.spec.bodyMediaType,
    timeoutMs: o.deliveryTimeoutMs ?? 5000,
    delaysMs: o.retryDelaysMs ?? [60_000],
    pollMs: 20,
    log: (line) => logs.push(line),
  });
  const dispatch = o.dispatch !== false;
  if (dispatch) service.onChange = () => dispatcher.wake();
  let address = "";
  const handler = createHandler({
    binding,
    db,
    accounts: [{ name: DEFAULT_TENANT, service, reads: new ControlReads(service.core), clock, credentials: CREDENTIALS }],
    maxBodyBytes: o.maxBodyBytes ?? 10_485_760,
    requestedActionsPath: o.requestedActionsPath ?? "/requestedActions",
    baseUrl: () => address,
    wakeProcessing: () => {
      if (dispatch) dispatcher.wake();
    },
  });
  if (dispatch) await dispatcher.start();
  const server: Server = createServer((req, res) => void handler(req, res));
  // The tests' in-memory PGlite shares this thread: a long query can hold the event loop past Node's 5 s keep-alive
  // timeout, whose timer then closes an idle socket just as fetch reuses it (ECONNRESET). Idle sockets stay open here.
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: address,
    db,
    clock,
    service,
    dispatcher,
    logs,
    process: () => service.processDue(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.stop();
    },
  };
}

/** The outbox rows of a trace, oldest first. */
export async function outbox(db: Db, trace: string): Promise<Row[]> {
  return db.query("SELECT * FROM outbox WHERE trace = $1 ORDER BY id", [trace]);
}

/** The plan Postgres makes for every statement `read` runs on `db`, in a transaction or not (each run as EXPLAIN; `read` sees no rows). */
export async function planOf(db: Db, read: (explain: Db) => Promise<unknown>): Promise<string> {
  const plans: Row[] = [];
  const explain: Db = {
    ...db,
    query: async <T extends Row>(text: string, params?: readonly unknown[]) => {
      plans.push(...(await db.query(`EXPLAIN ${text}`, params)));
      return [] as T[];
    },
    transaction: (fn) => fn(explain),
  };
  await read(explain);
  return plans.map((row) => String(row["QUERY PLAN"])).join("\n");
}
