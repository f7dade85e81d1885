// The HTTP layer only (node:http): routing, authentication (compared in constant time), body limits,
// content types and the error shapes of each interface. Behaviour lives in service.ts.
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ValidationIssue } from "../validators/types.js";
import { choice, validateWith, type SandboxBinding } from "./binding.js";
import type { SandboxClock } from "./clock.js";
import { deliveriesPage, parseBrowse, verificationsPage, type Browse } from "./browse.js";
import { describeDeliveries, resend } from "./dispatcher.js";
import { hostedForm } from "./form.js";
import { messagePage, sandboxPage } from "./page.js";
import { ServiceError, toVerification, type SandboxService } from "./service.js";

/** Verifications on one page of /_sandbox (and deliveries when unfiltered). */
const PAGE_ROWS = 100;
import type { Db } from "./store/index.js";
import { outboxRowsOfTraces } from "./store/outbox.js";

export interface Credentials {
  readonly serviceUid: string;
  readonly secret: string;
}

export interface ServerOptions {
  readonly binding: SandboxBinding;
  readonly service: SandboxService;
  readonly db: Db;
  readonly clock: SandboxClock;
  readonly credentials: Credentials;
  readonly maxBodyBytes: number;
  readonly requestedActionsPath: string;
  /** The address the sandbox is reached at (for serviceLink). */
  readonly baseUrl: () => string;
  readonly onClockAdvanced: () => void;
  /** Where the one line of an internal error goes (default: stderr). */
  readonly log?: (line: string) => void;
  /** Internal errors log their stack too (`verispec sandbox --debug`). */
  readonly debug?: boolean;
}

class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

function basicCredentials(header: string | undefined): Credentials | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = text.indexOf(":");
  return colon < 0 ? undefined : { serviceUid: text.slice(0, colon), secret: text.slice(colon + 1) };
}

/**
 * Credential checks in constant time: SHA-256 digests of what was given against digests of the expected
 * values, made once (so strings of any length compare alike). The Basic header as clients write it is one
 * digest; another spelling of it (scheme case, spaces) is decoded and checked field by field.
 */
export function credentialChecker(expected: Credentials) {
  const uid = digest(expected.serviceUid);
  const secret = digest(expected.secret);
  const header = digest(`Basic ${Buffer.from(`${expected.serviceUid}:${expected.secret}`, "utf8").toString("base64")}`);
  // A body credential may be any JSON value: only strings are compared (no String() of an object, whose toString may be anything).
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const pair = (given: { readonly serviceUid?: unknown; readonly secret?: unknown } | undefined): boolean => {
    const uidOk = timingSafeEqual(digest(text(given?.serviceUid)), uid);
    const secretOk = timingSafeEqual(digest(text(given?.secret)), secret);
    return uidOk && secretOk && typeof given?.serviceUid === "string" && typeof given?.secret === "string";
  };
  return {
    pair,
    basic: (value: string | undefined): boolean => (value !== undefined && timingSafeEqual(digest(value), header)) || pair(basicCredentials(value)),
  };
}

/** The request-body refusals (spec/sandbox.yaml: requestSize, requestBody). */
interface BodyRules {
  readonly limit: number;
  readonly tooLarge: string;
  readonly maxDepth: number;
  readonly messages: Readonly<Record<"notJsonType" | "notFormType" | "notJson" | "notObject" | "tooDeep", string>>;
}

/**
 * How deeply the JSON text nests arrays and objects, read without recursion (JSON.stringify and the
 * checks after it recurse: a body of 10^5 nested arrays would overflow the stack in them).
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) max = Math.max(max, ++depth);
    else if (c === 93 || c === 125) depth--;
  }
  return max;
}

/** The paths of every string (value or key) holding U+0000, which Postgres text cannot store; walked without recursion. */
export function nulPaths(value: unknown): (string | number)[][] {
  const out: (string | number)[][] = [];
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\0")) out.push(path);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        if (k.includes("\0")) out.push([...path, k]);
        else stack.push({ value: child, path: [...path, k] });
      }
    }
  }
  return out;
}

async function readBody(req: IncomingMessage, rules: BodyRules): Promise<Buffer> {
  const { limit } = rules;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError(413, "payload_too_large", rules.tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, "payload_too_large", rules.tooLarge);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function mediaType(req: IncomingMessage): string {
  return String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

async function readJson(req: IncomingMessage, rules: BodyRules): Promise<Record<string, unknown>> {
  if (mediaType(req) !== "application/json") throw new HttpError(415, "unsupported_media_type", rules.messages.notJsonType);
  const raw = (await readBody(req, rules)).toString("utf8");
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

/** What one request carries through its handling: its id (for an internal error) and the serviceUid its caller sent. */
interface RequestContext {
  readonly id: string;
  readonly sentUid: string | undefined;
}

export function createHandler(o: ServerOptions) {
  const b = o.binding;
  const spec = b.spec;
  const log = o.log ?? ((line: string) => void process.stderr.write(`verispec sandbox: ${line}\n`));
  const auth = { status: choice<number>(spec, "authFailure", "httpStatus"), code: choice<string>(spec, "authFailure", "code"), message: choice<string>(spec, "authFailure", "message") };
  const bodyRules: BodyRules = {
    limit: o.maxBodyBytes,
    tooLarge: choice<string>(spec, "requestSize", "message").replace("{limit}", String(o.maxBodyBytes)),
    maxDepth: choice<number>(spec, "requestBody", "maxDepth"),
    messages: choice<BodyRules["messages"]>(spec, "requestBody", "messages"),
  };
  const malformed = () => new HttpError(400, choice<string>(spec, "requestUrl", "code"), choice<string>(spec, "requestUrl", "message"));
  const decode = (raw: string) => decodeStrict(raw, malformed);
  const nul = { code: choice<string>(spec, "nulCharacter", "code"), message: choice<string>(spec, "nulCharacter", "message") };
  const control = {
    maxClockOffsetMs: choice<number>(spec, "controlApi", "maxClockOffsetMs"),
    maxAttempts: choice<number>(spec, "controlApi", "maxAttempts"),
    messages: choice<Readonly<Record<"verificationStatus" | "maxAttempts" | "trigger" | "advanceMs", string>>>(spec, "controlApi", "messages"),
  };
  const paths = {
    create: spec.endpoints.createVerification!.path!,
    get: spec.endpoints.getVerification!.path!,
    verify: spec.endpoints.verify!.path!,
    idForm: spec.endpoints.idForm!.path!,
    status: spec.endpoints.getVerificationStatus!.path!,
  };
  const getPattern = new RegExp(`^${paths.get.replace(/\{trace\}/, "([^/]+)")}$`);
  const request = (id: string) => spec.endpoints[id]!.request!;

  const send = (res: ServerResponse, status: number, body: string, type = "application/json", extra: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": type === "application/json" ? "application/json; charset=utf-8" : type, "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-store", ...extra });
    res.end(body);
  };

  // serviceUid: what the caller sent, never the configured one (an unauthenticated caller must not learn the account id).
  const envelope = (ctx: RequestContext, path: string, statusCode: number, fields: { message: string; trace?: string; pathParams?: Record<string, string>; data?: unknown; error?: unknown }) => ({
    timestamp: new Date(o.clock.now()).toISOString(),
    ...(ctx.sentUid !== undefined ? { serviceUid: ctx.sentUid } : {}),
    trace: fields.trace ?? randomUUID(),
    path,
    pathParams: fields.pathParams ?? {},
    statusCode,
    message: fields.message,
    help: null,
    status: statusCode < 400 ? "success" : "error",
    data: fields.data ?? null,
    error: fields.error ?? null,
  });

  /** An error in the interface's shape: v5 envelope, or the older shape of spec/sandbox.yaml. */
  const fail = (ctx: RequestContext, res: ServerResponse, path: string, v5: boolean, status: number, type: string, message: string, details: readonly ValidationIssue[] = [], extra: { trace?: string; pathParams?: Record<string, string> } = {}) => {
    // HTTP Basic paths (/v5, /_sandbox) challenge; the older endpoints carry credentials in the body.
    const basicPath = v5 || path === "/_sandbox" || path.startsWith("/_sandbox/");
    const headers: Record<string, string> = status === auth.status && basicPath ? { "WWW-Authenticate": 'Basic realm="verispec sandbox"' } : {};
    if (v5) {
      const known = Object.hasOwn(spec.errors, type);
      const error = type === "validation_error" ? { type, details } : known ? { type, message, help: null } : { code: type, message, help: null };
      const top = type === "validation_error" ? spec.errors[type]!.message ?? message : message;
      return send(res, status, JSON.stringify(envelope(ctx, path, status, { message: top, error, ...extra })), "application/json", headers);
    }
    return send(res, status, JSON.stringify({ status: "error", statusCode: status, type, message, details }), "application/json", headers);
  };

  const invalid = (issues: readonly ValidationIssue[]) => {
    const e = spec.errors.validation_error!;
    return new ServiceError(e.httpStatus, "validation_error", e.message ?? "Validation error", issues);
  };
  /** The NUL refusal (spec/sandbox.yaml nulCharacter) of text at these paths. */
  const nulIssues = (paths: readonly (readonly (string | number)[])[]): ValidationIssue[] => paths.map((path) => ({ message: nul.message, code: nul.code, path }));
  /** Path or query parameters the store compares with: NUL refused the way the validators refuse a bad character. */
  const params = (values: Readonly<Record<string, string | undefined>>) => {
    const bad = Object.entries(values).filter(([, v]) => v?.includes("\0")).map(([k]) => [k]);
    if (bad.length) throw invalid(nulIssues(bad));
  };

  /** What the API finds wrong with a body: the schema's issues and, beside them, NUL in any text (the validators accept it; the store cannot hold it). */
  const issuesOf = (schemaId: string, body: unknown): ValidationIssue[] => {
    const result = validateWith(b, schemaId, body);
    const schemaIssues = result.valid ? [] : result.errors;
    const seen = new Set(schemaIssues.map((i) => JSON.stringify(i.path)));
    return [...schemaIssues, ...nulIssues(nulPaths(body).filter((p) => !seen.has(JSON.stringify(p))))];
  };
  const validate = (schemaId: string, body: unknown) => {
    const issues = issuesOf(schemaId, body);
    if (issues.length) throw invalid(issues);
  };
  // The hosted form checks a submission with the very check of the API (same validators, same messages).
  const forms = hostedForm(b, o.service, issuesOf);

  const credentials = credentialChecker(o.credentials);
  const olderAuth = (body: Record<string, unknown>) => {
    if (!credentials.pair({ serviceUid: body.metadata_serviceUid, secret: body.metadata_secretKey })) throw new HttpError(auth.status, auth.code, auth.message);
  };
  const basicAuth = (req: IncomingMessage) => {
    if (!credentials.basic(req.headers.authorization)) throw new HttpError(auth.status, auth.code, auth.message);
  };

  async function route(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, path: string, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    // ---- v5 ----
    if (path === paths.create && method === "POST") {
      basicAuth(req);
      const body = await readJson(req, bodyRules);
      validate(request("createVerification"), body);
      const { trace } = await o.service.createV5(body);
      return send(res, 200, JSON.stringify(envelope(ctx, path, 200, { message: spec.createdMessage, trace })));
    }
    const get = getPattern.exec(path);
    if (get && method === "GET") {
      basicAuth(req);
      const trace = decode(get[1]!);
      params({ trace });
      const v = await o.service.get(trace);
      if (!v || v.api !== "v5") throw Object.assign(o.service.notFound(`No verification with trace ${trace}.`), { trace });
      return send(res, 200, JSON.stringify(envelope(ctx, path, 200, { message: choice<string>(spec, "getMessage", "message"), trace, pathParams: { trace }, data: o.service.detail(v) })));
    }
    // ---- older ----
    if (method === "POST" && (path === paths.verify || path === paths.idForm || path === paths.status || path === o.requestedActionsPath)) {
      const body = await readObject(req, bodyRules);
      olderAuth(body);
      if (path === paths.verify) {
        validate(request("verify"), body);
        return send(res, 200, (await o.service.verifyOlder(body)).text);
      }
      if (path === paths.idForm) {
        validate(request("idForm"), body);
        const id = await o.service.createForm(body);
        return send(res, 200, JSON.stringify({ source: choice<string>(spec, "formSource", "source"), serviceLink: `${o.baseUrl()}/_form/${id}`, verificationUuid: id, status: "success" }));
      }
      if (path === paths.status) {
        validate(request("getVerificationStatus"), body);
        const text = await o.service.latestOlder({ trace: body.trace as string | undefined, userId: body.userId as string | undefined });
        if (text === undefined) throw o.service.notFound("No verification with that trace or userId.");
        return send(res, 200, text);
      }
      validate(request("submitRequestedActions"), body);
      return send(res, 200, await o.service.followUp(String(body.verificationUuid)));
    }
    // ---- the hosted form (no credentials: the caller's customer opens it) ----
    const form = /^\/_form\/([0-9a-f-]{36})$/.exec(path);
    if (form && method === "GET") {
      const page = await forms.open(form[1]!);
      return send(res, page.status, page.html, "text/html; charset=utf-8");
    }
    if (form && method === "POST") {
      if (mediaType(req) !== "application/x-www-form-urlencoded") throw new HttpError(415, "unsupported_media_type", bodyRules.messages.notFormType);
      const page = await forms.submit(form[1]!, new URLSearchParams((await readBody(req, bodyRules)).toString("utf8")));
      return send(res, page.status, page.html, "text/html; charset=utf-8");
    }
    // ---- the sandbox's own control API and page ----
    if (path === "/_sandbox" || path.startsWith("/_sandbox/")) {
      basicAuth(req);
      return controlApi(req, res, path, url, method);
    }
    throw new HttpError(choice<number>(spec, "notFound", "httpStatus"), choice<string>(spec, "notFound", "code"), `No route ${method} ${path}.`);
  }

  /** The filter and cursor of a listing's query (browse.ts), or a 400. */
  const browseOf = (url: URL, defaultLimit?: number): Browse => {
    const b = parseBrowse(url.searchParams, defaultLimit);
    if (typeof b === "string") throw new HttpError(400, "bad_request", b);
    params({ trace: b.trace, userId: b.userId, status: b.status });
    return b;
  };
  /** Every delivery of these traces (a page's verifications), newest first. */
  const deliveriesOf = async (traces: readonly string[]) =>
    traces.length ? describeDeliveries(o.db, await outboxRowsOfTraces(o.db, traces, 500)) : [];

  async function controlApi(req: IncomingMessage, res: ServerResponse, path: string, url: URL, method: string): Promise<void> {
    const json = (status: number, value: unknown) => send(res, status, JSON.stringify(value));
    const refuse = (message: keyof typeof control.messages, max?: number) => new HttpError(400, "bad_request", control.messages[message].replace("{max}", String(max)));
    if (path === "/_sandbox" && method === "GET") return send(res, 200, sandboxPage(), "text/html; charset=utf-8");
    if (path === "/_sandbox/state" && method === "GET") {
      // One page of each (browse.ts): the filter and cursor apply to the verifications; deliveries are of those.
      const b = browseOf(url, PAGE_ROWS);
      const vs = await verificationsPage(o.db, b);
      const verifications = await Promise.all(vs.items.map(toVerification).map(async (v) => ({ ...o.service.detail(v), api: v.api, userId: v.userId, history: await o.service.historyOf(v.trace) })));
      const deliveries = b.trace || b.userId || b.status || b.after ? await deliveriesOf(vs.items.map((v) => String(v.trace))) : (await deliveriesPage(o.db, { limit: PAGE_ROWS })).items;
      return json(200, { now: o.clock.now(), clockOffsetMs: o.clock.offset, verifications, nextCursor: vs.nextCursor, deliveries });
    }
    const status = /^\/_sandbox\/verifications\/([^/]+)\/status$/.exec(path);
    if (status && method === "POST") {
      const trace = decode(status[1]!);
      const body = await readObject(req, bodyRules);
      const to = body.verificationStatus;
      if (typeof to !== "string") throw refuse("verificationStatus");
      const { maxAttempts, trigger } = body;
      if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && (maxAttempts as number) >= 1 && (maxAttempts as number) <= control.maxAttempts)) throw refuse("maxAttempts", control.maxAttempts);
      if (trigger !== undefined && typeof trigger !== "string") throw refuse("trigger");
      params({ trace, verificationStatus: to, trigger: trigger as string | undefined });
      const v = await o.service.applyStatus(trace, to, { maxAttempts: maxAttempts as number | undefined, trigger: trigger as string | undefined });
      return json(200, o.service.detail(v));
    }
    if (path === "/_sandbox/clock" && method === "POST") {
      const body = await readObject(req, bodyRules);
      const room = control.maxClockOffsetMs - o.clock.offset;
      const ms = body.advanceMs;
      if (!(Number.isInteger(ms) && (ms as number) >= 0 && (ms as number) <= room)) throw refuse("advanceMs", room);
      const offset = o.clock.advance(ms as number);
      await o.service.setClockOffset(offset);
      o.onClockAdvanced();
      return json(200, { now: o.clock.now(), clockOffsetMs: offset });
    }
    if (path === "/_sandbox/deliveries" && method === "GET") {
      const p = await deliveriesPage(o.db, browseOf(url));
      return json(200, { deliveries: p.items, nextCursor: p.nextCursor });
    }
    const again = /^\/_sandbox\/deliveries\/([^/]+)\/resend$/.exec(path);
    if (again && method === "POST") {
      const deliveryId = decode(again[1]!);
      params({ deliveryId });
      const n = await resend(o.db, deliveryId);
      if (n < 0) throw o.service.notFound("No delivery with that deliveryId.");
      o.onClockAdvanced();
      return json(200, { resent: n });
    }
    if (path === "/_sandbox/verifications" && method === "GET") return json(200, { verifications: (await o.service.list()).map((v) => o.service.detail(v)) });
    throw new HttpError(choice<number>(spec, "notFound", "httpStatus"), choice<string>(spec, "notFound", "code"), `No route ${method} ${path}.`);
  }

  /** The raw path (before `?`) and query: a malformed percent-escape in either is refused before anything else. */
  const target = (raw: string): { path: string; url: URL } => {
    const q = raw.indexOf("?");
    decode(q < 0 ? raw : raw.slice(0, q));
    if (q >= 0) decode(raw.slice(q + 1).replace(/\+/g, " "));
    let url: URL;
    try {
      url = new URL(raw, "http://sandbox.invalid");
    } catch {
      throw malformed();
    }
    return { path: url.pathname, url };
  };

  /** Everything not foreseen: one line (its stack only with --debug), and a 500 that names the request id. */
  const internal = (ctx: RequestContext, req: IncomingMessage, res: ServerResponse, path: string, v5: boolean, err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    const detail = o.debug ? (e.stack ?? e.message) : `${e.name}: ${e.message.split("\n")[0]}`;
    try {
      log(`internal error ${ctx.id} on ${String(req.method).slice(0, 16)} ${path.slice(0, 200)}: ${detail}`);
    } catch {
      // a log that fails must not take the answer with it
    }
    if (res.headersSent) return void res.destroy();
    const message = choice<string>(spec, "internalError", "message").replace("{requestId}", ctx.id);
    const code = choice<string>(spec, "internalError", "code");
    try {
      fail(ctx, res, path, v5, 500, code, message, [], { trace: ctx.id });
    } catch {
      // The envelope itself failed (its timestamp, say): the older shape needs nothing but the message.
      if (!res.headersSent) send(res, 500, JSON.stringify({ status: "error", statusCode: 500, type: code, message, details: [] }));
      else res.destroy();
    }
  };

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ctx: RequestContext = { id: randomUUID(), sentUid: basicCredentials(req.headers.authorization)?.serviceUid };
    const raw = req.url ?? "/";
    const rawPath = raw.split("?")[0]!;
    const v5 = rawPath.startsWith("/v5/") || rawPath === "/v5";
    let path = rawPath;
    try {
      try {
        const t = target(raw);
        path = t.path;
        await route(req, res, ctx, path, t.url);
      } catch (err) {
        if (res.headersSent) return void res.destroy();
        const e = err instanceof ServiceError || err instanceof HttpError ? err : undefined;
        if (!e) return internal(ctx, req, res, path, v5, err);
        const status = e instanceof ServiceError ? e.httpStatus : e.status;
        const type = e instanceof ServiceError ? e.type : e.code;
        if (path.startsWith("/_form/")) return send(res, status, messagePage(choice<Record<string, string>>(spec, "hostedForm", "messages").unavailableTitle ?? "", e.message), "text/html; charset=utf-8");
        if (status === 413) res.setHeader("Connection", "close");
        const trace = (e as { trace?: string }).trace;
        const get = getPattern.exec(path);
        let pathTrace: string | undefined;
        try {
          pathTrace = get ? decodeURIComponent(get[1]!) : undefined;
        } catch {
          pathTrace = undefined; // the 400 for that very escape is being answered
        }
        fail(ctx, res, path, v5, status, type, e.message, e instanceof ServiceError ? e.details : [], { ...(trace ? { trace } : {}), ...(pathTrace !== undefined ? { pathParams: { trace: pathTrace } } : {}) });
        // A body over the limit is not read further: drain what arrives until the connection closes.
        if (status === 413) req.resume();
      }
    } catch (err) {
      internal(ctx, req, res, path, v5, err);
    }
  };
}
