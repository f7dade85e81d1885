// The HTTP layer only (node:http): routing, authentication (compared in constant time), body limits,
// content types and the error shapes of each interface. Behaviour lives in service.ts.
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ValidationIssue } from "../validators/types.js";
import { choice, validateWith, type SandboxBinding } from "./binding.js";
import type { SandboxClock } from "./clock.js";
import { listDeliveries, resend } from "./dispatcher.js";
import { formPage, messagePage, sandboxPage } from "./page.js";
import { ServiceError, type SandboxService } from "./service.js";
import type { Db } from "./store/index.js";

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
  const pair = (given: Partial<Credentials> | undefined): boolean => {
    const uidOk = timingSafeEqual(digest(String(given?.serviceUid ?? "")), uid);
    const secretOk = timingSafeEqual(digest(String(given?.secret ?? "")), secret);
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
  readonly messages: Readonly<Record<"notJsonType" | "notFormType" | "notJson" | "notObject", string>>;
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
  const raw = await readBody(req, rules);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch {
    // Not V8's message: it quotes body text, and the older endpoints' bodies carry the secret key.
    throw new HttpError(400, "bad_request", rules.messages.notJson);
  }
  return value as Record<string, unknown>;
}

export function createHandler(o: ServerOptions) {
  const b = o.binding;
  const spec = b.spec;
  const auth = { status: choice<number>(spec, "authFailure", "httpStatus"), code: choice<string>(spec, "authFailure", "code"), message: choice<string>(spec, "authFailure", "message") };
  const bodyRules: BodyRules = {
    limit: o.maxBodyBytes,
    tooLarge: choice<string>(spec, "requestSize", "message").replace("{limit}", String(o.maxBodyBytes)),
    messages: choice<BodyRules["messages"]>(spec, "requestBody", "messages"),
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

  const envelope = (req: IncomingMessage, path: string, statusCode: number, fields: { message: string; trace?: string; pathParams?: Record<string, string>; data?: unknown; error?: unknown }) => ({
    timestamp: new Date(o.clock.now()).toISOString(),
    serviceUid: o.credentials.serviceUid,
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
  const fail = (req: IncomingMessage, res: ServerResponse, path: string, v5: boolean, status: number, type: string, message: string, details: readonly ValidationIssue[] = [], extra: { trace?: string; pathParams?: Record<string, string> } = {}) => {
    // HTTP Basic paths (/v5, /_sandbox) challenge; the older endpoints carry credentials in the body.
    const basicPath = v5 || path === "/_sandbox" || path.startsWith("/_sandbox/");
    const headers: Record<string, string> = status === auth.status && basicPath ? { "WWW-Authenticate": 'Basic realm="verispec sandbox"' } : {};
    if (v5) {
      const known = Object.hasOwn(spec.errors, type);
      const error = type === "validation_error" ? { type, details } : known ? { type, message, help: null } : { code: type, message, help: null };
      const top = type === "validation_error" ? spec.errors[type]!.message ?? message : message;
      return send(res, status, JSON.stringify(envelope(req, path, status, { message: top, error, ...extra })), "application/json", headers);
    }
    return send(res, status, JSON.stringify({ status: "error", statusCode: status, type, message, details }), "application/json", headers);
  };

  const validate = (schemaId: string, body: unknown) => {
    const result = validateWith(b, schemaId, body);
    if (!result.valid) {
      const e = spec.errors.validation_error!;
      throw new ServiceError(e.httpStatus, "validation_error", e.message ?? "Validation error", result.errors);
    }
  };

  const credentials = credentialChecker(o.credentials);
  const olderAuth = (body: Record<string, unknown>) => {
    if (!credentials.pair({ serviceUid: body.metadata_serviceUid as string, secret: body.metadata_secretKey as string })) throw new HttpError(auth.status, auth.code, auth.message);
  };
  const basicAuth = (req: IncomingMessage) => {
    if (!credentials.basic(req.headers.authorization)) throw new HttpError(auth.status, auth.code, auth.message);
  };

  async function route(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    // ---- v5 ----
    if (path === paths.create && method === "POST") {
      basicAuth(req);
      const body = await readJson(req, bodyRules);
      validate(request("createVerification"), body);
      const { trace } = await o.service.createV5(body);
      return send(res, 200, JSON.stringify(envelope(req, path, 200, { message: spec.createdMessage, trace })));
    }
    const get = getPattern.exec(path);
    if (get && method === "GET") {
      basicAuth(req);
      const trace = decodeURIComponent(get[1]!);
      const v = await o.service.get(trace);
      if (!v || v.api !== "v5") throw Object.assign(o.service.notFound(`No verification with trace ${trace}.`), { trace });
      return send(res, 200, JSON.stringify(envelope(req, path, 200, { message: choice<string>(spec, "getMessage", "message"), trace, pathParams: { trace }, data: o.service.detail(v) })));
    }
    // ---- older ----
    if (method === "POST" && (path === paths.verify || path === paths.idForm || path === paths.status || path === o.requestedActionsPath)) {
      const body = await readJson(req, bodyRules);
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ServiceError(400, "bad_request", bodyRules.messages.notObject);
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
      const opened = await o.service.openForm(form[1]!);
      return send(res, 200, formPage(form[1]!, opened, choice<string[]>(spec, "reducedPrefill", "keep")), "text/html; charset=utf-8");
    }
    if (form && method === "POST") {
      if (mediaType(req) !== "application/x-www-form-urlencoded") throw new HttpError(415, "unsupported_media_type", bodyRules.messages.notFormType);
      const params = new URLSearchParams((await readBody(req, bodyRules)).toString("utf8"));
      const fields = Object.fromEntries([...params].filter(([k]) => k.startsWith("fields.")).map(([k, v]) => [k.slice(7), v]));
      const trace = await o.service.submitForm(form[1]!, fields);
      return send(res, 200, messagePage("Submitted", `Thank you. Verification ${trace} was submitted; a webhook reports its status.`), "text/html; charset=utf-8");
    }
    // ---- the sandbox's own control API and page ----
    if (path === "/_sandbox" || path.startsWith("/_sandbox/")) {
      basicAuth(req);
      return control(req, res, path, url, method);
    }
    throw new HttpError(choice<number>(spec, "notFound", "httpStatus"), choice<string>(spec, "notFound", "code"), `No route ${method} ${path}.`);
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string, url: URL, method: string): Promise<void> {
    const json = (status: number, value: unknown) => send(res, status, JSON.stringify(value));
    if (path === "/_sandbox" && method === "GET") return send(res, 200, sandboxPage(), "text/html; charset=utf-8");
    if (path === "/_sandbox/state" && method === "GET") {
      const vs = await o.service.list();
      const verifications = await Promise.all(vs.map(async (v) => ({ ...o.service.detail(v), api: v.api, userId: v.userId, history: await o.service.historyOf(v.trace) })));
      return json(200, { now: o.clock.now(), clockOffsetMs: o.clock.offset, verifications, deliveries: await listDeliveries(o.db) });
    }
    const status = /^\/_sandbox\/verifications\/([^/]+)\/status$/.exec(path);
    if (status && method === "POST") {
      const body = await readJson(req, bodyRules);
      const to = body.verificationStatus;
      if (typeof to !== "string") throw new HttpError(400, "bad_request", "verificationStatus (a string) is required.");
      if (body.maxAttempts !== undefined && (!Number.isSafeInteger(body.maxAttempts) || (body.maxAttempts as number) < 1)) throw new HttpError(400, "bad_request", "maxAttempts must be a positive integer.");
      if (body.trigger !== undefined && typeof body.trigger !== "string") throw new HttpError(400, "bad_request", "trigger must be a transition id.");
      const v = await o.service.applyStatus(decodeURIComponent(status[1]!), to, { maxAttempts: body.maxAttempts as number | undefined, trigger: body.trigger as string | undefined });
      return json(200, o.service.detail(v));
    }
    if (path === "/_sandbox/clock" && method === "POST") {
      const body = await readJson(req, bodyRules);
      if (!Number.isSafeInteger(body.advanceMs) || (body.advanceMs as number) < 0) throw new HttpError(400, "bad_request", "advanceMs must be a non-negative integer.");
      const offset = o.clock.advance(body.advanceMs as number);
      await o.service.setClockOffset(offset);
      o.onClockAdvanced();
      return json(200, { now: o.clock.now(), clockOffsetMs: offset });
    }
    if (path === "/_sandbox/deliveries" && method === "GET") return json(200, { deliveries: await listDeliveries(o.db, url.searchParams.get("trace") ?? undefined) });
    const again = /^\/_sandbox\/deliveries\/([^/]+)\/resend$/.exec(path);
    if (again && method === "POST") {
      const n = await resend(o.db, decodeURIComponent(again[1]!));
      if (n < 0) throw o.service.notFound("No delivery with that deliveryId.");
      o.onClockAdvanced();
      return json(200, { resent: n });
    }
    if (path === "/_sandbox/verifications" && method === "GET") return json(200, { verifications: (await o.service.list()).map((v) => o.service.detail(v)) });
    throw new HttpError(choice<number>(spec, "notFound", "httpStatus"), choice<string>(spec, "notFound", "code"), `No route ${method} ${path}.`);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
    const path = url.pathname;
    const v5 = path.startsWith("/v5/") || path === "/v5";
    const page = path.startsWith("/_form/");
    try {
      await route(req, res, path, url);
    } catch (err) {
      if (res.headersSent) return void res.destroy();
      const e = err instanceof ServiceError || err instanceof HttpError ? err : undefined;
      if (!e) {
        process.stderr.write(`verispec sandbox: internal error on ${req.method} ${path}: ${(err as Error)?.stack ?? String(err)}\n`);
        return fail(req, res, path, v5, 500, "internal_error", "Internal sandbox error.");
      }
      const status = e instanceof ServiceError ? e.httpStatus : e.status;
      const type = e instanceof ServiceError ? e.type : e.code;
      if (page) return send(res, status, messagePage("Form unavailable", e.message), "text/html; charset=utf-8");
      if (status === 413) res.setHeader("Connection", "close");
      const trace = (e as { trace?: string }).trace;
      const get = getPattern.exec(path);
      fail(req, res, path, v5, status, type, e.message, e instanceof ServiceError ? e.details : [], { ...(trace ? { trace } : {}), ...(get ? { pathParams: { trace: decodeURIComponent(get[1]!) } } : {}) });
      // A body over the limit is not read further: drain what arrives until the connection closes.
      if (status === 413) req.resume();
    }
  };
}
