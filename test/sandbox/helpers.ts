// Test support for the sandbox: start `verispec sandbox` as a child process, a webhook receiver that
// records every delivery, and the response schemas of generated/openapi.json.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { v5 } from "../../generated/types.js";
import { validate } from "../../generated/validators/index.js";
import type { Loose } from "../support/loose.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CREDENTIALS = { serviceUid: "sandbox-test-uid", secret: "sandbox-test-secret-9f8e7d" };
export const SIGNING_SECRET = "sandbox-test-signing-key-0123456789";
/** The ready line: text, or with --log-format json the JSON object of event `listening`. */
export const READY = /^(?:verispec sandbox listening on (http:\/\/127\.0\.0\.1:\d+)|\{.*"event":"listening","url":"(http:\/\/127\.0\.0\.1:\d+)"\})$/m;

export interface Sandbox {
  /** Where clients go: the sandbox, or the judging proxy in front of it (test/conform/through-proxy.ts). */
  readonly url: string;
  /** The sandbox's own address, when a proxy is in front of it. */
  readonly servedUrl?: string;
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `verispec sandbox --port 0 ...args` and resolves once the ready line is printed. */
export async function startSandbox(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Sandbox> {
  const child = spawn(process.execPath, ["--import", "tsx", "generator/cli/bin.ts", "sandbox", "--port", "0", ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      VERISPEC_SANDBOX_SERVICE_UID: CREDENTIALS.serviceUid,
      VERISPEC_SANDBOX_SECRET: CREDENTIALS.secret,
      VERISPEC_SIGNING_SECRET: SIGNING_SECRET,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const state = { stdout: "", stderr: "" };
  child.stdout!.on("data", (c: Buffer) => (state.stdout += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => (state.stderr += c.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: on a loaded shared machine a start from the sources took 26 s.
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${state.stderr}`)), 120_000);
    const check = () => {
      const m = READY.exec(state.stdout);
      if (m) {
        clearTimeout(timer);
        resolve((m[1] ?? m[2])!);
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => reject(new Error(`sandbox exited ${code}: ${state.stderr}`)));
  });
  const sandbox: Sandbox = {
    url,
    child,
    get stdout() {
      return state.stdout;
    },
    get stderr() {
      return state.stderr;
    },
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  } as Sandbox;
  const through = process.env.VERISPEC_TEST_THROUGH_PROXY;
  return through ? (await import("../conform/through-proxy.js")).behindProxy(sandbox, through) : sandbox;
}

export interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/** A receiver that records every delivery and answers with `answer()` (default 200). */
export async function startReceiver(
  answer: (d: Delivery) => number | "hang" = () => 200,
): Promise<{ url: string; deliveries: Delivery[]; server: Server; close(): Promise<void> }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const d = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      const a = answer(d);
      if (a === "hang") return; // never answers
      deliveries.push(d);
      res.writeHead(a).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    deliveries,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An older-interface body with the test account's metadata_* credentials (version 4) and `extra`. */
export function olderBody(extra: Record<string, unknown>): Record<string, unknown> {
  return { metadata_version: "4", metadata_serviceUid: CREDENTIALS.serviceUid, metadata_secretKey: CREDENTIALS.secret, ...extra };
}

export function basic(c = CREDENTIALS): string {
  return `Basic ${Buffer.from(`${c.serviceUid}:${c.secret}`).toString("base64")}`;
}

export interface Answer {
  status: number;
  body: Loose;
  text: string;
  headers: Headers;
}

/** A call of the control API (or any path) with the sandbox's credentials. */
export function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return request(base, method, path, body, { authorization: basic(), ...headers });
}

/** A request with a JSON body (a string is sent as it is); the answer's body parsed when it is JSON. */
export async function request(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, body: parsed, text, headers: r.headers };
}

// ---- the response schemas of generated/openapi.json -----------------------------------------------

const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(openapi as object, "openapi");

/** The response schema of an operation for an HTTP status (the exact code, then 4XX, then default). */
function responseRef(path: string, method: string, status: number): string {
  const op = openapi.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`no operation ${method} ${path} in openapi.json`);
  const r = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  const ref = r?.content?.["application/json"]?.schema.$ref;
  if (!ref) throw new Error(`no JSON response schema for ${method} ${path} ${status}`);
  return ref;
}

/** Errors of `body` against the response schema of the operation (empty: valid). */
export function responseErrors(path: string, method: string, status: number, body: unknown): string[] {
  const ref = responseRef(path, method, status);
  const check = ajv.getSchema(`openapi${ref}`);
  if (!check) throw new Error(`cannot compile ${ref}`);
  return check(body) ? [] : (check.errors ?? []).map((e) => `${ref}${e.instancePath} ${e.message}`);
}

/** Every webhook payload against its generated webhook schema. */
export function webhookErrors(body: string): readonly unknown[] {
  const payload = JSON.parse(body) as { version?: string };
  const result = validate(payload.version === "v5" ? "v5.WebhookPayload" : "v4.WebhookPayload", payload);
  return result.valid ? [] : result.errors;
}

/** A fetch for the generated client that checks every response against openapi.json as it passes. */
export function checkingFetch(seen: Array<{ path: string; status: number; errors: string[] }>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const method = init?.method ?? "GET";
    const path = url.pathname.startsWith("/v5/verifications/") ? "/v5/verifications/{trace}" : url.pathname;
    const text = await response.clone().text();
    if (!openapi.paths[path]) return response; // the follow-up request: no operation in the document (its path is not shown)
    seen.push({ path: url.pathname, status: response.status, errors: responseErrors(path, method, response.status, JSON.parse(text)) });
    return response;
  };
}

// ---- payloads ------------------------------------------------------------------------------------

export function v5Individual(name: string, userId?: string): v5.VerificationCreateRequest {
  return { type: "individual", subType: "data", country: "AUS", name, website: "https://example.com", ...(userId ? { userId } : {}) };
}

export const olderIndividual = (lastName: string, userId = "older-user-1") => ({
  metadata_userId: userId,
  type: "individual",
  fields: {
    country: "USA",
    firstName: "Ada",
    lastName,
    dateOfBirth: "01/02/1990",
    streetNumber: "1",
    streetName: "Main",
    suburb: "Springfield",
    postcode: "12345",
    state: "CA",
  },
});
