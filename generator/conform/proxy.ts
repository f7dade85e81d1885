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
  readonly onResult: (result: CheckResult) => void;
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
    const pattern = new RegExp(`^${e.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_, n: string) => (names.push(n), "([^/]+)"))}$`);
    const match = pattern.exec(path);
    if (match) return { e, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)])) };
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
    private readonly runtime: Runtime,
    requestedActionsPath?: string,
  ) {
    this.validation = errorTypeOfRole(model, "validation");
    // An endpoint whose path is not shown is judged where the user says it is served.
    this.endpoints = model.endpoints.map((endpoint) =>
      endpoint.path === null && endpoint.operationId === "submitRequestedActions" && requestedActionsPath
        ? { ...endpoint, path: requestedActionsPath }
        : endpoint,
    );
  }

  judge(exchange: Exchange, maxDepth: number): CheckResult[] {
    const route = routeOf(this.endpoints, exchange.method, exchange.path);
    if (!route) return [];
    const { e: endpoint, params } = route;
    const id = `proxy:${exchange.n}:${endpoint.operationId}`;
    const out: CheckResult[] = [];
    const sent = endpoint.request ? parseJson(exchange.requestBody, maxDepth) : undefined;
    const predicted = endpoint.request && sent !== undefined ? this.predict(endpoint.request, sent) : undefined;
    if (endpoint.request && sent === undefined)
      out.push({
        id: `client:${exchange.n}:${endpoint.operationId}#request`,
        operation: "client",
        outcome: "warned",
        expected: "a JSON request body (the service's specification, section 4)",
        got: "a body that is not JSON",
      });
    if (predicted?.length)
      out.push({
        id: `client:${exchange.n}:${endpoint.operationId}#request`,
        operation: "client",
        outcome: "warned",
        expected: `a request valid against ${endpoint.request}`,
        got: `the service should answer ${this.validation.httpStatus} ${this.validation.type}: ${brief(predicted, 300)}`,
      });
    out.push(...this.statusChecks(id, endpoint, exchange.answer, predicted));
    out.push(...answerChecks(endpoint, this.model.bodyMediaType, id, exchange.answer));
    const schema =
      exchange.answer.status === 200 ? endpoint.responses["200"] : exchange.answer.status >= 400 && endpoint.auth === "basic" ? endpoint.errorBody : undefined;
    if (schema && exchange.answer.json !== undefined) out.push(schemaResult(this.runtime, `${id}#body`, endpoint.operationId, schema, exchange.answer.json));
    if (schema && this.runtime.schemaOf) out.push(...presenceChecks(this.runtime.schemaOf, id, endpoint.operationId, schema, exchange.answer.json));
    out.push(...this.behaviour(id, endpoint, params, sent, exchange.answer));
    return out;
  }

  /** The issues the service answers for this payload (the validators' prediction), or [] when it is valid. */
  private predict(schema: string, body: unknown): Issue[] {
    const result = this.runtime.validate(schema, body);
    return result.valid ? [] : canonicalIssues(result.errors.map((i) => ({ message: i.message, code: i.code, path: [...i.path] })));
  }

  /** A refused payload answered with the predicted 422 and exactly its issues; an accepted one never with a 422. */
  private statusChecks(id: string, endpoint: Endpoint, answer: Judged, predicted: Issue[] | undefined): CheckResult[] {
    if (predicted === undefined) return [];
    const validation = this.validation;
    if (predicted.length === 0) {
      // Success is HTTP 200 (the service's specification, section 4); a 422 for a valid payload is the server's error.
      if (answer.status === validation.httpStatus)
        return [
          {
            id: `${id}#status`,
            operation: endpoint.operationId,
            outcome: "failed",
            expected: `no ${validation.httpStatus} for a payload the validators find valid`,
            got: `HTTP ${answer.status}: ${brief(answer.text, 200)}`,
          },
        ];
      // Where the specification shows no answer at all (the follow-up request), any 2xx is the service's to choose.
      const shown = Object.keys(endpoint.responses);
      if (shown.length > 0 && answer.status >= 200 && answer.status < 300 && endpoint.responses[String(answer.status)] === undefined)
        return [
          {
            id: `${id}#status`,
            operation: endpoint.operationId,
            outcome: "failed",
            expected: `HTTP ${shown.join(" or ")} for a valid payload`,
            got: `HTTP ${answer.status}`,
          },
        ];
      return [];
    }
    // Another refusal (credentials, size, content type) may come first: the specification does not show the order.
    if (answer.status >= 400 && answer.status < 500 && answer.status !== validation.httpStatus) return [];
    if (answer.status !== validation.httpStatus)
      return [
        {
          id: `${id}#status`,
          operation: endpoint.operationId,
          outcome: "failed",
          expected: `HTTP ${validation.httpStatus} ${validation.type} (or another refusal) for an invalid payload`,
          got: `HTTP ${answer.status}: ${brief(answer.text, 200)}`,
        },
      ];
    const body = isObj(answer.json) ? answer.json : {};
    const details = endpoint.auth === "basic" ? (isObj(body["error"]) ? body["error"]["details"] : undefined) : body["details"];
    if (endpoint.auth !== "basic" && !Array.isArray(details)) return [];
    const got = Array.isArray(details) ? canonicalIssues(details as Issue[]) : details;
    const ok = JSON.stringify(got) === JSON.stringify(predicted);
    return [
      ok
        ? { id: `${id}#errors`, operation: endpoint.operationId, outcome: "held", expected: "the predicted issues" }
        : { id: `${id}#errors`, operation: endpoint.operationId, outcome: "failed", expected: `exactly ${brief(predicted, 300)}`, got: brief(got, 300) },
    ];
  }

  /** What the life cycle allows, judged from what the proxy saw: GET transitions and attempts, and 474/475 on a resubmission. */
  private behaviour(id: string, endpoint: Endpoint, params: Record<string, string>, sent: unknown, answer: Judged): CheckResult[] {
    if (endpoint.method === "GET" && params["trace"] !== undefined && answer.status === 200 && isObj(answer.json) && isObj(answer.json["data"]))
      return this.transition(id, endpoint, params["trace"], answer.json["data"]);
    if (endpoint.auth !== "basic" || endpoint.method !== "POST" || !isObj(sent) || typeof sent["userId"] !== "string") return [];
    const trace = this.seen.traceOfUser.get(sent["userId"]);
    if (answer.status === 200 && isObj(answer.json) && typeof answer.json["trace"] === "string")
      this.seen.traceOfUser.set(sent["userId"], answer.json["trace"]);
    const state = trace === undefined ? undefined : this.seen.states.get(trace);
    if (!state || sent["type"] !== state["type"] || sent["subType"] !== state["subType"]) return [];
    return this.resubmission(id, endpoint, state, answer);
  }

  private transition(id: string, endpoint: Endpoint, trace: string, now: Obj): CheckResult[] {
    const before = this.seen.states.get(trace);
    this.seen.states.set(trace, now);
    if (!before) return [];
    const out: CheckResult[] = [];
    const [from, to] = [before["verificationStatus"], now["verificationStatus"]];
    if (typeof from === "string" && typeof to === "string" && from !== to && this.runtime.canTransition && !this.runtime.canTransition(from, to, before)) {
      out.push({
        id: `${id}#transition`,
        operation: endpoint.operationId,
        outcome: "failed",
        expected: `a change of status the transition table allows (the service's specification, section 3)`,
        got: `${from} -> ${to}`,
      });
    }
    const field = this.model.attempts.field;
    if (typeof before[field] === "number" && typeof now[field] === "number" && now[field] < before[field]) {
      out.push({
        id: `${id}#attempt`,
        operation: endpoint.operationId,
        outcome: "failed",
        expected: `${field} never decreases (the service's specification, section 3)`,
        got: `${field} ${now[field]} after ${before[field]}`,
      });
    }
    return out;
  }

  /** A resubmission of a verification whose last seen state decides the answer: locked or at the cap -> 474, pending -> 475. */
  private resubmission(id: string, endpoint: Endpoint, state: Obj, answer: Judged): CheckResult[] {
    const [tooMany, conflict] = [errorTypeOfRole(this.model, "attemptsExhausted"), errorTypeOfRole(this.model, "resubmissionInFlight")];
    const cap = state[this.model.attempts.capField];
    const attempt = state[this.model.attempts.field];
    const locked = this.model.submissionStatuses.find((s) => s.locksResubmission)?.value;
    // The status a retry starts from (rejected) and the one awaiting processing (pending): the transition table's.
    const inFromOf = (id: string) => {
      const from = this.model.transitions.find((t) => t.id === id)?.from;
      return typeof from === "string" && state["verificationStatus"] === from;
    };
    const atCap = state["submissionStatus"] === locked || (inFromOf("retry") && typeof cap === "number" && typeof attempt === "number" && attempt >= cap);
    const expected = atCap ? tooMany : inFromOf("complete") ? conflict : undefined;
    if (!expected) return [];
    const ok = answer.status === expected.httpStatus;
    const what = `HTTP ${expected.httpStatus} ${expected.type} for a resubmission of a verification last seen ${state["verificationStatus"]}/${state["submissionStatus"]} at ${this.model.attempts.field} ${brief(attempt)} of ${brief(cap)} (the service's specification, section 7)`;
    if (ok) return [{ id: `${id}#resubmission`, operation: endpoint.operationId, outcome: "held", expected: what }];
    // A pending verification may have been processed since the proxy last saw it (the service decides when):
    // another answer is then only a warning. At the cap the status stays until a resubmission.
    const stale = expected === conflict;
    return [
      {
        id: `${id}#resubmission`,
        operation: endpoint.operationId,
        outcome: stale ? "warned" : "failed",
        expected: what,
        got: `HTTP ${answer.status}${stale ? " (the verification may have left pending since it was last seen through GET)" : ""}: ${brief(answer.text, 160)}`,
      },
    ];
  }
}

/** The secrets a request carries: its Authorization header's credentials (and their password) and a body's metadata_secretKey. */
export function credentialsIn(authorization: string | undefined, body: Buffer | undefined): string[] {
  const out: string[] = [];
  const match = /^\s*(\w+)\s+(\S+)\s*$/.exec(authorization ?? "");
  if (match) {
    out.push(match[2]!);
    const decoded = match[1]!.toLowerCase() === "basic" ? Buffer.from(match[2]!, "base64").toString("utf8") : "";
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
function collect(stream: IncomingMessage, max: number, onChunk?: (chunk: Buffer) => void): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      onChunk?.(chunk);
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    stream.on("end", () => resolve(size <= max ? Buffer.concat(chunks) : undefined));
    stream.on("error", reject);
  });
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]);

export async function startJudgingProxy(options: ProxyOptions): Promise<RunningProxy> {
  const judge = new ExchangeJudge(options.model, options.rt, options.requestedActionsPath);
  const https = options.upstream.protocol === "https:";
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const prefix = options.upstream.pathname.replace(/\/$/, "");
  let exchangeCount = 0;
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const number = ++exchangeCount;
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    let sent: Promise<Buffer | undefined> = Promise.resolve(undefined);
    const up = (https ? httpsRequest : httpRequest)({
      protocol: options.upstream.protocol,
      hostname: options.upstream.hostname,
      port: options.upstream.port,
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
      const answer = await collect(ures, options.maxBodyBytes, (c) => res.write(c)).catch(() => undefined);
      res.end();
      const body = await sent.catch(() => undefined);
      options.onCredentials?.(credentialsIn(req.headers.authorization, body));
      const text = options.redact ? options.redact(answer?.toString("utf8") ?? "") : (answer?.toString("utf8") ?? "");
      setImmediate(() => {
        const path = (req.url ?? "/").split("?")[0]!;
        const contentType = ures.headers["content-type"];
        const judged: Judged = { status: ures.statusCode ?? 0, contentType, text, json: parseJson(answer && Buffer.from(text, "utf8"), options.maxDepth) };
        for (const r of judge.judge({ n: number, method: req.method ?? "GET", path, requestBody: body, answer: judged }, options.maxDepth)) options.onResult(r);
      });
    });
    up.on("error", (error) => {
      options.onResult({
        id: `proxy:${number}:upstream`,
        operation: "proxy",
        outcome: "failed",
        expected: `an answer from the upstream to ${req.method} ${(req.url ?? "/").split("?")[0]}`,
        got: (error as { code?: string }).code ?? "connection failed",
      });
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end("verispec conform --proxy: the upstream gave no answer\n");
      else res.destroy();
    });
    // The request goes up as it arrives (whole, whatever its size); only what fits the bound is judged.
    sent = collect(req, options.maxBodyBytes, (c) => up.write(c));
    await sent.then(
      () => up.end(),
      () => up.destroy(),
    );
  };
  const server: Server = createServer((req, res) => void forward(req, res).catch(() => (res.headersSent ? res.destroy() : res.writeHead(502).end())));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    exchanges: () => exchangeCount,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
