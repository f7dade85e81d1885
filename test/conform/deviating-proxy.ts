// A proxy in front of the sandbox that changes one thing of its behaviour (a deviation), to prove that
// `verispec conform` finds and names it. It also relays the sandbox's webhooks to conform's receiver, where
// a deviation may re-sign or age them. A relay whose receiver is not listening answers 200 and drops the
// delivery, so the sandbox never retries into a later run.
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { signWebhook } from "../../generated/webhooks.js";

export interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Deviation {
  /** Changes an answer of the sandbox (method and path of the request given). */
  readonly answer?: (method: string, path: string, a: Upstream) => Upstream;
  /** Changes a webhook on its way to the receiver. */
  readonly webhook?: (body: string, headers: Record<string, string>) => { body: string; headers: Record<string, string> };
}

export interface Proxy {
  readonly url: string;
  /** The sandbox behind the proxy (set once it runs: the sandbox needs the proxy's hook URL first). */
  upstream: string;
  readonly hookUrl: string;
  deviation: Deviation;
  receiverPort: number;
  close(): Promise<void>;
}

const read = (stream: NodeJS.ReadableStream) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });

function forward(target: URL, method: string, path: string, headers: IncomingHttpHeaders | Record<string, string>, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, method, path, headers: { ...headers, host: target.host, "content-length": String(body.length) } }, async (res) => {
      resolve({ status: res.statusCode ?? 502, headers: res.headers, body: (await read(res)).toString("utf8") });
    });
    req.on("error", reject);
    req.end(body);
  });
}

export async function startProxy(): Promise<Proxy> {
  const state = { deviation: {} as Deviation, receiverPort: 0, upstream: "http://127.0.0.1:9" };
  const server: Server = createServer(async (req, res) => {
    try {
      const body = await read(req);
      const path = req.url ?? "/";
      if (path === "/hook") {
        let hook = { body: body.toString("utf8"), headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith("x-svc")).map(([k, v]) => [k, String(v)])) };
        if (state.deviation.webhook) hook = state.deviation.webhook(hook.body, hook.headers);
        try {
          await forward(new URL(`http://127.0.0.1:${state.receiverPort}`), "POST", "/", { "content-type": "application/json", ...hook.headers }, Buffer.from(hook.body, "utf8"));
        } catch {
          // no receiver listening: dropped
        }
        return void res.writeHead(200).end();
      }
      const headers = { ...req.headers };
      delete headers["content-length"];
      let a = await forward(new URL(state.upstream), req.method ?? "GET", path, headers, body);
      if (state.deviation.answer) a = state.deviation.answer(req.method ?? "GET", path.split("?")[0]!, a);
      res.writeHead(a.status, { "content-type": String(a.headers["content-type"] ?? "application/json"), "content-length": String(Buffer.byteLength(a.body)) });
      res.end(a.body);
    } catch {
      if (!res.headersSent) res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hookUrl: `http://127.0.0.1:${port}/hook`,
    get upstream() {
      return state.upstream;
    },
    set upstream(u: string) {
      state.upstream = u;
    },
    get deviation() {
      return state.deviation;
    },
    set deviation(d: Deviation) {
      state.deviation = d;
    },
    get receiverPort() {
      return state.receiverPort;
    },
    set receiverPort(p: number) {
      state.receiverPort = p;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer changed by `edit` (which may mutate the parsed body). */
export function editJson(a: Upstream, edit: (body: Record<string, any>) => void, status = a.status): Upstream {
  const body = JSON.parse(a.body) as Record<string, any>;
  edit(body);
  return { ...a, status, body: JSON.stringify(body) };
}

/** A webhook re-signed (version 2) with `key`, after `edit` changed its payload. */
export function resign(key: string, edit: (payload: Record<string, any>) => void = () => {}) {
  return (body: string) => {
    const payload = JSON.parse(body) as Record<string, any>;
    edit(payload);
    const text = JSON.stringify(payload);
    return { body: text, headers: Object.fromEntries(Object.entries(signWebhook({ version: "2", rawBody: text, secret: key })).map(([k, v]) => [k.toLowerCase(), v])) };
  };
}
