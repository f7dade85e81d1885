// `verispec conform --proxy <listen> <upstream>`: a forwarding proxy that judges live traffic. Every request
// goes to the upstream byte for byte and every answer comes back byte for byte (headers as sent, in their
// order); only after the answer is on its way is the exchange judged: the request against its schema (a
// payload the validators refuse is flagged on the client's side, with the 422 the service should give), the
// answer against its schema and judge.ts, and the behaviour the proxy can see (the predicted 422 issues,
// status transitions and attempts seen through GET, 474/475 on a resubmission). Findings are redacted.
import { request as httpRequest, Agent as HttpAgent, createServer, type IncomingMessage, type ServerResponse, type Server } from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import type { AddressInfo } from "node:net";
import { errorTypeOfRole } from "../model/messages.js";
import type { Endpoint, Model } from "../model/types.js";
import { canonicalIssues } from "../emit/conformance/requests.js";
import type { Issue } from "../emit/conformance/values.js";
import { nestedDeeperThan } from "./http.js";
import { answerChecks, brief, isObj, presenceChecks, schemaResult, type Judged } from "./judge.js";
import type { CheckResult } from "./report.js";
import type { Runtime } from "./runtime.js";

type Obj = Record<string, unknown>;

export interface ProxyOptions {
  readonly host: string;
  readonly port: number;
  readonly upstream: URL;
  readonly model: Model;
  readonly rt: Runtime;
  /** Called with each result as its exchange is judged (held ones too). */
  readonly onResult: (r: CheckResult) => void;
  /** Bodies past this are forwarded whole but not judged. */
  readonly maxBodyBytes: number;
  readonly maxDepth: number;
  /** Where the upstream serves the follow-up request (its path is not shown in the service's specification). */
  readonly requestedActionsPath?: string;
  /** Called with the credentials each request carries, before its exchange is judged (to redact them from findings). */
  readonly onCredentials?: (secrets: readonly string[]) => void;
  /** Applied to an answer's text before it is judged: a finding quotes only part of an answer, so redact first. */
  readonly redact?: (text: string) => string;
}

export interface RunningProxy {
  readonly url: string;
  /** Exchanges forwarded so far. */
  readonly exchanges: () => number;
  close(): Promise<void>;
}

/** One exchange, as judged: what went up and what came back. */
interface Exchange {
  readonly n: number;
  readonly method: string;
  readonly path: string;
  readonly requestBody: Buffer | undefined;
  readonly answer: Judged;
}

/** The route of a path: the endpoint whose path template it matches, and its path parameters. */
export function routeOf(endpoints: readonly Endpoint[], method: string, path: string): { e: Endpoint; params: Record<string, string> } | undefined {
  for (const e of endpoints) {
    if (e.method !== method || e.path === null) continue;
    const names: string[] = [];
    const re = new RegExp(`^${e.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_, n: string) => (names.push(n), "([^/]+)"))}$`);
    const m = re.exec(path);
    if (m) return { e, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
  }
  return undefined;
}

const parseJson = (bytes: Buffer | undefined, maxDepth: number): unknown => {
  if (!bytes || bytes.length === 0) return undefined;
  const text = bytes.toString("utf8");
  if (nestedDeeperThan(text, maxDepth)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The life cycle as the proxy has seen it through GET, per trace, and the trace of each userId it saw created. */
interface Seen {
  readonly states: Map<string, Obj>;
  readonly traceOfUser: Map<string, string>;
}

/** A judge of exchanges: each yields results, in the order its checks ran. */
export class ExchangeJudge {
  private readonly seen: Seen = { states: new Map(), traceOfUser: new Map() };
  private readonly validation: Model["errorTypes"][number];
  private readonly endpoints: readonly Endpoint[];
  constructor(
    private readonly model: Model,
    private readonly rt: Runtime,
    requestedActionsPath?: string,
  ) {
    this.validation = errorTypeOfRole(model, "validation");
    // An endpoint whose path is not shown is judged where the user says it is served.
    this.endpoints = model.endpoints.map((e) =>
      e.path === null && e.operationId === "submitRequestedActions" && requestedActionsPath ? { ...e, path: requestedActionsPath } : e,
    );
  }

  judge(x: Exchange, maxDepth: number): CheckResult[] {
    const route = routeOf(this.endpoints, x.method, x.path);
    if (!route) return [];
    const { e, params } = route;
    const id = `proxy:${x.n}:${e.operationId}`;
    const out: CheckResult[] = [];
    const sent = e.request ? parseJson(x.requestBody, maxDepth) : undefined;
    const predicted = e.request && sent !== undefined ? this.predict(e.request, sent) : undefined;
    if (e.request && sent === undefined)
      out.push({
        id: `client:${x.n}:${e.operationId}#request`,
        operation: "client",
        outcome: "warned",
        expected: "a JSON request body (the service's specification, section 4)",
        got: "a body that is not JSON",
      });
    if (predicted?.length)
      out.push({
        id: `client:${x.n}:${e.operationId}#request`,
        operation: "client",
        outcome: "warned",
        expected: `a request valid against ${e.request}`,
        got: `the service should answer ${this.validation.httpStatus} ${this.validation.type}: ${brief(predicted, 300)}`,
      });
    out.push(...this.statusChecks(id, e, x.answer, predicted));
    out.push(...answerChecks(e, this.model.bodyMediaType, id, x.answer));
    const schema = x.answer.status === 200 ? e.responses["200"] : x.answer.status >= 400 && e.auth === "basic" ? e.errorBody : undefined;
    if (schema && x.answer.json !== undefined) out.push(schemaResult(this.rt, `${id}#body`, e.operationId, schema, x.answer.json));
    if (schema && this.rt.schemaOf) out.push(...presenceChecks(this.rt.schemaOf, id, e.operationId, schema, x.answer.json));
    out.push(...this.behaviour(id, e, params, sent, x.answer));
    return out;
  }

  /** The issues the service answers for this payload (the validators' prediction), or [] when it is valid. */
  private predict(schema: string, body: unknown): Issue[] {
    const r = this.rt.validate(schema, body);
    return r.valid ? [] : canonicalIssues(r.errors.map((i) => ({ message: i.message, code: i.code, path: [...i.path] })));
  }

  /** A refused payload answered with the predicted 422 and exactly its issues; an accepted one never with a 422. */
  private statusChecks(id: string, e: Endpoint, a: Judged, predicted: Issue[] | undefined): CheckResult[] {
    if (predicted === undefined) return [];
    const v = this.validation;
    if (predicted.length === 0) {
      // Success is HTTP 200 (the service's specification, section 4); a 422 for a valid payload is the server's error.
      if (a.status === v.httpStatus)
        return [
          {
            id: `${id}#status`,
            operation: e.operationId,
            outcome: "failed",
            expected: `no ${v.httpStatus} for a payload the validators find valid`,
            got: `HTTP ${a.status}: ${brief(a.text, 200)}`,
          },
        ];
      // Where the specification shows no answer at all (the follow-up request), any 2xx is the service's to choose.
      const shown = Object.keys(e.responses);
      if (shown.length > 0 && a.status >= 200 && a.status < 300 && e.responses[String(a.status)] === undefined)
        return [
          {
            id: `${id}#status`,
            operation: e.operationId,
            outcome: "failed",
            expected: `HTTP ${shown.join(" or ")} for a valid payload`,
            got: `HTTP ${a.status}`,
          },
        ];
      return [];
    }
    // Another refusal (credentials, size, content type) may come first: the specification does not show the order.
    if (a.status >= 400 && a.status < 500 && a.status !== v.httpStatus) return [];
    if (a.status !== v.httpStatus)
      return [
        {
          id: `${id}#status`,
          operation: e.operationId,
          outcome: "failed",
          expected: `HTTP ${v.httpStatus} ${v.type} (or another refusal) for an invalid payload`,
          got: `HTTP ${a.status}: ${brief(a.text, 200)}`,
        },
      ];
    const body = isObj(a.json) ? a.json : {};
    const details = e.auth === "basic" ? (isObj(body["error"]) ? body["error"]["details"] : undefined) : body["details"];
    if (e.auth !== "basic" && !Array.isArray(details)) return [];
    const got = Array.isArray(details) ? canonicalIssues(details as Issue[]) : details;
    const ok = JSON.stringify(got) === JSON.stringify(predicted);
    return [
      ok
        ? { id: `${id}#errors`, operation: e.operationId, outcome: "held", expected: "the predicted issues" }
        : { id: `${id}#errors`, operation: e.operationId, outcome: "failed", expected: `exactly ${brief(predicted, 300)}`, got: brief(got, 300) },
    ];
  }

  /** What the life cycle allows, judged from what the proxy saw: GET transitions and attempts, and 474/475 on a resubmission. */
  private behaviour(id: string, e: Endpoint, params: Record<string, string>, sent: unknown, a: Judged): CheckResult[] {
    if (e.method === "GET" && params["trace"] !== undefined && a.status === 200 && isObj(a.json) && isObj(a.json["data"]))
      return this.transition(id, e, params["trace"], a.json["data"]);
    if (e.auth !== "basic" || e.method !== "POST" || !isObj(sent) || typeof sent["userId"] !== "string") return [];
    const trace = this.seen.traceOfUser.get(sent["userId"]);
    if (a.status === 200 && isObj(a.json) && typeof a.json["trace"] === "string") this.seen.traceOfUser.set(sent["userId"], a.json["trace"]);
    const state = trace === undefined ? undefined : this.seen.states.get(trace);
    if (!state || sent["type"] !== state["type"] || sent["subType"] !== state["subType"]) return [];
    return this.resubmission(id, e, state, a);
  }

  private transition(id: string, e: Endpoint, trace: string, now: Obj): CheckResult[] {
    const before = this.seen.states.get(trace);
    this.seen.states.set(trace, now);
    if (!before) return [];
    const out: CheckResult[] = [];
    const [from, to] = [before["verificationStatus"], now["verificationStatus"]];
    if (typeof from === "string" && typeof to === "string" && from !== to && this.rt.canTransition && !this.rt.canTransition(from, to, before)) {
      out.push({
        id: `${id}#transition`,
        operation: e.operationId,
        outcome: "failed",
        expected: `a change of status the transition table allows (the service's specification, section 3)`,
        got: `${from} -> ${to}`,
      });
    }
    const field = this.model.attempts.field;
    if (typeof before[field] === "number" && typeof now[field] === "number" && now[field] < before[field]) {
      out.push({
        id: `${id}#attempt`,
        operation: e.operationId,
        outcome: "failed",
        expected: `${field} never decreases (the service's specification, section 3)`,
        got: `${field} ${now[field]} after ${before[field]}`,
      });
    }
    return out;
  }

  /** A resubmission of a verification whose last seen state decides the answer: locked or at the cap -> 474, pending -> 475. */
  private resubmission(id: string, e: Endpoint, state: Obj, a: Judged): CheckResult[] {
    const [tooMany, conflict] = [errorTypeOfRole(this.model, "attemptsExhausted"), errorTypeOfRole(this.model, "resubmissionInFlight")];
    const cap = state[this.model.attempts.capField];
    const attempt = state[this.model.attempts.field];
    const locked = this.model.submissionStatuses.find((s) => s.locksResubmission)?.value;
    const atCap =
      state["submissionStatus"] === locked ||
      (state["verificationStatus"] === "rejected" && typeof cap === "number" && typeof attempt === "number" && attempt >= cap);
    const expected = atCap ? tooMany : state["verificationStatus"] === "pending" ? conflict : undefined;
    if (!expected) return [];
    const ok = a.status === expected.httpStatus;
    const what = `HTTP ${expected.httpStatus} ${expected.type} for a resubmission of a verification last seen ${state["verificationStatus"]}/${state["submissionStatus"]} at ${this.model.attempts.field} ${brief(attempt)} of ${brief(cap)} (the service's specification, section 7)`;
    if (ok) return [{ id: `${id}#resubmission`, operation: e.operationId, outcome: "held", expected: what }];
    // A pending verification may have been processed since the proxy last saw it (the service decides when):
    // another answer is then only a warning. At the cap the status stays until a resubmission.
    const stale = expected === conflict;
    return [
      {
        id: `${id}#resubmission`,
        operation: e.operationId,
        outcome: stale ? "warned" : "failed",
        expected: what,
        got: `HTTP ${a.status}${stale ? " (the verification may have left pending since it was last seen through GET)" : ""}: ${brief(a.text, 160)}`,
      },
    ];
  }
}

/** The secrets a request carries: its Authorization header's credentials (and their password) and a body's metadata_secretKey. */
export function credentialsIn(authorization: string | undefined, body: Buffer | undefined): string[] {
  const out: string[] = [];
  const m = /^\s*(\w+)\s+(\S+)\s*$/.exec(authorization ?? "");
  if (m) {
    out.push(m[2]!);
    const decoded = m[1]!.toLowerCase() === "basic" ? Buffer.from(m[2]!, "base64").toString("utf8") : "";
    if (decoded.includes(":")) out.push(decoded, decoded.slice(decoded.indexOf(":") + 1));
  }
  const key = body && body.length < 1 << 20 ? /"metadata_secretKey"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(body.toString("utf8"))?.[1] : undefined;
  if (key !== undefined) {
    try {
      out.push(JSON.parse(key) as string);
    } catch {
      // not a JSON string: nothing the service would take as a key
    }
  }
  return out.filter((x) => x.length > 0);
}

/** Reads a stream whole, keeping at most `max` bytes (undefined past it: forwarded, not judged). */
function collect(stream: IncomingMessage, max: number, onChunk?: (c: Buffer) => void): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (c: Buffer) => {
      onChunk?.(c);
      size += c.length;
      if (size <= max) chunks.push(c);
    });
    stream.on("end", () => resolve(size <= max ? Buffer.concat(chunks) : undefined));
    stream.on("error", reject);
  });
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]);

export async function startJudgingProxy(o: ProxyOptions): Promise<RunningProxy> {
  const judge = new ExchangeJudge(o.model, o.rt, o.requestedActionsPath);
  const https = o.upstream.protocol === "https:";
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const prefix = o.upstream.pathname.replace(/\/$/, "");
  let n = 0;
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const number = ++n;
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    let sent: Promise<Buffer | undefined> = Promise.resolve(undefined);
    const up = (https ? httpsRequest : httpRequest)({
      protocol: o.upstream.protocol,
      hostname: o.upstream.hostname,
      port: o.upstream.port,
      method: req.method,
      path: `${prefix}${req.url ?? "/"}`,
      headers,
      agent,
    });
    up.on("response", async (ures) => {
      const raw: string[] = [];
      for (let i = 0; i < ures.rawHeaders.length; i += 2)
        if (!HOP_BY_HOP.has(ures.rawHeaders[i]!.toLowerCase())) raw.push(ures.rawHeaders[i]!, ures.rawHeaders[i + 1]!);
      res.writeHead(ures.statusCode ?? 502, ures.statusMessage, raw);
      const answer = await collect(ures, o.maxBodyBytes, (c) => res.write(c)).catch(() => undefined);
      res.end();
      const body = await sent.catch(() => undefined);
      o.onCredentials?.(credentialsIn(req.headers.authorization, body));
      const text = o.redact ? o.redact(answer?.toString("utf8") ?? "") : (answer?.toString("utf8") ?? "");
      setImmediate(() => {
        const path = (req.url ?? "/").split("?")[0]!;
        const contentType = ures.headers["content-type"];
        const judged: Judged = { status: ures.statusCode ?? 0, contentType, text, json: parseJson(answer && Buffer.from(text, "utf8"), o.maxDepth) };
        for (const r of judge.judge({ n: number, method: req.method ?? "GET", path, requestBody: body, answer: judged }, o.maxDepth)) o.onResult(r);
      });
    });
    up.on("error", (e) => {
      o.onResult({
        id: `proxy:${number}:upstream`,
        operation: "proxy",
        outcome: "failed",
        expected: `an answer from the upstream to ${req.method} ${(req.url ?? "/").split("?")[0]}`,
        got: (e as { code?: string }).code ?? "connection failed",
      });
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end("verispec conform --proxy: the upstream gave no answer\n");
      else res.destroy();
    });
    // The request goes up as it arrives (whole, whatever its size); only what fits the bound is judged.
    sent = collect(req, o.maxBodyBytes, (c) => up.write(c));
    await sent.then(
      () => up.end(),
      () => up.destroy(),
    );
  };
  const server: Server = createServer((req, res) => void forward(req, res).catch(() => (res.headersSent ? res.destroy() : res.writeHead(502).end())));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${port}`,
    exchanges: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
