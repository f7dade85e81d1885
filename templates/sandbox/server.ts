// The HTTP layer only (node:http): routing by the route table (handlers.ts, routes.ts), authentication
// (compared in constant time), body limits, content types, the error shapes of each interface and the
// guard. The handlers only parse, call the service and shape the answer; behaviour lives in service.ts.
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ValidationIssue } from "../validators/types.js";
import { choice, choiceMessage, validateWith, type SandboxSpec } from "./binding.js";
import { ShapeScanner, type ShapeProblem } from "./body-shape.js";
import { CursorRefused, parseBrowse, type Browse } from "./browse.js";
import { HttpError, type Account, type ControlMessage, type Credentials, type Exchange, type HttpKit, type RequestContext, type ServerOptions } from "./exchange.js";
import { SandboxHandlers, type Handler } from "./handlers.js";
import { pageSecurityHeaders } from "./csp.js";
import { messagePage } from "./page.js";
import { findRoute, type Route } from "./routes.js";
import { jsonDepth, nulPaths } from "./bodies.js";
import { ServiceError } from "./service.js";

export type { Account, Credentials, ServerOptions } from "./exchange.js";
export { jsonDepth, nulPaths } from "./bodies.js";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

function basicCredentials(header: string | undefined): Credentials | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = text.indexOf(":");
  return colon < 0 ? undefined : { serviceUid: text.slice(0, colon), secret: text.slice(colon + 1) };
}

/** Credentials as given: a body's may be any JSON value. */
type GivenPair = { readonly serviceUid?: unknown; readonly secret?: unknown } | undefined;

/**
 * Credential checks in constant time: SHA-256 digests of what was given against digests of every
 * account's values, made once (so strings of any length compare alike). Every account is compared, the
 * loop never stops at a match or a miss, so the time does not tell which service UID exists. The Basic
 * header as clients write it is one digest; another spelling of it (scheme case, spaces) is decoded and
 * checked field by field. Each check answers the account the credentials belong to, or undefined.
 */
export function accountChecker<A extends { readonly credentials: Credentials }>(accounts: readonly A[]) {
  const expected = accounts.map((account) => {
    const { serviceUid, secret } = account.credentials;
    return { account, uid: digest(serviceUid), secret: digest(secret), header: digest(`Basic ${Buffer.from(`${serviceUid}:${secret}`, "utf8").toString("base64")}`) };
  });
  // A body credential may be any JSON value: only strings are compared (no String() of an object, whose toString may be anything).
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const pair = (given: GivenPair): A | undefined => {
    const uid = digest(text(given?.serviceUid));
    const secret = digest(text(given?.secret));
    const strings = typeof given?.serviceUid === "string" && typeof given?.secret === "string";
    let found: A | undefined;
    for (const e of expected) {
      const uidOk = timingSafeEqual(uid, e.uid);
      const secretOk = timingSafeEqual(secret, e.secret);
      if (uidOk && secretOk && strings && found === undefined) found = e.account;
    }
    return found;
  };
  const header = (value: string): A | undefined => {
    const given = digest(value);
    let found: A | undefined;
    for (const e of expected) if (timingSafeEqual(given, e.header) && found === undefined) found = e.account;
    return found;
  };
  return { pair, basic: (value: string | undefined): A | undefined => (value === undefined ? undefined : header(value)) ?? pair(basicCredentials(value)) };
}

/** The one-account check (true or false), as accountChecker makes it. */
export function credentialChecker(expected: Credentials) {
  const check = accountChecker([{ credentials: expected }]);
  return { pair: (given: GivenPair): boolean => check.pair(given) !== undefined, basic: (value: string | undefined): boolean => check.basic(value) !== undefined };
}

/** The request-body refusals (spec/sandbox.yaml: requestSize, requestBody). */
interface BodyRules {
  /** The media type of every JSON body (the service's specification, section 4: endpoints.yaml bodies). */
  readonly mediaType: string;
  readonly limit: number;
  readonly tooLarge: string;
  readonly maxDepth: number;
  readonly messages: Readonly<Record<"notJsonType" | "notFormType" | "notJson" | "notObject" | "tooDeep", string>>;
  /** spec/sandbox.yaml requestArrays: measured on the text, before it is parsed. */
  readonly arrays: { readonly maxItems: number; readonly maxValues: number; readonly code: string; readonly message: string; readonly tooManyValues: string };
  /** The 422 of a body whose array at `path` is too long (the validators' error). */
  readonly invalid: (issues: readonly ValidationIssue[]) => Error;
}

/** The body's bytes, at most the limit; `look` sees each chunk as it arrives (and may refuse the body there, unread past it). */
async function readBody(req: IncomingMessage, rules: BodyRules, look?: (chunk: Buffer) => void): Promise<Buffer> {
  const { limit } = rules;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError(413, "payload_too_large", rules.tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  let refusal: unknown;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, "payload_too_large", rules.tooLarge);
    // Once refused, the rest (within the limit) is read and dropped, not kept: leaving the loop would
    // destroy the socket and the client would never see the refusal.
    if (refusal !== undefined) continue;
    try {
      look?.(chunk as Buffer);
      chunks.push(chunk as Buffer);
    } catch (error) {
      refusal = error;
      chunks.length = 0;
    }
  }
  if (refusal !== undefined) throw refusal;
  return Buffer.concat(chunks);
}

function mediaType(req: IncomingMessage): string {
  return String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

async function readJson(req: IncomingMessage, rules: BodyRules): Promise<Record<string, unknown>> {
  if (mediaType(req) !== rules.mediaType) throw new HttpError(415, "unsupported_media_type", rules.messages.notJsonType);
  // Measured chunk by chunk as it arrives (body-shape.ts): a hostile shape is refused before the rest is read or anything is parsed.
  const scanner = new ShapeScanner({ ...rules.arrays, maxDepth: rules.maxDepth });
  const raw = (await readBody(req, rules, (chunk) => refuseShape(scanner.feed(chunk), rules))).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    // Not V8's message: it quotes body text, and the older endpoints' bodies carry the secret key.
    throw new HttpError(400, "bad_request", rules.messages.notJson);
  }
  if (jsonDepth(raw) > rules.maxDepth) throw new HttpError(400, "bad_request", rules.messages.tooDeep.replace("{max}", String(rules.maxDepth)));
  return value as Record<string, unknown>;
}

/** A body with an array over the bound (422 at its path), too many values or too deep (400), refused before it is parsed. */
function refuseShape(problem: ShapeProblem | undefined, rules: BodyRules): void {
  const { arrays } = rules;
  if (problem?.kind === "depth") throw new HttpError(400, "bad_request", rules.messages.tooDeep.replace("{max}", String(rules.maxDepth)));
  if (problem?.kind === "values") throw new HttpError(400, "bad_request", arrays.tooManyValues.replace("{max}", String(arrays.maxValues)));
  if (problem?.kind === "items") throw rules.invalid([{ message: arrays.message.replace("{max}", String(arrays.maxItems)), code: arrays.code, path: problem.path }]);
}

/** A JSON body that must be an object (the older endpoints, the control API). */
async function readObject(req: IncomingMessage, rules: BodyRules): Promise<Record<string, unknown>> {
  const body: unknown = await readJson(req, rules);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "bad_request", rules.messages.notObject);
  return body as Record<string, unknown>;
}

/** A percent-escaped path segment or query, decoded; a malformed escape is the caller's mistake (400), never a thrown URIError. */
function decodeStrict(raw: string, malformed: () => Error): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw malformed();
  }
}

/** The HTTP concerns of one sandbox: its rules read once from the spec, the route table, and each request's handling. */
class SandboxHttp implements HttpKit {
  readonly spec: SandboxSpec;
  private readonly log: (line: string) => void;
  private readonly auth: { readonly status: number; readonly code: string; readonly message: string };
  private readonly bodyRules: BodyRules;
  private readonly nul: { readonly code: string; readonly message: string };
  private readonly credentials: ReturnType<typeof accountChecker<Account>>;
  /** The account of a one-account sandbox (its clock stamps answers given before credentials are checked). */
  private readonly sole: Account | undefined;
  readonly routes: readonly Route<Handler>[];
  private readonly getRoute: Route<Handler>;

  constructor(private readonly o: ServerOptions) {
    const spec = (this.spec = o.binding.spec);
    this.log = o.log ?? ((line: string) => void process.stderr.write(`verispec sandbox: ${line}\n`));
    this.auth = { status: choice<number>(spec, "authFailure", "httpStatus"), code: choice<string>(spec, "authFailure", "code"), message: choice<string>(spec, "authFailure", "message") };
    this.bodyRules = {
      mediaType: spec.bodyMediaType,
      limit: o.maxBodyBytes,
      tooLarge: choice<string>(spec, "requestSize", "message").replace("{limit}", String(o.maxBodyBytes)),
      maxDepth: choice<number>(spec, "requestBody", "maxDepth"),
      messages: choice<BodyRules["messages"]>(spec, "requestBody", "messages"),
      arrays: {
        maxItems: choice<number>(spec, "requestArrays", "maxItems"),
        maxValues: choice<number>(spec, "requestArrays", "maxValues"),
        code: choice<string>(spec, "requestArrays", "code"),
        message: choice<string>(spec, "requestArrays", "message"),
        tooManyValues: choice<string>(spec, "requestArrays", "tooManyValues"),
      },
      invalid: (issues) => this.invalid(issues),
    };
    this.nul = { code: choice<string>(spec, "nulCharacter", "code"), message: choice<string>(spec, "nulCharacter", "message") };
    this.credentials = accountChecker(o.accounts);
    this.sole = o.accounts.length === 1 ? o.accounts[0] : undefined;
    this.routes = new SandboxHandlers(o, this, (schemaId, body) => this.issuesOf(schemaId, body)).routes();
    this.getRoute = this.routes.find((r) => r.operationId === "getVerification")!;
  }

  // ---- the kit the handlers use ----

  send(res: ServerResponse, status: number, body: string, type = this.spec.bodyMediaType, extra: Record<string, string> = {}): void {
    const page = type.startsWith("text/html") ? pageSecurityHeaders(body) : {};
    res.writeHead(status, { "Content-Type": type === this.spec.bodyMediaType ? `${type}; charset=utf-8` : type, "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-store", ...page, ...extra });
    res.end(body);
  }

  // serviceUid: what the caller sent, never the configured one (an unauthenticated caller must not learn the
  // account id); "" when it sent none, since every v5 envelope carries the field (spec/fieldsets.yaml).
  envelope(ctx: RequestContext, path: string, statusCode: number, fields: { message: string; trace?: string; pathParams?: Record<string, string>; data?: unknown; error?: unknown }) {
    return {
      // The caller's account's clock; before credentials, a sole account's, else real time (no account's offset is shown to a stranger).
      timestamp: new Date((ctx.account ?? this.sole)?.clock.now() ?? Date.now()).toISOString(),
      serviceUid: ctx.sentUid ?? "",
      trace: fields.trace ?? randomUUID(),
      path,
      pathParams: fields.pathParams ?? {},
      statusCode,
      message: fields.message,
      help: null,
      status: statusCode < 400 ? "success" : "error",
      data: fields.data ?? null,
      error: fields.error ?? null,
    };
  }

  private invalid(issues: readonly ValidationIssue[]): ServiceError {
    const e = this.spec.errors.validation_error!;
    return new ServiceError(e.httpStatus, "validation_error", e.message ?? "Validation error", issues);
  }

  /** The NUL refusal (spec/sandbox.yaml nulCharacter) of text at these paths. */
  private nulIssues(paths: readonly (readonly (string | number)[])[]): ValidationIssue[] {
    return paths.map((path) => ({ message: this.nul.message, code: this.nul.code, path }));
  }

  params(values: Readonly<Record<string, string | undefined>>): void {
    const bad = Object.entries(values).filter(([, v]) => v?.includes("\0")).map(([k]) => [k]);
    if (bad.length) throw this.invalid(this.nulIssues(bad));
  }

  /** What the API finds wrong with a body: the schema's issues and, beside them, NUL in any text (the validators accept it; the store cannot hold it). */
  private issuesOf(schemaId: string, body: unknown): ValidationIssue[] {
    const result = validateWith(this.o.binding, schemaId, body);
    const schemaIssues = result.valid ? [] : result.errors;
    const seen = new Set(schemaIssues.map((i) => JSON.stringify(i.path)));
    return [...schemaIssues, ...this.nulIssues(nulPaths(body).filter((p) => !seen.has(JSON.stringify(p))))];
  }

  validate(schemaId: string, body: unknown): void {
    const issues = this.issuesOf(schemaId, body);
    if (issues.length) throw this.invalid(issues);
  }

  readJson(req: IncomingMessage) {
    return readJson(req, this.bodyRules);
  }

  readObject(req: IncomingMessage) {
    return readObject(req, this.bodyRules);
  }

  async readForm(req: IncomingMessage): Promise<URLSearchParams> {
    if (mediaType(req) !== "application/x-www-form-urlencoded") throw new HttpError(415, "unsupported_media_type", this.bodyRules.messages.notFormType);
    // Fields counted as the bytes arrive, before the text is split: a 10 MiB form of millions of fields is refused for the cost of its bytes.
    const { maxValues, tooManyValues } = this.bodyRules.arrays;
    let fields = 1;
    const count = (chunk: Buffer) => {
      for (let i = chunk.indexOf(38); i >= 0; i = chunk.indexOf(38, i + 1)) if (++fields > maxValues) throw new HttpError(400, "bad_request", tooManyValues.replace("{max}", String(maxValues)));
    };
    return new URLSearchParams((await readBody(req, this.bodyRules, count)).toString("utf8"));
  }

  browseOf(url: URL, defaultLimit?: number): Browse {
    const b = parseBrowse(url.searchParams, defaultLimit);
    if (typeof b === "string") throw new HttpError(400, "bad_request", b);
    this.params({ trace: b.trace, userId: b.userId, status: b.status });
    return b;
  }

  refuse(message: ControlMessage, max?: number): HttpError {
    const messages = choice<Readonly<Record<ControlMessage, string>>>(this.spec, "controlApi", "messages");
    return new HttpError(400, "bad_request", messages[message].replace("{max}", String(max)));
  }

  // ---- routing and authentication ----

  private malformed(): HttpError {
    return new HttpError(400, choice<string>(this.spec, "requestUrl", "code"), choice<string>(this.spec, "requestUrl", "message"));
  }

  private decode(raw: string): string {
    return decodeStrict(raw, () => this.malformed());
  }

  /** The account of the request's HTTP Basic credentials, kept in its context; else the authentication failure. */
  private basicAuth(req: IncomingMessage, ctx: RequestContext): void {
    ctx.account = this.credentials.basic(req.headers.authorization);
    if (!ctx.account) throw new HttpError(this.auth.status, this.auth.code, this.auth.message);
  }

  /** The account of the older endpoints' body credentials, kept in the request's context; else the authentication failure. */
  private olderAuth(body: Record<string, unknown>, ctx: RequestContext): void {
    ctx.account = this.credentials.pair({ serviceUid: body.metadata_serviceUid, secret: body.metadata_secretKey });
    if (!ctx.account) throw new HttpError(this.auth.status, this.auth.code, this.auth.message);
  }

  /** The route's authentication first (HTTP Basic; the body's credentials after reading it), then its handler. */
  private async route(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, path: string, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const found = findRoute(this.routes, method, path);
    if (!found) {
      // The control API's paths are the account's: no route there is told apart from another without credentials.
      if (path === "/_sandbox" || path.startsWith("/_sandbox/")) this.basicAuth(req, ctx);
      throw new HttpError(choice<number>(this.spec, "notFound", "httpStatus"), choice<string>(this.spec, "notFound", "code"), choiceMessage(this.spec, "notFound", "route", { method, path }));
    }
    const { route } = found;
    if (route.auth === "basic") this.basicAuth(req, ctx);
    const captures = found.captures.map((c) => this.decode(c));
    let body: Record<string, unknown> = {};
    if (route.auth === "body") {
      body = await this.readObject(req);
      this.olderAuth(body, ctx);
    }
    if (ctx.account) {
      this.o.onAccount?.(res, ctx.account.name);
      // The account's clock as stored now: every instance on one database tells the same time.
      await ctx.account.service.refreshClock();
    }
    const exchange: Exchange = { account: ctx.account, req, res, ctx, path, url, captures, body };
    await route.handler(exchange);
  }

  /** The raw path (before `?`) and query: a malformed percent-escape in either is refused before anything else. */
  private target(raw: string): { path: string; url: URL } {
    const q = raw.indexOf("?");
    this.decode(q < 0 ? raw : raw.slice(0, q));
    if (q >= 0) this.decode(raw.slice(q + 1).replace(/\+/g, " "));
    let url: URL;
    try {
      url = new URL(raw, "http://sandbox.invalid");
    } catch {
      throw this.malformed();
    }
    return { path: url.pathname, url };
  }

  // ---- errors and the guard ----

  /** An error in the interface's shape: v5 envelope, or the older shape of spec/sandbox.yaml. */
  private fail(ctx: RequestContext, res: ServerResponse, path: string, v5: boolean, status: number, type: string, message: string, details: readonly ValidationIssue[] = [], extra: { trace?: string; pathParams?: Record<string, string> } = {}): void {
    // HTTP Basic paths (/v5, /_sandbox) challenge; the older endpoints carry credentials in the body.
    const basicPath = v5 || path === "/_sandbox" || path.startsWith("/_sandbox/");
    const headers: Record<string, string> = status === this.auth.status && basicPath ? { "WWW-Authenticate": 'Basic realm="verispec sandbox"' } : {};
    if (v5) {
      const known = Object.hasOwn(this.spec.errors, type);
      const error = type === "validation_error" ? { type, details } : known ? { type, message, help: null } : { code: type, message, help: null };
      const top = type === "validation_error" ? this.spec.errors[type]!.message ?? message : message;
      return this.send(res, status, JSON.stringify(this.envelope(ctx, path, status, { message: top, error, ...extra })), this.spec.bodyMediaType, headers);
    }
    return this.send(res, status, JSON.stringify({ status: "error", statusCode: status, type, message, details }), this.spec.bodyMediaType, headers);
  }

  /** A refusal the handling foresaw (ServiceError, HttpError), in the shape of the path's interface. */
  private refused(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, path: string, v5: boolean, e: ServiceError | HttpError): void {
    const status = e instanceof ServiceError ? e.httpStatus : e.status;
    const type = e instanceof ServiceError ? e.type : e.code;
    // A body refused before it was read in full is drained, not parsed: one of a declared length within the
    // limit (refused by its shape) on a connection that stays open, so the client reads the answer before
    // it finishes sending; one over the limit or of no declared length with the connection closed after the answer.
    const unread = status === 413 || !req.complete;
    const declared = Number(req.headers["content-length"]);
    if (unread && !(status !== 413 && Number.isFinite(declared) && declared <= this.bodyRules.limit)) res.setHeader("Connection", "close");
    if (path.startsWith("/_form/")) {
      this.send(res, status, messagePage(choice<Record<string, string>>(this.spec, "hostedForm", "messages").unavailableTitle ?? "", e.message), "text/html; charset=utf-8");
      return void (unread && req.resume());
    }
    const trace = (e as { trace?: string }).trace;
    const get = this.getRoute.pattern.exec(path);
    let pathTrace: string | undefined;
    try {
      pathTrace = get ? decodeURIComponent(get[1]!) : undefined;
    } catch {
      pathTrace = undefined; // the 400 for that very escape is being answered
    }
    this.fail(ctx, res, path, v5, status, type, e.message, e instanceof ServiceError ? e.details : [], { ...(trace ? { trace } : {}), ...(pathTrace !== undefined ? { pathParams: { trace: pathTrace } } : {}) });
    // A body not read in full: drain what arrives until the connection closes.
    if (unread) req.resume();
  }

  /** Everything not foreseen: one line (its stack only with --debug), and a 500 that names the request id. */
  private internal(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, path: string, v5: boolean, err: unknown): void {
    const e = err instanceof Error ? err : new Error(String(err));
    const detail = this.o.debug ? (e.stack ?? e.message) : `${e.name}: ${e.message.split("\n")[0]}`;
    try {
      this.log(`internal error ${ctx.id} on ${String(req.method).slice(0, 16)} ${path.slice(0, 200)}: ${detail}`);
    } catch {
      // a log that fails must not take the answer with it
    }
    if (res.headersSent) return void res.destroy();
    const message = choice<string>(this.spec, "internalError", "message").replace("{requestId}", ctx.id);
    const code = choice<string>(this.spec, "internalError", "code");
    try {
      this.fail(ctx, res, path, v5, 500, code, message, [], { trace: ctx.id });
    } catch {
      // The envelope itself failed (its timestamp, say): the older shape needs nothing but the message.
      if (!res.headersSent) this.send(res, 500, JSON.stringify({ status: "error", statusCode: 500, type: code, message, details: [] }));
      else res.destroy();
    }
  }

  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const ctx: RequestContext = { id: randomUUID(), sentUid: basicCredentials(req.headers.authorization)?.serviceUid };
    const raw = req.url ?? "/";
    const rawPath = raw.split("?")[0]!;
    const v5 = rawPath.startsWith("/v5/") || rawPath === "/v5";
    let path = rawPath;
    try {
      try {
        const t = this.target(raw);
        path = t.path;
        await this.route(req, res, ctx, path, t.url);
      } catch (err) {
        if (res.headersSent) return void res.destroy();
        if (err instanceof ServiceError || err instanceof HttpError) return this.refused(ctx, req, res, path, v5, err);
        if (err instanceof CursorRefused) return this.refused(ctx, req, res, path, v5, new HttpError(400, "bad_request", err.message));
        return this.internal(ctx, req, res, path, v5, err);
      }
    } catch (err) {
      this.internal(ctx, req, res, path, v5, err);
    }
  };
}

/** The request handler, and its route table (metrics and logs name requests by it). */
export type SandboxRequestHandler = ((req: IncomingMessage, res: ServerResponse) => Promise<void>) & { readonly routes: readonly Route<Handler>[] };

export function createHandler(o: ServerOptions): SandboxRequestHandler {
  const http = new SandboxHttp(o);
  return Object.assign(http.handle, { routes: http.routes });
}
