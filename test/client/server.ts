// A real HTTP server for the client tests: records every request and answers with the current handler.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Parsed body, or undefined when empty or not JSON. */
  json: unknown;
}

export interface Reply {
  status?: number;
  /** Serialized as JSON unless `raw` is given. */
  body?: unknown;
  raw?: string;
  contentType?: string;
  /** Wait this long before answering (for timeouts). */
  delayMs?: number;
  /** Destroy the socket instead of answering (a network error on the client). */
  destroy?: boolean;
}

export type Handler = (req: Recorded, index: number) => Reply;

export interface TestServer {
  url: string;
  requests: Recorded[];
  /** Sets the handler and clears the recorded requests. */
  reply(handler: Handler | Reply): void;
  close(): Promise<void>;
}

const tryJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export async function startServer(): Promise<TestServer> {
  const requests: Recorded[] = [];
  let handler: Handler = () => ({ status: 200, body: {} });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const rec: Recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, json: tryJson(body) };
      requests.push(rec);
      const r = handler(rec, requests.length - 1);
      if (r.destroy) return void req.socket.destroy();
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(r.status ?? 200, { "content-type": r.contentType ?? (r.raw === undefined ? "application/json" : "text/plain") });
        res.end(r.raw ?? (r.body === undefined ? "" : JSON.stringify(r.body)));
      };
      if (r.delayMs)
        setTimeout(send, r.delayMs).unref(); // a long delay must not keep the test process alive
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(h) {
      requests.length = 0;
      handler = typeof h === "function" ? h : () => h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bind, read the port, close. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
