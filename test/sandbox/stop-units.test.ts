// The sandbox's stop (templates/sandbox/stop.ts) with stand-in parts and a real HTTP server: what close() waits
// for and in which order, and what it does when work outlasts the shutdown timeout. Pure and fast.
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { Dispatcher } from "../../templates/sandbox/dispatcher.js";
import type { Account } from "../../templates/sandbox/exchange.js";
import { processAll, shutdown } from "../../templates/sandbox/stop.js";
import type { Db } from "../../templates/sandbox/store/index.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server on 127.0.0.1 whose handler answers `/quick` and never answers anything else. */
async function serverOn(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === "/quick") res.end("ok");
  });
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A GET on a kept-alive agent; resolves with the body, or the error's code when the connection is cut. */
function get(port: number, path: string, agent: Agent): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve(body));
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

/** Stand-in parts that record what happens to them in `events`. */
function parts(server: Server, events: string[], o: { processing?: Promise<unknown>; running?: Promise<unknown>; timeoutMs: number }) {
  return {
    ops: { drain: () => void events.push("drain") },
    retention: { stop: () => void events.push("retention stopped"), running: () => o.running },
    tick: setInterval(() => events.push("tick"), 1),
    server,
    processing: () => o.processing,
    dispatcher: { stop: async () => void events.push("dispatcher stopped"), abandon: () => void events.push("abandoned") } as unknown as Dispatcher,
    db: { close: async () => void events.push("db closed") } as unknown as Db,
    logger: { event: (level: string, message: string) => void events.push(`${level} ${message}`), request: () => {} },
    timeoutMs: o.timeoutMs,
  };
}

const LATE =
  "warn shutdown: work still running after the shutdown timeout; closing its connections (webhook deliveries still in flight are sent again after the restart)";

describe("shutdown", () => {
  it("drains and stops the loops at once, waits for processing and the retention sweep, then stops the dispatcher, then closes the database", async () => {
    const { server, port } = await serverOn();
    const agent = new Agent({ keepAlive: true });
    // A kept-alive idle connection does not hold the stop: it is closed at once.
    expect(await get(port, "/quick", agent)).toBe("ok");
    const events: string[] = [];
    let endProcessing!: () => void;
    let endSweep!: () => void;
    const processing = new Promise<void>((r) => (endProcessing = r));
    const running = new Promise<void>((r) => (endSweep = r));
    const stopped = shutdown(parts(server, events, { processing, running, timeoutMs: 5000 }));
    await sleep(50);
    expect(events).toEqual(["drain", "retention stopped"]);
    expect(server.listening).toBe(false);
    endProcessing();
    await sleep(20);
    expect(events).toEqual(["drain", "retention stopped"]);
    endSweep();
    await stopped;
    expect(events).toEqual(["drain", "retention stopped", "dispatcher stopped", "db closed"]);
    agent.destroy();
  });

  it("with nothing running: the same stop, at once", async () => {
    const { server } = await serverOn();
    const events: string[] = [];
    await shutdown(parts(server, events, { timeoutMs: 5000 }));
    expect(events).toEqual(["drain", "retention stopped", "dispatcher stopped", "db closed"]);
  });

  it("a request still in flight at the timeout: a warning, its connection cut, the held deliveries abandoned, and the database closed", async () => {
    const { server, port } = await serverOn();
    const agent = new Agent({ keepAlive: true });
    const events: string[] = [];
    const answer = get(port, "/never", agent);
    await sleep(50);
    await shutdown(parts(server, events, { timeoutMs: 100 }));
    expect(await answer).toBe("ECONNRESET");
    expect(events).toEqual(["drain", "retention stopped", LATE, "abandoned", "dispatcher stopped", "db closed"]);
    agent.destroy();
  });

  it("processing that never ends: after the warning it gets one more second, then the database is closed under it", async () => {
    const { server } = await serverOn();
    const events: string[] = [];
    const started = Date.now();
    await shutdown(parts(server, events, { processing: new Promise(() => {}), timeoutMs: 50 }));
    expect(events).toEqual(["drain", "retention stopped", LATE, "abandoned", "db closed"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });
});

describe("processAll", () => {
  it("completes each account's due work, one account after another", async () => {
    const events: string[] = [];
    const account = (name: string, ms: number) =>
      ({
        service: {
          processDue: async () => {
            events.push(`${name} start`);
            await sleep(ms);
            events.push(`${name} end`);
          },
        },
      }) as unknown as Account;
    await processAll([account("a", 30), account("b", 0)]);
    expect(events).toEqual(["a start", "a end", "b start", "b end"]);
  });
});
