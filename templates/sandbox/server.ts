// The HTTP layer only (node:http): the router (the route table of handlers.ts; the matched route decides the
// interface, the answer's shape and the authentication), request reading (http/request.ts: limits, depth,
// NUL), credentials (http/credentials.ts, constant time), and the envelope and error shaping (answers.ts,
// shared with verispec/msw). The handlers only parse, call the service and shape the answer.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ValidationIssue } from "../validators/types.js";
import { type AnswerShape, type EnvelopeFields, envelope, type Refusal, refusalAnswer } from "./answers.js";
import { nulPaths } from "./bodies.js";
import { choice, choiceMessage, errorByRole, type SandboxSpec, validateWith } from "./binding.js";
import { CursorRefused, parseBrowse, type Browse } from "./browse.js";
import { pageSecurityHeaders } from "./csp.js";
import { HttpError, refusedAs, type Account, type ControlMessage, type Exchange, type HttpKit, type RequestContext, type ServerOptions } from "./exchange.js";
import { SandboxHandlers, type Handler } from "./handlers.js";
import { accountChecker, basicCredentials } from "./http/credentials.js";
import { closeIfUnread, traceInPath } from "./http/refused.js";
import { type BodyRules, bodyRulesOf, decodeStrict, readForm, readJson, readObject } from "./http/request.js";
import { messagePage } from "./page.js";
import { familyOf, findRoute, type Route } from "./routes.js";
import { ServiceError } from "./service.js";

/** Where a request stands for its answers: the path and what the matched route (or the path's family) decides. */
interface Answering {
  readonly path: string;
  readonly shape: AnswerShape;
  /** An HTTP Basic route: a 401 carries the challenge. */
  readonly basic: boolean;
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

  constructor(private readonly options: ServerOptions) {
    const spec = (this.spec = options.binding.spec);
    this.log = options.log ?? ((line: string) => void process.stderr.write(`verispec sandbox: ${line}\n`));
    this.auth = {
      status: choice<number>(spec, "authFailure", "httpStatus"),
      code: choice<string>(spec, "authFailure", "code"),
      message: choice<string>(spec, "authFailure", "message"),
    };
    this.bodyRules = bodyRulesOf(spec, options.maxBodyBytes, (issues) => this.invalid(issues));
    this.nul = { code: choice<string>(spec, "nulCharacter", "code"), message: choice<string>(spec, "nulCharacter", "message") };
    this.credentials = accountChecker(options.accounts);
    this.sole = options.accounts.length === 1 ? options.accounts[0] : undefined;
    this.routes = new SandboxHandlers(options, this, (schemaId, body) => this.issuesOf(schemaId, body)).routes();
    this.getRoute = this.routes.find((r) => r.operationId === "getVerification")!;
  }

  // ---- the kit the handlers use ----

  send(res: ServerResponse, status: number, body: string, type = this.spec.bodyMediaType, extra: Record<string, string> = {}): void {
    const page = type.startsWith("text/html") ? pageSecurityHeaders(body) : {};
    res.writeHead(status, {
      "Content-Type": type === this.spec.bodyMediaType ? `${type}; charset=utf-8` : type,
      "Content-Length": Buffer.byteLength(body),
      "Cache-Control": "no-store",
      ...page,
      ...extra,
    });
    res.end(body);
  }

  // serviceUid: what the caller sent, never the configured one (an unauthenticated caller must not learn the
  // account id); "" when it sent none, since every v5 envelope carries the field (spec/fieldsets.yaml).
  envelope(ctx: RequestContext, path: string, statusCode: number, fields: EnvelopeFields) {
    // The caller's account's clock; before credentials, a sole account's, else real time (no account's offset is shown to a stranger).
    const now = (ctx.account ?? this.sole)?.clock.now() ?? Date.now();
    return envelope({ now, serviceUid: ctx.sentUid ?? "", newTrace: randomUUID, statuses: this.spec.envelopeStatus }, path, statusCode, fields);
  }

  private invalid(issues: readonly ValidationIssue[]): ServiceError {
    const e = errorByRole(this.spec, "validation");
    return new ServiceError(e.httpStatus, e.type, e.message ?? e.type, issues);
  }

  /** The NUL refusal (spec/sandbox.yaml nulCharacter) of text at these paths. */
  private nulIssues(paths: readonly (readonly (string | number)[])[]): ValidationIssue[] {
    return paths.map((path) => ({ message: this.nul.message, code: this.nul.code, path }));
  }

  params(values: Readonly<Record<string, string | undefined>>): void {
    const bad = Object.entries(values)
      .filter(([, v]) => v?.includes("\0"))
      .map(([k]) => [k]);
    if (bad.length) throw this.invalid(this.nulIssues(bad));
  }

  /** What the API finds wrong with a body: the schema's issues and, beside them, NUL in any text (the validators accept it; the store cannot hold it). */
  private issuesOf(schemaId: string, body: unknown): ValidationIssue[] {
    const result = validateWith(this.options.binding, schemaId, body);
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

  readForm(req: IncomingMessage): Promise<URLSearchParams> {
    return readForm(req, this.bodyRules);
  }

  browseOf(url: URL, defaultLimit?: number): Browse {
    const browse = parseBrowse(url.searchParams, defaultLimit);
    if (typeof browse === "string") throw refusedAs(this.spec, "badRequest", browse);
    this.params({ trace: browse.trace, userId: browse.userId, status: browse.status });
    return browse;
  }

  refuse(message: ControlMessage, max?: number): HttpError {
    const messages = choice<Readonly<Record<ControlMessage, string>>>(this.spec, "controlApi", "messages");
    return refusedAs(this.spec, "badRequest", messages[message].replace("{max}", String(max)));
  }

  // ---- the router: the matched route decides interface, shape and authentication ----

  private malformed(): HttpError {
    return refusedAs(this.spec, "badRequest", choice<string>(this.spec, "requestUrl", "message"));
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

  /** How a path's answers are shaped: by its route, or, matching none, by its family (routes.ts familyOf). */
  private answering(method: string, path: string): Answering & { found: ReturnType<typeof findRoute<Handler>>; authFirst: boolean } {
    const found = findRoute(this.routes, method, path);
    if (found) return { path, shape: found.route.answer, basic: found.route.auth === "basic", found, authFirst: false };
    const family = familyOf(this.routes, path);
    // Of a path no route matches, only a family that checks credentials first can answer 401.
    return { path, shape: family.answer, basic: family.authFirst, found, authFirst: family.authFirst };
  }

  /** The route's authentication first (HTTP Basic; the body's credentials after reading it), then its handler. */
  private async route(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, at: ReturnType<SandboxHttp["answering"]>, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const { found, path } = at;
    if (!found) {
      if (at.authFirst) this.basicAuth(req, ctx);
      throw new HttpError(
        choice<number>(this.spec, "notFound", "httpStatus"),
        choice<string>(this.spec, "notFound", "code"),
        choiceMessage(this.spec, "notFound", "route", { method, path }),
      );
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
      this.options.onAccount?.(res, ctx.account.name);
      // The account's clock as stored now: every instance on one database tells the same time.
      await ctx.account.service.refreshClock();
    }
    const exchange: Exchange = { account: ctx.account, req, res, ctx, path, url, captures, body };
    await route.handler(exchange);
  }

  /** The raw path (before `?`) and query: a malformed percent-escape in either is refused before anything else. */
  private target(raw: string): { path: string; url: URL } {
    const queryAt = raw.indexOf("?");
    this.decode(queryAt < 0 ? raw : raw.slice(0, queryAt));
    if (queryAt >= 0) this.decode(raw.slice(queryAt + 1).replace(/\+/g, " "));
    let url: URL;
    try {
      url = new URL(raw, "http://sandbox.invalid");
    } catch {
      throw this.malformed();
    }
    return { path: url.pathname, url };
  }

  // ---- errors and the guard ----

  /** A refusal in the shape the route answers in: v5 envelope, or the older shape of spec/sandbox.yaml. */
  private fail(ctx: RequestContext, res: ServerResponse, at: Answering, refusal: Refusal): void {
    const shape = at.shape === "v5" ? "v5" : "older";
    const envelopeOf = { now: (ctx.account ?? this.sole)?.clock.now() ?? Date.now(), serviceUid: ctx.sentUid ?? "", newTrace: randomUUID };
    const { body, headers } = refusalAnswer(this.spec, shape, refusal, { path: at.path, basic: at.basic, envelope: envelopeOf });
    this.send(res, refusal.status, body, this.spec.bodyMediaType, headers);
  }

  /** A refusal the handling foresaw (ServiceError, HttpError), in the shape of the route's interface. */
  private refused(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, at: Answering, refusal: ServiceError | HttpError): void {
    const status = refusal instanceof ServiceError ? refusal.httpStatus : refusal.status;
    const type = refusal instanceof ServiceError ? refusal.type : refusal.code;
    // A body refused before it was read in full is drained, not parsed (http/refused.ts).
    const unread = closeIfUnread(req, res, status, this.bodyRules.limit);
    if (at.shape === "page") {
      this.send(
        res,
        status,
        messagePage(choice<Record<string, string>>(this.spec, "hostedForm", "messages").unavailableTitle ?? "", refusal.message),
        "text/html; charset=utf-8",
      );
      return void (unread && req.resume());
    }
    const trace = (refusal as { trace?: string }).trace;
    const pathTrace = traceInPath(this.getRoute.pattern, at.path);
    const details = refusal instanceof ServiceError ? refusal.details : [];
    this.fail(ctx, res, at, {
      status,
      type,
      message: refusal.message,
      details,
      ...(trace ? { trace } : {}),
      ...(pathTrace !== undefined ? { pathParams: { trace: pathTrace } } : {}),
    });
    // A body not read in full: drain what arrives until the connection closes.
    if (unread) req.resume();
  }

  /** Everything not foreseen: one line (its stack only with --debug), and a 500 that names the request id. */
  private internal(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, at: Answering, err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    const detail = this.options.debug ? (error.stack ?? error.message) : `${error.name}: ${error.message.split("\n")[0]}`;
    try {
      this.log(`internal error ${ctx.id} on ${String(req.method).slice(0, 16)} ${at.path.slice(0, 200)}: ${detail}`);
    } catch {
      // a log that fails must not take the answer with it
    }
    if (res.headersSent) return void res.destroy();
    const message = choice<string>(this.spec, "internalError", "message").replace("{requestId}", ctx.id);
    const code = choice<string>(this.spec, "internalError", "code");
    try {
      this.fail(ctx, res, at, { status: 500, type: code, message, trace: ctx.id });
    } catch {
      // The envelope itself failed (its timestamp, say): the older shape needs nothing but the message.
      if (!res.headersSent) this.send(res, 500, JSON.stringify({ status: "error", statusCode: 500, type: code, message, details: [] }));
      else res.destroy();
    }
  }

  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const ctx: RequestContext = { id: randomUUID(), sentUid: basicCredentials(req.headers.authorization)?.serviceUid };
    const raw = req.url ?? "/";
    const method = req.method ?? "GET";
    let at: Answering = this.answering(method, raw.split("?")[0]!);
    try {
      try {
        const requestTarget = this.target(raw);
        const routed = this.answering(method, requestTarget.path);
        at = routed;
        await this.route(req, res, ctx, routed, requestTarget.url);
      } catch (err) {
        if (res.headersSent) return void res.destroy();
        if (err instanceof ServiceError || err instanceof HttpError) return this.refused(ctx, req, res, at, err);
        if (err instanceof CursorRefused) return this.refused(ctx, req, res, at, refusedAs(this.spec, "badRequest", err.message));
        return this.internal(ctx, req, res, at, err);
      }
    } catch (err) {
      this.internal(ctx, req, res, at, err);
    }
  };
}

/** The request handler, and its route table (metrics and logs name requests by it). */
export type SandboxRequestHandler = ((req: IncomingMessage, res: ServerResponse) => Promise<void>) & { readonly routes: readonly Route<Handler>[] };

export function createHandler(options: ServerOptions): SandboxRequestHandler {
  const http = new SandboxHttp(options);
  return Object.assign(http.handle, { routes: http.routes });
}
