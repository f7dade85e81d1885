// verispec/msw's HTTP concerns, as the sandbox's server has them, on the Fetch API: credentials, bodies within
// their limits, validation (the schema and NUL), and the answers and refusals (../sandbox/answers.ts, shared
// with the server).
import { HttpResponse } from "msw";
import type { ValidationIssue } from "../validators/types.js";
import { envelope, type EnvelopeFields, type Refusal, refusalAnswer } from "../sandbox/answers.js";
import { choice, errorByRole, validateWith, type SandboxBinding } from "../sandbox/binding.js";
import { jsonDepth, nulPaths } from "../sandbox/bodies.js";
import type { SandboxClock } from "../sandbox/clock.js";
import { HttpError, refusedAs } from "../sandbox/exchange.js";
import { ServiceError, type SandboxService } from "../sandbox/service.js";

/** The user name of a Basic header (what an envelope's serviceUid echoes), and the pair; undefined when it is not one. */
function basicPair(header: string | null): { serviceUid: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  let text: string;
  try {
    text = new TextDecoder().decode(Uint8Array.from(atob(m[1]!), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const colon = text.indexOf(":");
  return colon < 0 ? undefined : { serviceUid: text.slice(0, colon), secret: text.slice(colon + 1) };
}

export interface Call {
  readonly request: Request;
  readonly path: string;
  readonly captures: readonly string[];
  readonly body: Record<string, unknown>;
  readonly sentUid: string | undefined;
}

export type Handle = (call: Call) => Promise<Response>;

export interface MockRoute {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly auth: "basic" | "body";
  /** The shape of its answers: the spec's basic routes are v5; its body routes and the control API the older shape. */
  readonly answer: "v5" | "older";
  readonly handle: Handle;
}

export type Kit = ReturnType<typeof httpKit>;

/** The request bodies, as server.ts reads them: JSON only, within the size and depth limits. */
function bodyReader(spec: SandboxBinding["spec"]) {
  const rules = choice<Readonly<Record<"notJsonType" | "notJson" | "notObject" | "tooDeep", string>>>(spec, "requestBody", "messages");
  const maxDepth = choice<number>(spec, "requestBody", "maxDepth");
  const maxBytes = choice<number>(spec, "requestSize", "maxBodyBytes");
  const readJson = async (request: Request): Promise<Record<string, unknown>> => {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== spec.bodyMediaType) throw refusedAs(spec, "unsupportedMediaType", rules.notJsonType);
    const raw = await request.text();
    if (new TextEncoder().encode(raw).length > maxBytes)
      throw refusedAs(spec, "payloadTooLarge", choice<string>(spec, "requestSize", "message").replace("{limit}", String(maxBytes)));
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw refusedAs(spec, "badRequest", rules.notJson);
    }
    if (jsonDepth(raw) > maxDepth) throw refusedAs(spec, "badRequest", rules.tooDeep.replace("{max}", String(maxDepth)));
    return value as Record<string, unknown>;
  };
  const readObject = async (request: Request) => {
    const body: unknown = await readJson(request);
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw refusedAs(spec, "badRequest", rules.notObject);
    return body as Record<string, unknown>;
  };
  return { readJson, readObject };
}

/** The answers, as server.ts shapes them (answers.ts, shared): the v5 envelope, and each interface's error body. */
function answers(spec: SandboxBinding["spec"], clock: SandboxClock, newId: () => string) {
  const send = (status: number, body: string, headers: Record<string, string> = {}) =>
    new HttpResponse(body, { status, headers: { "Content-Type": `${spec.bodyMediaType}; charset=utf-8`, "Cache-Control": "no-store", ...headers } });
  const context = (sentUid: string | undefined) => ({ now: clock.now(), serviceUid: sentUid, newTrace: newId, statuses: spec.envelopeStatus });
  const envelopeOf = (sentUid: string | undefined, path: string, statusCode: number, fields: EnvelopeFields) =>
    envelope(context(sentUid), path, statusCode, fields);
  /** A refusal in the route's shape (v5: its basic routes; the control API: the older shape), with the challenge on a basic route. */
  const fail = (sentUid: string | undefined, route: MockRoute, path: string, refusal: Refusal) => {
    const { body, headers } = refusalAnswer(spec, route.answer, refusal, { path, basic: route.auth === "basic", envelope: context(sentUid) });
    return send(refusal.status, body, headers);
  };
  return { send, envelope: envelopeOf, fail };
}

/** The request checks: the schema's issues and, beside them, NUL in any text (as the sandbox refuses it). */
function checks(binding: SandboxBinding) {
  const spec = binding.spec;
  const nul = { code: choice<string>(spec, "nulCharacter", "code"), message: choice<string>(spec, "nulCharacter", "message") };
  const nulIssues = (paths: readonly (readonly (string | number)[])[]): ValidationIssue[] =>
    paths.map((path) => ({ message: nul.message, code: nul.code, path }));
  const invalid = (issues: readonly ValidationIssue[]) => {
    const e = errorByRole(spec, "validation");
    return new ServiceError(e.httpStatus, e.type, e.message ?? e.type, issues);
  };
  return {
    validate(schemaId: string, body: unknown): void {
      const result = validateWith(binding, schemaId, body);
      const issues = result.valid ? [] : [...result.errors];
      const seen = new Set(issues.map((i) => JSON.stringify(i.path)));
      issues.push(...nulIssues(nulPaths(body).filter((p) => !seen.has(JSON.stringify(p)))));
      if (issues.length) throw invalid(issues);
    },
    params(values: Readonly<Record<string, string | undefined>>): void {
      const bad = Object.entries(values)
        .filter(([, v]) => v?.includes("\0"))
        .map(([k]) => [k]);
      if (bad.length) throw invalid(nulIssues(bad));
    },
  };
}

/** The HTTP concerns, as server.ts has them: credentials, bodies, validation, the two interfaces' answers and errors. */
export function httpKit(binding: SandboxBinding, clock: SandboxClock, newId: () => string, credentials: { serviceUid: string; secret: string }) {
  const spec = binding.spec;
  const auth = () =>
    new HttpError(
      choice<number>(spec, "authFailure", "httpStatus"),
      choice<string>(spec, "authFailure", "code"),
      choice<string>(spec, "authFailure", "message"),
    );
  const { readJson, readObject } = bodyReader(spec);
  const { send, envelope, fail } = answers(spec, clock, newId);
  const tryDecode = (raw: string) => {
    try {
      return decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  };
  // A malformed percent-escape is the caller's mistake: the sandbox's 400 (spec/sandbox.yaml requestUrl).
  const decode = (raw: string) =>
    tryDecode(raw) ??
    (() => {
      throw refusedAs(spec, "badRequest", choice<string>(spec, "requestUrl", "message"));
    })();
  return {
    spec,
    envelope,
    readJson,
    ...checks(binding),
    json: (status: number, value: unknown) => send(status, JSON.stringify(value)),
    text: (status: number, text: string) => send(status, text),
    /** One request: completes what is due, checks the route's credentials, reads an older body, runs the route; refusals in the interface's shape. */
    async answer(request: Request, pattern: RegExp, route: MockRoute, service: SandboxService): Promise<Response> {
      const path = new URL(request.url).pathname;
      const sent = basicPair(request.headers.get("authorization"));
      try {
        await service.processDue();
        let body: Record<string, unknown> = {};
        if (route.auth === "basic" && !(sent?.serviceUid === credentials.serviceUid && sent.secret === credentials.secret)) throw auth();
        if (route.auth === "body") {
          body = await readObject(request);
          if (!(body.metadata_serviceUid === credentials.serviceUid && body.metadata_secretKey === credentials.secret)) throw auth();
        }
        const captures = (pattern.exec(path)?.slice(1) ?? []).map(decode);
        return await route.handle({ request, path, captures, body, sentUid: sent?.serviceUid });
      } catch (e) {
        if (!(e instanceof ServiceError || e instanceof HttpError)) throw e;
        const status = e instanceof ServiceError ? e.httpStatus : e.status;
        const type = e instanceof ServiceError ? e.type : e.code;
        const trace = (e as { trace?: string }).trace;
        const raw = route.method === "GET" && route.path.includes("{trace}") ? pattern.exec(path)?.[1] : undefined;
        const getTrace = raw === undefined ? undefined : tryDecode(raw);
        const details = e instanceof ServiceError ? e.details : [];
        return fail(sent?.serviceUid, route, path, {
          status,
          type,
          message: e.message,
          details,
          ...(trace ? { trace } : {}),
          ...(getTrace !== undefined ? { pathParams: { trace: getTrace } } : {}),
        });
      }
    },
  };
}
