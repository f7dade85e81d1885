// The client core against a real node:http server on 127.0.0.1 (no fetch mocks).
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createClientCore,
  HttpError,
  NetworkError,
  ResponseValidationError,
  SubmissionConflictError,
  TimeoutError,
  TooManyAttemptsError,
  ValidationError,
  VerispecError,
  type ClientOptions,
  type OperationSpec,
  type ServiceIssue,
  type SpecConstants,
  type Validate,
} from "../../templates/client/index.js";
import { closedPort, startServer, type TestServer } from "./server.js";
import type { Loose, LooseJson } from "../support/loose.js";

const UID = "svc-uid-1";
const SECRET = "s3cr€t-ключ-42"; // non-Latin-1 on purpose: Basic must be UTF-8 safe
const TOKEN = Buffer.from(`${UID}:${SECRET}`, "utf8").toString("base64");
const AUTH = `Basic ${TOKEN}`;

const constants: SpecConstants = {
  olderVersion: "4",
  mediaType: "application/json",
  errorTypesByStatus: { 422: "validation_error", 474: "too_many_attempts", 475: "submission_conflict" },
  errorClasses: new Map<unknown, typeof VerispecError>([
    ["validation_error", ValidationError],
    ["too_many_attempts", TooManyAttemptsError],
    ["submission_conflict", SubmissionConflictError],
  ]),
};

const ops = {
  verify: { name: "verify", method: "POST", path: "/verify", auth: "body", requestSchema: "v4.VerifyRequest" },
  idForm: { name: "idForm", method: "POST", path: "/idform", auth: "body" },
  getVerificationStatus: { name: "getVerificationStatus", method: "POST", path: "/getVerificationStatus", auth: "body" },
  submitRequestedActions: { name: "submitRequestedActions", method: "POST", path: null, auth: "body" },
  createVerification: {
    name: "v5.createVerification",
    method: "POST",
    path: "/v5/verifications",
    auth: "basic",
    requestSchema: "v5.CreateVerificationRequest",
    responseSchema: "v5.Envelope",
  },
  getVerification: {
    name: "v5.getVerification",
    method: "GET",
    path: "/v5/verifications/{trace}",
    auth: "basic",
    responseSchema: "v5.VerificationEnvelope",
  },
} as const satisfies Record<string, OperationSpec>;

// seed: 7, the v5 error envelope example
const SEED_422 = {
  statusCode: 422,
  message: "Validation error",
  status: "error",
  data: null,
  help: null,
  error: {
    type: "validation_error",
    details: [{ message: "ABN must be exactly 11 digits.", code: "invalid_format", path: ["identifiers", "abn"] }],
  },
};
const SEED_DETAILS: ServiceIssue[] = SEED_422.error.details;

const v5Success = (data: unknown, trace = "tr-1") => ({
  timestamp: "2024-01-01T00:00:00.000Z",
  serviceUid: UID,
  trace,
  path: "/v5/verifications",
  pathParams: {},
  statusCode: 200,
  message: "Verification created successfully",
  help: null,
  status: "success",
  data,
  error: null,
});

/** A fake validator: an ABN must be 11 digits; the response envelope must have status "success". */
const fakeValidate: Validate = (schemaId, data) => {
  const d = data as LooseJson;
  if (schemaId === "v5.CreateVerificationRequest" && !/^\d{11}$/.test(String(d.identifiers?.abn))) return { valid: false, errors: SEED_DETAILS };
  if (schemaId.endsWith("Envelope") && d?.status !== "success")
    return { valid: false, errors: [{ message: "must be equal to constant", code: "const", path: ["status"] }] };
  return { valid: true };
};

let server: TestServer;
let loads = 0;
const loadValidate = async () => {
  loads++;
  return fakeValidate;
};
const client = (o: Partial<ClientOptions> = {}, c: SpecConstants = constants) =>
  createClientCore({ baseUrl: `${server.url}/`, serviceUid: UID, secret: SECRET, retry: { baseDelayMs: 1, maxDelayMs: 4 }, ...o }, c, loadValidate);

/** Awaits a rejection and returns the error (fails the test when the promise resolves). */
async function caught(p: Promise<unknown>): Promise<Loose> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
beforeEach(() => {
  loads = 0;
  server.reply({ status: 200, body: { ok: true } });
});

const credentials = { metadata_version: "4", metadata_serviceUid: UID, metadata_secretKey: SECRET };

describe("older interface: credentials in the body (seed: 5)", () => {
  it("POST /verify adds metadata_version, serviceUid and secretKey; JSON headers; no Authorization", async () => {
    const status = { verificationStatus: "pending", trace: "t-1", submissionId: "s-1" };
    server.reply({ status: 200, body: status });
    const body = { metadata_userId: "u-1", type: "individual", fields: { country: "USA", firstName: "Ann" } };
    await expect(client().call(ops.verify, { body })).resolves.toEqual(status);
    const [req] = server.requests;
    expect(server.requests).toHaveLength(1);
    expect(req).toMatchObject({ method: "POST", path: "/verify", json: { ...body, ...credentials } });
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers.accept).toBe("application/json");
    expect(req!.headers.authorization).toBeUndefined();
  });

  it("POST /idform sends the forms body with credentials", async () => {
    const form = { source: "svc", serviceLink: "https://x/f", verificationUuid: "3f2c", status: "success" };
    server.reply({ body: form });
    const body = { serviceLink_dataAccessType: "idForm", type: "soleTrader", fields: { country: "AUS" } };
    await expect(client().call(ops.idForm, { body })).resolves.toEqual(form);
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/idform", json: { ...body, ...credentials } });
  });

  it.each([{ trace: "t-9" }, { userId: "u-9" }])("POST /getVerificationStatus with %o", async (lookup) => {
    await client().call(ops.getVerificationStatus, { body: lookup });
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/getVerificationStatus" });
    expect(server.requests[0]!.json).toEqual({ ...lookup, ...credentials });
  });

  it("the follow-up request (seed: 4.4) goes to the caller's path", async () => {
    const body = { verificationUuid: "v-1", requestedActions: [{ type: "document", id: "d-1", documentBase64: "data:application/pdf;base64,AA==" }] };
    await client().call(ops.submitRequestedActions, { body, path: "/followUp" });
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/followUp", json: { ...body, ...credentials } });
  });

  it.each([undefined, "followUp", "https://evil.example/x", "//evil.example/x"])(
    "a null-path operation rejects path %o with a TypeError before any request",
    async (path) => {
      const err = await caught(client().call(ops.submitRequestedActions, { body: {}, ...(path === undefined ? {} : { path }) }));
      expect(err).toBeInstanceOf(TypeError);
      expect(server.requests).toHaveLength(0);
    },
  );

  it("credentials passed by the caller are replaced by the configured ones", async () => {
    const body = { trace: "t-1", metadata_secretKey: "stale", metadata_serviceUid: "other", metadata_version: "3" };
    await client().call(ops.getVerificationStatus, { body });
    expect(server.requests[0]!.json).toEqual({ trace: "t-1", ...credentials });
  });

  it("metadata_version comes from the spec constants, not from the core", async () => {
    await client({}, { ...constants, olderVersion: "4.1" }).call(ops.idForm, { body: {} });
    expect(server.requests[0]!.json).toMatchObject({ metadata_version: "4.1" });
  });
});

describe("current interface: HTTP Basic (seed: 5)", () => {
  it("POST /v5/verifications sends Basic base64(uid:secret) in UTF-8 and no body credentials", async () => {
    const envelope = v5Success(null, "tr-new");
    server.reply({ body: envelope });
    const body = { country: "AUS", type: "trust", name: "T", website: "https://t.example", identifiers: { abn: "12345678901" } };
    await expect(client().call(ops.createVerification, { body })).resolves.toEqual(envelope);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: "POST", path: "/v5/verifications", json: body });
    expect(req!.headers.authorization).toBe(AUTH);
    expect(Buffer.from(req!.headers.authorization!.slice(6), "base64").toString("utf8")).toBe(`${UID}:${SECRET}`);
    expect(req!.headers["content-type"]).toBe("application/json");
  });

  it("GET /v5/verifications/{trace} URL-encodes the trace and sends no body", async () => {
    const envelope = v5Success({ trace: "a/b c", verificationStatus: "verified" }, "a/b c");
    server.reply({ body: envelope });
    await expect(client().call(ops.getVerification, { pathParams: { trace: "a/b c" } })).resolves.toEqual(envelope);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: "GET", path: "/v5/verifications/a%2Fb%20c", body: "" });
    expect(req!.headers.authorization).toBe(AUTH);
    expect(req!.headers.accept).toBe("application/json");
  });

  it("a missing or empty path parameter is a TypeError before any request", async () => {
    const cases: Array<Record<string, string> | undefined> = [undefined, {}, { trace: "" }];
    for (const pathParams of cases) {
      const err = await caught(client().call(ops.getVerification, pathParams ? { pathParams } : {}));
      expect(err).toBeInstanceOf(TypeError);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("extra headers are sent, but the client's Authorization and Accept win whatever their case", async () => {
    const headers = { "X-Request-Id": "r-1", authorization: "Basic Zm9vOmJhcg==", accept: "text/plain" };
    await client({ headers }).call(ops.getVerification, { pathParams: { trace: "t" } });
    expect(server.requests[0]!.headers["x-request-id"]).toBe("r-1");
    expect(server.requests[0]!.headers.authorization).toBe(AUTH);
    expect(server.requests[0]!.headers.accept).toBe("application/json");
  });
});

describe("error mapping (seed: 7)", () => {
  it("422 with the seed's envelope -> ValidationError with its details", async () => {
    server.reply({ status: 422, body: SEED_422 });
    const err = await caught(client().call(ops.createVerification, { body: {} }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toBeInstanceOf(VerispecError);
    expect(err).toMatchObject({ name: "ValidationError", status: 422, details: SEED_DETAILS, body: SEED_422 });
    expect(err.message).toContain("Validation error");
  });

  it("an older 422 body carries details when present", async () => {
    const details = [{ message: "bad state", code: "enum", path: ["fields", "state"] }];
    server.reply({ status: 422, body: { message: "Validation error", details } });
    const err = await caught(client().call(ops.verify, { body: {} }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details).toEqual(details);
  });

  it("474 -> TooManyAttemptsError with the envelope's trace", async () => {
    const body = {
      statusCode: 474,
      message: "Too many attempts",
      status: "error",
      trace: "tr-474",
      data: null,
      help: null,
      error: { type: "too_many_attempts" },
    };
    server.reply({ status: 474, body });
    const err = await caught(client().call(ops.createVerification, { body: {} }));
    expect(err).toBeInstanceOf(TooManyAttemptsError);
    expect(err).toMatchObject({ name: "TooManyAttemptsError", status: 474, trace: "tr-474" });
  });

  it("475 -> SubmissionConflictError, not retried even for a GET (which a 503 would retry)", async () => {
    const retrying = client({ retry: { retries: 5, baseDelayMs: 1, maxDelayMs: 1 } });
    server.reply({ status: 503, body: {} });
    await caught(retrying.call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(server.requests).toHaveLength(6); // the same call does retry a 5xx
    server.reply({
      status: 475,
      body: { statusCode: 475, message: "Conflict", status: "error", data: null, help: null, error: { type: "submission_conflict", details: [] } },
    });
    const err = await caught(retrying.call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(err).toBeInstanceOf(SubmissionConflictError);
    expect(err.status).toBe(475);
    expect(server.requests).toHaveLength(1);
  });

  it("the status -> type lookup comes from SpecConstants, not hard-coded numbers", async () => {
    server.reply({ status: 499, body: { message: "odd" } });
    const mapped = await caught(client({}, { ...constants, errorTypesByStatus: { 499: "too_many_attempts" } }).call(ops.idForm, { body: {} }));
    expect(mapped).toBeInstanceOf(TooManyAttemptsError);
    server.reply({ status: 474, body: { message: "x" } });
    const unmapped = await caught(client({}, { ...constants, errorTypesByStatus: {} }).call(ops.idForm, { body: {} }));
    expect(unmapped).toBeInstanceOf(HttpError);
    expect(unmapped).not.toBeInstanceOf(TooManyAttemptsError);
  });

  it("the type -> class lookup comes from SpecConstants too: a renamed type finds its class, the old name none", async () => {
    const renamed = { ...constants, errorClasses: new Map<unknown, typeof VerispecError>([["in_flight", SubmissionConflictError]]) };
    server.reply({ status: 400, body: { error: { type: "in_flight" } } });
    expect(await caught(client({}, renamed).call(ops.idForm, { body: {} }))).toBeInstanceOf(SubmissionConflictError);
    server.reply({ status: 400, body: { error: { type: "submission_conflict" } } });
    expect(await caught(client({}, renamed).call(ops.idForm, { body: {} }))).toBeInstanceOf(HttpError);
  });

  it("the envelope's error type wins, also in the short form { type, message, help }", async () => {
    server.reply({ status: 400, body: { type: "submission_conflict", message: "in flight", help: null } });
    expect(await caught(client().call(ops.verify, { body: {} }))).toBeInstanceOf(SubmissionConflictError);
    server.reply({ status: 474, body: { error: { type: "validation_error", details: SEED_DETAILS } } });
    const err = await caught(client().call(ops.verify, { body: {} }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details).toEqual(SEED_DETAILS);
  });

  it("401 -> HttpError with status and parsed body", async () => {
    const body = { statusCode: 401, message: "Unauthorized", status: "error", data: null, help: null, error: null };
    server.reply({ status: 401, body });
    const err = await caught(client().call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ name: "HttpError", status: 401, body });
    expect(err.message).toBe("HTTP 401: Unauthorized");
    expect(server.requests).toHaveLength(1); // 4xx is not retried, also for GET
  });

  it("a non-JSON error body is kept as raw text", async () => {
    server.reply({ status: 502, raw: "<html>Bad gateway</html>", contentType: "text/html" });
    const err = await caught(client().call(ops.idForm, { body: {} }));
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 502, body: "<html>Bad gateway</html>" });
  });

  it("a non-JSON success body is returned as text, an empty one as undefined", async () => {
    server.reply({ status: 200, raw: "OK" });
    await expect(client().call(ops.submitRequestedActions, { body: {}, path: "/f" })).resolves.toBe("OK");
    server.reply({ status: 204 });
    await expect(client().call(ops.submitRequestedActions, { body: {}, path: "/f" })).resolves.toBeUndefined();
  });
});

describe("retries: GET only, on network errors and 5xx", () => {
  it("a GET answered 500 is retried `retries` times, then HttpError", async () => {
    server.reply({ status: 500, body: { message: "boom" } });
    const err = await caught(client({ retry: { retries: 2, baseDelayMs: 1 } }).call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(500);
    expect(server.requests.map((r) => r.method)).toEqual(["GET", "GET", "GET"]);
  });

  it("a GET succeeds when a retry does", async () => {
    server.reply((_, i) => (i < 2 ? { status: 503, raw: "busy" } : { body: v5Success({ trace: "t" }) }));
    await expect(client().call(ops.getVerification, { pathParams: { trace: "t" } })).resolves.toMatchObject({ status: "success" });
    expect(server.requests).toHaveLength(3);
  });

  it("a GET is retried after a network error (socket destroyed by the server)", async () => {
    server.reply((_, i) => (i === 0 ? { destroy: true } : { body: v5Success(null) }));
    await expect(client().call(ops.getVerification, { pathParams: { trace: "t" } })).resolves.toMatchObject({ trace: "tr-1" });
    expect(server.requests).toHaveLength(2);
  });

  it("by default a GET is retried twice (no retry options given)", async () => {
    server.reply({ status: 500, body: {} });
    const c = createClientCore({ baseUrl: server.url, serviceUid: UID, secret: SECRET }, constants, loadValidate);
    await caught(c.call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(server.requests).toHaveLength(3);
  });

  it("retry: false switches GET retries off", async () => {
    server.reply({ status: 500, body: {} });
    await caught(client({ retry: false }).call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(server.requests).toHaveLength(1);
  });

  it.each([ops.createVerification, ops.verify])("a POST ($name) answered 500 is never retried", async (op) => {
    server.reply({ status: 500, body: { message: "boom" } });
    const err = await caught(client({ retry: { retries: 5, baseDelayMs: 1 } }).call(op, { body: { identifiers: { abn: "12345678901" } } }));
    expect(err).toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(1);
  });

  it("a POST hit by a network error is not retried", async () => {
    server.reply({ destroy: true });
    const err = await caught(client({ retry: { retries: 5, baseDelayMs: 1 } }).call(ops.verify, { body: {} }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(server.requests).toHaveLength(1);
  });
});

describe("timeouts, aborts, network errors", () => {
  it("the timeout raises TimeoutError (not retried)", async () => {
    server.reply({ delayMs: 60_000, body: {} }); // never answers within the test: no race with the timeout
    // Counted at the fetch, not at the server: under load the timeout may fire before the server saw the request.
    let calls = 0;
    const counting: typeof fetch = (...args) => (calls++, fetch(...args));
    const err = await caught(client({ timeoutMs: 50, fetch: counting }).call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toContain("50");
    expect(calls).toBe(1);
  });

  it("a per-call timeoutMs overrides the client's", async () => {
    server.reply({ delayMs: 60_000, body: {} }); // never answers within the test: no race with the timeout
    const err = await caught(client({ timeoutMs: 30_000 }).call(ops.idForm, { body: {}, timeoutMs: 50 }));
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it("a caller abort rethrows the caller's AbortError as is", async () => {
    server.reply({ delayMs: 60_000, body: {} }); // never answers within the test: no race with the timeout
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 30);
    const err = await caught(client().call(ops.getVerification, { pathParams: { trace: "t" }, signal: ctl.signal }));
    expect(err).not.toBeInstanceOf(VerispecError);
    expect(err.name).toBe("AbortError");
    expect(err).toBe(ctl.signal.reason);
  });

  it("an already aborted signal sends nothing", async () => {
    const reason = new Error("user left");
    const err = await caught(client().call(ops.verify, { body: {}, signal: AbortSignal.abort(reason) }));
    expect(err).toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it("a refused connection raises NetworkError with the fetch error as cause", async () => {
    const port = await closedPort();
    const err = await caught(client({ baseUrl: `http://127.0.0.1:${port}`, retry: false }).call(ops.verify, { body: {} }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.cause).toBeInstanceOf(TypeError);
  });

  it("a custom fetch is called unbound and used for every request", async () => {
    let calls = 0;
    const realFetch = globalThis.fetch;
    const f: typeof fetch = function (this: unknown, ...args) {
      calls++;
      expect(this).toBeUndefined();
      return realFetch(...args);
    };
    await client({ fetch: f }).call(ops.idForm, { body: {} });
    expect(calls).toBe(1);
    expect(server.requests).toHaveLength(1);
  });
});

describe("validate and validateResponses", () => {
  it("validate: true throws the service's ValidationError without a network call", async () => {
    const err = await caught(client({ validate: true }).call(ops.createVerification, { body: { identifiers: { abn: "123" } } }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details).toEqual(SEED_DETAILS);
    expect(err.status).toBeUndefined();
    expect(err.schemaId).toBe("v5.CreateVerificationRequest");
    expect(server.requests).toHaveLength(0);
  });

  it("validate: true loads the validators once and lets valid bodies through", async () => {
    const c = client({ validate: true });
    await c.call(ops.createVerification, { body: { identifiers: { abn: "12345678901" } } });
    await c.call(ops.createVerification, { body: { identifiers: { abn: "10987654321" } } });
    expect(loads).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it("body-auth bodies are validated with the credentials added", async () => {
    const seen: unknown[] = [];
    const c = createClientCore({ baseUrl: server.url, serviceUid: UID, secret: SECRET, validate: true }, constants, async () => (id, data) => {
      seen.push([id, data]);
      return { valid: true };
    });
    await c.call(ops.verify, { body: { type: "individual" } });
    expect(seen).toEqual([["v4.VerifyRequest", { type: "individual", ...credentials }]]);
  });

  it("without validate the validators are never loaded", async () => {
    await client().call(ops.createVerification, { body: { identifiers: { abn: "1" } } });
    expect(loads).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it("validateResponses: true raises ResponseValidationError naming the schema and the issues", async () => {
    server.reply({ body: { status: "ok?" } });
    const err = await caught(client({ validateResponses: true }).call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err).toMatchObject({ schemaId: "v5.VerificationEnvelope", details: [{ code: "const", path: ["status"] }], body: { status: "ok?" } });
    expect(err.message).toContain("v5.VerificationEnvelope");
    expect(err.message).toContain("must be equal to constant");
    expect(server.requests).toHaveLength(1);
  });

  it("validateResponses: true returns a matching body", async () => {
    server.reply({ body: v5Success(null) });
    await expect(client({ validateResponses: true }).call(ops.createVerification, { body: {} })).resolves.toMatchObject({ status: "success" });
    expect(loads).toBe(1);
  });
});

describe("the secret and the Authorization value never leak", () => {
  const leaks = (err: unknown) => {
    const outputs = [
      (err as Error).message,
      String(err),
      JSON.stringify(err),
      inspect(err, { depth: Infinity }),
      inspect(err, { depth: Infinity, showHidden: true }),
    ];
    return outputs.filter((o) => o.includes(SECRET) || o.includes(TOKEN));
  };

  it("toJSON and inspect do show the useful fields (the checks below can fail)", async () => {
    server.reply({ status: 422, body: SEED_422 });
    const err = await caught(client().call(ops.createVerification, { body: {} }));
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({
      name: "ValidationError",
      message: "HTTP 422: Validation error",
      status: 422,
      details: SEED_DETAILS,
    });
    expect(inspect(err)).toContain("invalid_format");
    expect(String(err)).toBe("ValidationError: HTTP 422: Validation error");
  });

  it("an older endpoint echoing the request body (with metadata_secretKey) in a 422", async () => {
    server.reply((req) => ({
      status: 422,
      body: { message: `bad request ${req.body}`, request: req.json, details: [{ message: `got ${SECRET}`, code: "x", path: [] }] },
    }));
    const err = await caught(client().call(ops.verify, { body: { type: "individual" } }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.body.request).toMatchObject({ type: "individual", metadata_serviceUid: UID, metadata_secretKey: "[redacted]" });
    expect(leaks(err)).toEqual([]);
  });

  it("a v5 endpoint echoing the Authorization header as text in a 401", async () => {
    server.reply((req) => ({ status: 401, raw: `denied for ${req.headers.authorization} (${SECRET})` }));
    const err = await caught(client().call(ops.createVerification, { body: {} }));
    expect(err).toBeInstanceOf(HttpError);
    expect(err.body).toBe("denied for Basic [redacted] ([redacted])");
    expect(leaks(err)).toEqual([]);
  });

  it("a 500 whose message quotes the secret", async () => {
    server.reply({ status: 500, body: { statusCode: 500, message: `secret was ${SECRET}`, trace: "tr-5" } });
    const err = await caught(client({ retry: false }).call(ops.getVerification, { pathParams: { trace: "t" } }));
    expect(err.message).toBe("HTTP 500: secret was [redacted]");
    expect(leaks(err)).toEqual([]);
  });

  it("a drifted success response that echoes credentials", async () => {
    server.reply((req) => ({ body: { status: "weird", echo: req.json, auth: req.headers.authorization } }));
    const err = await caught(client({ validateResponses: true }).call(ops.createVerification, { body: {} }));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(leaks(err)).toEqual([]);
    const err2 = await caught(
      createClientCore({ baseUrl: server.url, serviceUid: UID, secret: SECRET, validateResponses: true }, constants, async () => () => ({
        valid: false,
        errors: [],
      })).call({ ...ops.verify, responseSchema: "v4.VerifyResponse" }, { body: {} }),
    );
    expect(err2).toBeInstanceOf(ResponseValidationError);
    expect(err2.body.echo.metadata_secretKey).toBe("[redacted]");
    expect(leaks(err2)).toEqual([]);
  });

  it("a local ValidationError whose issues quote the secret", async () => {
    const c = createClientCore({ baseUrl: server.url, serviceUid: UID, secret: SECRET, validate: true }, constants, async () => (_, data) => ({
      valid: false,
      errors: [{ message: `metadata_secretKey ${(data as Record<string, string>).metadata_secretKey} is wrong`, code: "x", path: ["metadata_secretKey"] }],
    }));
    const err = await caught(c.call(ops.verify, { body: {} }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details[0].message).toBe("metadata_secretKey [redacted] is wrong");
    expect(leaks(err)).toEqual([]);
  });

  it("network errors and timeouts", async () => {
    const port = await closedPort();
    const net = await caught(client({ baseUrl: `http://127.0.0.1:${port}`, retry: false }).call(ops.createVerification, { body: {} }));
    expect(net).toBeInstanceOf(NetworkError);
    expect(leaks(net)).toEqual([]);
    server.reply({ delayMs: 60_000, body: {} }); // never answers within the test: no race with the timeout
    const slow = await caught(client({ timeoutMs: 50 }).call(ops.verify, { body: {} }));
    expect(slow).toBeInstanceOf(TimeoutError);
    expect(leaks(slow)).toEqual([]);
  });
});
