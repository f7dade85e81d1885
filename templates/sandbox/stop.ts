// The sandbox's loops and its stop: processing of what is due, and the drain on close() (SIGTERM).
import type { Server } from "node:http";
import type { Dispatcher } from "./dispatcher.js";
import type { SandboxLogger } from "./logging.js";
import type { Account } from "./exchange.js";
import type { Db } from "./store/index.js";

/** Completes what is due for each account, one after another (each by its own clock). */
export async function processAll(accounts: readonly Account[]): Promise<void> {
  for (const { service } of accounts) await service.processDue();
}

/** Drains, stops the loops, lets running work finish within the shutdown timeout (then closes its connections), closes the database. */
export async function shutdown(p: {
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
