// Starts the sandbox: opens the store (migrations applied), restores the clock, starts the processing
// loop and the dispatcher, then listens. `close()` stops accepting, lets in-flight requests finish, stops
// the loops and closes the database.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { choice, type SandboxBinding } from "./binding.js";
import { SandboxClock } from "./clock.js";
import { Dispatcher } from "./dispatcher.js";
import { createHandler, type Credentials } from "./server.js";
import { SandboxService } from "./service.js";
import { openStore, type Db } from "./store/index.js";

export interface SandboxOptions {
  readonly binding: SandboxBinding;
  readonly host: string;
  readonly port: number;
  /** A directory (PGlite), "memory", or a postgres:// URL. */
  readonly db: string;
  readonly cwd: string;
  readonly webhookUrls: readonly string[];
  readonly signatureVersion: "1" | "2";
  readonly processingMs: number | "manual";
  readonly requestedActionsPath: string;
  readonly maxBodyBytes: number;
  readonly credentials: Credentials;
  readonly signingSecret: string;
  readonly deliveryTimeoutMs: number;
  readonly retryDelaysMs: readonly number[];
  readonly log: (line: string) => void;
}

export interface RunningSandbox {
  readonly url: string;
  readonly db: Db;
  close(): Promise<void>;
}

export async function startSandbox(o: SandboxOptions): Promise<RunningSandbox> {
  const db = await openStore(o.db, o.cwd);
  const clock = new SandboxClock();
  const service = new SandboxService({
    binding: o.binding, db, clock, webhookUrls: o.webhookUrls, signatureVersion: o.signatureVersion, processingMs: o.processingMs, signingSecret: o.signingSecret,
  });
  clock.set(await service.loadClockOffset());
  const dispatcher = new Dispatcher({
    db,
    sign: (version, body) => o.binding.signWebhook({ version, rawBody: body, secret: o.signingSecret }),
    deliveryIdHeader: choice<string>(o.binding.spec, "deliveryId", "header"),
    timeoutMs: o.deliveryTimeoutMs,
    delaysMs: o.retryDelaysMs,
    log: o.log,
  });
  service.onChange = () => dispatcher.wake();
  service.onQueued = (rows) => dispatcher.handOver(rows);

  let processing: Promise<unknown> | undefined;
  const process = () => {
    if (processing) return;
    processing = service.processDue().catch((err: Error) => o.log(`processing: ${err.message}`)).finally(() => (processing = undefined));
  };
  const tick = setInterval(process, o.processingMs === "manual" ? 250 : Math.max(10, Math.min(100, o.processingMs / 4)));
  tick.unref();

  let server: Server | undefined;
  let address = "";
  const handler = createHandler({
    binding: o.binding, service, db, clock, credentials: o.credentials, maxBodyBytes: o.maxBodyBytes, requestedActionsPath: o.requestedActionsPath,
    baseUrl: () => address,
    onClockAdvanced: () => {
      process();
      dispatcher.wake();
    },
  });
  await dispatcher.start();
  server = createServer((req, res) => void handler(req, res));
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server!.once("error", reject);
    server!.listen(o.port, o.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  address = `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: address,
    db,
    close: () =>
      (closing ??= (async () => {
        clearInterval(tick);
        const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
        server!.closeIdleConnections();
        await closed;
        await processing;
        await dispatcher.stop();
        await db.close();
      })()),
  };
}
