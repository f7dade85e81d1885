// Test support for the in-process sandbox tests: a PGlite database in memory with the migrations applied
// (loaded from the run's template, test/sandbox/pglite-template.ts), and the sandbox's parts wired as
// startSandbox wires them (service, dispatcher, HTTP handler on 127.0.0.1, port 0) over that database, so
// Stryker's in-process mutants are exercised. startSandbox itself is driven in index.test.ts.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { sandboxBinding } from "../../generated/sandbox.js";
import type { SandboxBinding } from "../../templates/sandbox/binding.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import { Dispatcher } from "../../templates/sandbox/dispatcher.js";
import { createHandler } from "../../templates/sandbox/server.js";
import { SandboxService } from "../../templates/sandbox/service.js";
import { openStore, type Db, type Row } from "../../templates/sandbox/store/index.js";
import { migrate, MIGRATIONS } from "../../templates/sandbox/store/migrations.js";
import { CREDENTIALS, ROOT, SIGNING_SECRET } from "./helpers.js";

export const binding = sandboxBinding as unknown as SandboxBinding;

interface PGliteLike {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  transaction<T>(fn: (tx: { query: PGliteLike["query"] }) => Promise<T>): Promise<T>;
  dumpDataDir(compression: "none"): Promise<Blob>;
  close(): Promise<void>;
}

const SETTINGS = ["wal_init_zero=off", "enable_bitmapscan=off"];

async function pglite(loadDataDir?: Blob): Promise<PGliteLike> {
  const { PGlite } = (await import("@electric-sql/pglite")) as unknown as {
    PGlite: { defaultStartParams: string[]; create(o: object): Promise<PGliteLike> };
  };
  return PGlite.create({ ...(loadDataDir ? { loadDataDir } : {}), startParams: [...PGlite.defaultStartParams, ...SETTINGS.flatMap((s) => ["-c", s])] });
}

/** The same Db over PGlite as store/pglite.ts makes (exclusive). */
function asDb(pg: PGliteLike): Db {
  const wrap = (q: { query: PGliteLike["query"] }) => ({
    query: async <T extends Row>(text: string, params?: readonly unknown[]) => (await q.query<T>(text, params ? [...params] : [])).rows,
  });
  return { kind: "pglite", exclusive: true, query: wrap(pg).query, transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))), close: () => pg.close() };
}

/** A fresh database in memory with every migration applied. */
export async function memoryDb(): Promise<Db> {
  const dir = process.env.VERISPEC_PGLITE_TEMPLATE;
  if (!dir) return openStore("memory", ROOT);
  const key = createHash("sha256").update(JSON.stringify(MIGRATIONS)).digest("hex").slice(0, 16);
  const file = join(dir, `pglite-${key}.tar`);
  if (existsSync(file)) return asDb(await pglite(new Blob([readFileSync(file)])));
  const pg = await pglite();
  const db = asDb(pg);
  await migrate(db);
  const dump = Buffer.from(await (await pg.dumpDataDir("none")).arrayBuffer());
  const part = `${file}.${randomUUID()}`;
  writeFileSync(part, dump);
  renameSync(part, file);
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

/** The sandbox's parts over `db`, wired as startSandbox wires them; `db` is not closed by close(). */
export async function harness(db: Db, o: HarnessOptions = {}): Promise<Harness> {
  const clock = new SandboxClock();
  const logs: string[] = [];
  const service = new SandboxService({
    binding, db, clock, webhookUrls: o.webhookUrls ?? [], signatureVersion: o.signatureVersion ?? "2", processingMs: o.processingMs ?? "manual", signingSecret: SIGNING_SECRET,
  });
  const dispatcher = new Dispatcher({
    db,
    sign: (version, body) => binding.signWebhook({ version, rawBody: body, secret: SIGNING_SECRET }),
    deliveryIdHeader: "X-Svc-Delivery-Id",
    timeoutMs: o.deliveryTimeoutMs ?? 5000,
    delaysMs: o.retryDelaysMs ?? [60_000],
    pollMs: 20,
    log: (line) => logs.push(line),
  });
  const dispatch = o.dispatch !== false;
  if (dispatch) service.onChange = () => dispatcher.wake();
  let address = "";
  const handler = createHandler({
    binding, service, db, clock, credentials: CREDENTIALS, maxBodyBytes: o.maxBodyBytes ?? 10_485_760, requestedActionsPath: o.requestedActionsPath ?? "/requestedActions",
    baseUrl: () => address,
    onClockAdvanced: () => {
      if (dispatch) dispatcher.wake();
    },
  });
  if (dispatch) await dispatcher.start();
  const server: Server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: address, db, clock, service, dispatcher, logs,
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
