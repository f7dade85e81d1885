// A proxy in front of the sandbox that changes one thing of its behaviour (a deviation), to prove that
// `verispec conform` finds and names it. It also relays the sandbox's webhooks to conform's receiver, where
// a deviation may re-sign or age them. A relay whose receiver is not listening answers 200 and drops the
// delivery, so the sandbox never retries into a later run.
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { signWebhook } from "../../generated/webhooks.js";
import type { LooseJson } from "../support/loose.js";

export interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Deviation {
  /** Changes an answer of the sandbox (method and path of the request given). */
  readonly answer?: (method: string, path: string, a: Upstream) => Upstream;
  /** Changes a request on its way to the sandbox (method and path given; headers lower-case). */
  readonly request?: (method: string, path: string, headers: Record<string, string>, body: Buffer) => { headers: Record<string, string>; body: Buffer };
  /** Changes a webhook on its way to the receiver; null drops it. */
  readonly webhook?: (body: string, headers: Record<string, string>) => { body: string; headers: Record<string, string> } | null;
}

export interface DeviatingProxy {
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
    const req = request(
      { host: target.hostname, port: target.port, method, path, headers: { ...headers, host: target.host, "content-length": String(body.length) } },
      async (res) => {
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: (await read(res)).toString("utf8") });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export async function startProxy(): Promise<DeviatingProxy> {
  const state = { deviation: {} as Deviation, receiverPort: 0, upstream: "http://127.0.0.1:9" };
  const server: Server = createServer(async (req, res) => {
    try {
      const body = await read(req);
      const path = req.url ?? "/";
      if (path === "/hook") {
        let hook: { body: string; headers: Record<string, string> } | null = {
          body: body.toString("utf8"),
          headers: Object.fromEntries(
            Object.entries(req.headers)
              .filter(([k]) => k.startsWith("x-svc") || k === "content-type")
              .map(([k, v]) => [k, String(v)]),
          ),
        };
        if (state.deviation.webhook) hook = state.deviation.webhook(hook.body, hook.headers);
        try {
          if (hook)
            await forward(
              new URL(`http://127.0.0.1:${state.receiverPort}`),
              "POST",
              "/",
              { "content-type": "application/json", ...hook.headers },
              Buffer.from(hook.body, "utf8"),
            );
        } catch {
          // no receiver listening: dropped
        }
        return void res.writeHead(200).end();
      }
      let headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      delete headers["content-length"];
      let sent = body;
      if (state.deviation.request) ({ headers, body: sent } = state.deviation.request(req.method ?? "GET", path.split("?")[0]!, headers, body));
      let a = await forward(new URL(state.upstream), req.method ?? "GET", path, headers, sent);
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
export function editJson(a: Upstream, edit: (body: LooseJson) => void, status = a.status): Upstream {
  const body = JSON.parse(a.body) as LooseJson;
  edit(body);
  return { ...a, status, body: JSON.stringify(body) };
}

/** A webhook re-signed (version 2, or 1) with `key`, after `edit` changed its payload. */
export function resign(key: string, edit: (payload: LooseJson) => void = () => {}, version: "1" | "2" = "2") {
  return (body: string) => {
    const payload = JSON.parse(body) as LooseJson;
    edit(payload);
    const text = JSON.stringify(payload);
    return {
      body: text,
      headers: {
        "content-type": "application/json",
        ...Object.fromEntries<string>(Object.entries(signWebhook({ version, rawBody: text, secret: key })).map(([k, v]) => [k.toLowerCase(), v])),
      },
    };
  };
}

/** A webhook signed with version 1 by `key`, one of whose digest headers is then made with `wrongKey`. */
export function v1WithOneWrongDigest(key: string, wrongKey: string, wrong: "x-svc-signature-sha" | "x-svc-signature-keccak") {
  return (body: string) => {
    const good = resign(key, () => {}, "1")(body);
    const bad = resign(wrongKey, () => {}, "1")(body);
    return { body: good.body, headers: { ...good.headers, [wrong]: (bad.headers as Record<string, string>)[wrong]! } };
  };
}

/** The sandbox's own credentials put into a request that carried others (or none): a server that accepts any. */
export function anyCredentials(uid: string, secret: string) {
  const basic = `Basic ${Buffer.from(`${uid}:${secret}`).toString("base64")}`;
  return (method: string, path: string, headers: Record<string, string>, body: Buffer) => {
    if (path.startsWith("/v5/")) return { headers: { ...headers, authorization: basic }, body };
    if (method !== "POST" || body.length === 0) return { headers, body };
    try {
      const b = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      if (!("metadata_version" in b)) return { headers, body };
      return { headers, body: Buffer.from(JSON.stringify({ ...b, metadata_serviceUid: uid, metadata_secretKey: secret }), "utf8") };
    } catch {
      return { headers, body };
    }
  };
}
