// The local webhook receiver of `verispec conform --receive-on <host:port>`: records every delivery's exact
// bytes, headers and arrival time and answers 200 at once (section 6.1: answer promptly). Checking them is
// the runner's job, after the run.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";

export interface Received {
  readonly body: Buffer;
  readonly headers: IncomingHttpHeaders;
  /** Arrival, Unix ms. */
  readonly at: number;
}

export interface Receiver {
  readonly deliveries: Received[];
  /** Resolves when `done()` holds after a delivery (or at once), or when `ms` pass. */
  until(done: () => boolean, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;

/** `onDelivery`: called with each delivery as it is recorded (the proxy judges it then). */
export async function startReceiver(host: string, port: number, onDelivery?: (d: Received, n: number) => void): Promise<Receiver> {
  const deliveries: Received[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => {
      if (req.method === "POST" && size <= MAX_BODY) {
        const d = { body: Buffer.concat(chunks), headers: req.headers, at: Date.now() };
        deliveries.push(d);
        onDelivery?.(d, deliveries.length);
        for (const w of waiters) w();
      }
      res.writeHead(req.method === "POST" ? (size <= MAX_BODY ? 200 : 413) : 405, { "Content-Length": "0" }).end();
    });
    req.on("error", () => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    deliveries,
    until: (done, ms) =>
      new Promise<boolean>((resolve) => {
        if (done()) return resolve(true);
        const check = () => {
          if (!done()) return;
          finish(true);
        };
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(ok);
        };
        const timer = setTimeout(() => finish(done()), ms);
        waiters.add(check);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
