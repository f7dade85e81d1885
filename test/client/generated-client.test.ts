// The generated client (generated/client.js via the package root generated/index.js) against a real
// node:http server on 127.0.0.1: every call's method, path, headers, auth and body, and the mapping of
// the service's answers to results and typed errors (seed: 4, 5, 7).
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createClient,
  createClientFromEnv,
  HttpError,
  operations,
  ResponseValidationError,
  specConstants,
  SubmissionConflictError,
  TimeoutError,
  TooManyAttemptsError,
  ValidationError,
  VerispecError,
  type ClientOptions,
  type v4,
  type v5,
} from "../../generated/index.js";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { startServer, type TestServer } from "./server.js";
import type { Loose } from "../support/loose.js";

const UID = "svc-uid-7";
const SECRET = "sëcret-Ω-99"; // non-Latin-1: Basic auth must encode UTF-8
const AUTH = `Basic ${Buffer.from(`${UID}:${SECRET}`, "utf8").toString("base64")}`;
const CREDENTIALS = { metadata_version: "4", metadata_serviceUid: UID, metadata_secretKey: SECRET };

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
beforeEach(() => server.reply({ status: 200, body: {} }));

const client = (o: Partial<ClientOptions> = {}) =>
  createClient({ baseUrl: server.url, serviceUid: UID, secret: SECRET, retry: { baseDelayMs: 1, maxDelayMs: 2 }, ...o });

async function caught(p: Promise<unknown>): Promise<Loose> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

// Bodies from the spec's own examples (spec/older.yaml, spec/v5.yaml), without credentials.
const verifyBody: v4.VerifyBody = {
  metadata_userId: "customer-42",
  type: "individual",
  fields: {
    country: "USA",
    firstName: "Jane",
    lastName: "Citizen",
    dateOfBirth: "15/07/1985",
    streetNumber: "12",
    streetName: "Main",
    streetType: "St",
    suburb: "Springfield",
    postcode: "62704",
    state: "IL",
    gender: "female",
  },
};
const idFormBody: v4.IdFormBody = {
  metadata_userId: "customer-43",
  serviceLink_dataAccessType: "idForm",
  type: "publicCompany",
  fields: { country: "AUS", name: "Example Holdings Ltd", acn: "004085616", ticker: "EXH", exchangeListedOn: "internationalExchange" },
};
const actionsBody: v4.RequestedActionsBody = {
  verificationUuid: "0b1c6a52-4a7e-4d0f-9a43-9f6b1f6f3c11",
  requestedActions: [{ type: "document", id: "doc-1", documentBase64: "data:application/pdf;base64,JVBERi0xLjQK" }],
};
const createBody: v5.VerificationCreateRequest = {
  userId: "customer-42",
  country: "AUS",
  type: "trust",
  subType: "discretionaryTrust",
  name: "Example Family Trust",
  website: "https://www.example.com",
  identifiers: { abn: "51824753556" },
  documents: [{ kind: "trustDeed", mimeType: "application/pdf", source: "base64", data: "data:application/pdf;base64,JVBERi0xLjQK" }],
  stakeholders: [{ type: "individual", name: "Jane Citizen", country: "AUS", roles: ["trustee"] }],
};
const envelope = (data: unknown, trace = "tr-1") => ({
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

describe("the operation table and constants come from the spec", () => {
  // Read straight from the YAML (not through the generator's model, which made the table).
  const yaml = (file: string) => parse(readFileSync(new URL(`../../spec/${file}`, import.meta.url), "utf8"));
  it("matches spec/endpoints.yaml, errors.yaml and versions.yaml", () => {
    expect(specConstants.olderVersion).toBe(yaml("versions.yaml").olderInterface.metadataVersion);
    const errorTypes = Object.entries(yaml("errors.yaml").errorTypes as Record<string, { httpStatus: number }>);
    expect(specConstants.errorTypesByStatus).toEqual(Object.fromEntries(errorTypes.map(([type, e]) => [e.httpStatus, type])));
    const endpoints = Object.values(yaml("endpoints.yaml").endpoints as Record<string, { client?: string; method: string; path?: string; auth: string }>);
    const table = Object.values(operations).map((o) => [o.name, o.method, o.path, o.auth]);
    expect(table).toEqual(endpoints.filter((e) => e.client).map((e) => [e.client, e.method, e.path ?? null, e.auth]));
    expect(table).toContainEqual(["v5.getVerification", "GET", "/v5/verifications/{trace}", "basic"]);
  });
});

describe("older interface: credentials added to the JSON body (seed: 5)", () => {
  it("verify -> POST /verify with metadata_version 4, serviceUid, secretKey; no Authorization", async () => {
    const status = { verificationStatus: "pending", trace: "t-1", submissionId: "s-1" };
    server.reply({ body: status });
    await expect(client().verify(verifyBody)).resolves.toEqual(status);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: "POST", path: "/verify" });
    expect(req!.json).toEqual({ ...verifyBody, ...CREDENTIALS });
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers.accept).toBe("application/json");
    expect(req!.headers.authorization).toBeUndefined();
  });

  it("idForm -> POST /idform", async () => {
    const form = { source: "svc", serviceLink: "https://form.example.com/f/1", verificationUuid: "0b1c6a52-4a7e-4d0f-9a43-9f6b1f6f3c11", status: "success" };
    server.reply({ body: form });
    await expect(client().idForm(idFormBody)).resolves.toEqual(form);
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/idform", json: { ...idFormBody, ...CREDENTIALS } });
  });

  it.each([{ trace: "t-9" }, { userId: "u-9" }] as v4.GetVerificationStatusBody[])(
    "getVerificationStatus(%o) -> POST /getVerificationStatus",
    async (lookup) => {
      await client().getVerificationStatus(lookup);
      expect(server.requests[0]).toMatchObject({ method: "POST", path: "/getVerificationStatus" });
      expect(server.requests[0]!.json).toEqual({ ...lookup, ...CREDENTIALS });
    },
  );

  it("submitRequestedActions -> POST to the path the caller gives (seed 4.4 does not show it)", async () => {
    await client().submitRequestedActions(actionsBody, { path: "/requestedActions" });
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/requestedActions", json: { ...actionsBody, ...CREDENTIALS } });
  });

  it("submitRequestedActions refuses an absolute URL as path before sending", async () => {
    const err = await caught(client().submitRequestedActions(actionsBody, { path: "https://evil.example/x" }));
    expect(err).toBeInstanceOf(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("current interface: HTTP Basic (seed: 5)", () => {
  it("v5.createVerification -> POST /v5/verifications with Basic serviceUid:secret and the body as given", async () => {
    server.reply({ body: envelope(null, "tr-new") });
    const res = await client().v5.createVerification(createBody);
    expect(res.trace).toBe("tr-new");
    const [req] = server.requests;
    expect(req).toMatchObject({ method: "POST", path: "/v5/verifications", json: createBody });
    expect(req!.headers.authorization).toBe(AUTH);
    expect(req!.headers["content-type"]).toBe("application/json");
  });

  it("v5.getVerification(trace) -> GET /v5/verifications/{trace}, trace URL-encoded, no body", async () => {
    server.reply({ body: envelope({ trace: "a/b c?", verificationStatus: "verified" }, "a/b c?") });
    const res = await client().v5.getVerification("a/b c?");
    expect(res.data?.verificationStatus).toBe("verified");
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/v5/verifications/a%2Fb%20c%3F", body: "" });
    expect(server.requests[0]!.headers.authorization).toBe(AUTH);
  });

  it("extra headers are sent; the client's own win", async () => {
    await client({ headers: { "X-Request-Id": "r-1", authorization: "Bearer nope" } }).v5.getVerification("t");
    expect(server.requests[0]!.headers["x-request-id"]).toBe("r-1");
    expect(server.requests[0]!.headers.authorization).toBe(AUTH);
  });
});

describe("responses and errors (seed: 7)", () => {
  const seed422 = {
    statusCode: 422,
    message: "Validation error",
    status: "error",
    data: null,
    help: null,
    trace: "tr-422",
    error: { type: "validation_error", details: [{ message: "ABN must be exactly 11 digits.", code: "invalid_format", path: ["identifiers", "abn"] }] },
  };

  it("422 -> ValidationError with the service's details and the envelope's trace", async () => {
    server.reply({ status: 422, body: seed422 });
    const err = await caught(client().v5.createVerification(createBody));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toBeInstanceOf(VerispecError);
    expect(err).toMatchObject({ status: 422, trace: "tr-422", details: seed422.error.details });
  });

  it("474 -> TooManyAttemptsError", async () => {
    server.reply({ status: 474, body: { statusCode: 474, status: "error", trace: "tr-474", error: { type: "too_many_attempts" } } });
    const err = await caught(client().v5.createVerification(createBody));
    expect(err).toBeInstanceOf(TooManyAttemptsError);
    expect(err).toMatchObject({ status: 474, trace: "tr-474" });
  });

  it("475 -> SubmissionConflictError, sent once even for a GET (which a 503 would retry)", async () => {
    server.reply({ status: 503, body: {} });
    await caught(client().v5.getVerification("tr-1"));
    expect(server.requests.length).toBeGreaterThan(1); // the same call does retry a 5xx
    server.reply({ status: 475, body: { statusCode: 475, status: "error", error: { type: "submission_conflict" } } });
    const err = await caught(client().v5.getVerification("tr-1"));
    expect(err).toBeInstanceOf(SubmissionConflictError);
    expect(server.requests).toHaveLength(1);
  });

  it("401 -> HttpError with status and parsed body", async () => {
    server.reply({ status: 401, body: { message: "Unauthorized" } });
    const err = await caught(client().verify(verifyBody));
    expect(err).toBeInstanceOf(HttpError);
    expect(err).not.toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 401, body: { message: "Unauthorized" } });
  });

  it("500 on a GET is retried, then HttpError; on a POST it is not retried", async () => {
    server.reply({ status: 500, body: { message: "boom" } });
    const get = await caught(client({ retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 } }).v5.getVerification("t"));
    expect(get).toBeInstanceOf(HttpError);
    expect(get.status).toBe(500);
    expect(server.requests).toHaveLength(3);
    server.reply({ status: 500, body: { message: "boom" } });
    const post = await caught(client().idForm(idFormBody));
    expect(post).toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(1);
  });

  it("a non-JSON error body is kept as raw text", async () => {
    server.reply({ status: 502, raw: "<html>Bad Gateway</html>" });
    const err = await caught(client({ retry: false }).v5.getVerification("t"));
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 502, body: "<html>Bad Gateway</html>" });
  });

  it("per-call timeoutMs -> TimeoutError; a per-call signal aborts with the caller's reason", async () => {
    server.reply({ delayMs: 60_000, body: {} }); // never answers within the test: no race with the timeout
    expect(await caught(client().getVerificationStatus({ trace: "t" }, { timeoutMs: 20 }))).toBeInstanceOf(TimeoutError);
    const ac = new AbortController();
    const p = client().getVerificationStatus({ trace: "t" }, { signal: ac.signal });
    ac.abort();
    const err = await caught(p);
    expect(err).not.toBeInstanceOf(VerispecError);
    expect(err.name).toBe("AbortError");
  });

  it("the secret and the Authorization value never appear in an error, even when the service echoes them", async () => {
    const token = AUTH.slice(6);
    server.reply({ status: 400, body: { echo: { metadata_secretKey: SECRET, note: `got ${SECRET} and ${token}` } } });
    const older = await caught(client().verify(verifyBody));
    server.reply({ status: 400, body: { echo: `Authorization: ${AUTH}` } });
    const v5err = await caught(client().v5.createVerification(createBody));
    for (const err of [older, v5err]) {
      expect(err).toBeInstanceOf(HttpError);
      for (const text of [err.message, String(err), JSON.stringify(err), inspect(err, { depth: 10 })]) {
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain(token);
      }
    }
    expect(JSON.stringify(older)).toContain("[redacted]");
  });
});

describe("validate and validateResponses use the generated validators (loaded on first use)", () => {
  it("validate: true throws the service's 422 ValidationError before any request (seed 7: ABN)", async () => {
    const body = { ...createBody, identifiers: { abn: "123" } };
    const err = await caught(client({ validate: true }).v5.createVerification(body));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.schemaId).toBe("v5.VerificationCreateRequest");
    expect(err.details).toContainEqual({ message: "ABN must be exactly 11 digits.", code: "invalid_format", path: ["identifiers", "abn"] });
    expect(server.requests).toHaveLength(0);
  });

  it("validate: true checks the older body with the credentials the client added, and sends a valid one", async () => {
    await client({ validate: true }).verify(verifyBody);
    expect(server.requests).toHaveLength(1);
    const err = await caught(client({ validate: true }).verify({ ...verifyBody, fields: { ...verifyBody.fields, postcode: "1" } } as v4.VerifyBody));
    expect(err).toBeInstanceOf(ValidationError);
    expect(JSON.stringify(err)).not.toContain(SECRET);
    expect(server.requests).toHaveLength(1);
  });

  it("validateResponses: true names the drifted schema when a 2xx body does not match", async () => {
    server.reply({ body: { ...envelope(null), status: "error" } });
    const err = await caught(client({ validateResponses: true }).v5.getVerification("t"));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.schemaId).toBe("v5.VerificationGetResponse");
    expect(err.message).toContain("v5.VerificationGetResponse");
    server.reply({ body: envelope({ trace: "t", verificationStatus: "verified" }) });
    await expect(client({ validateResponses: true }).v5.getVerification("t")).resolves.toMatchObject({ status: "success" });
  });
});

describe("answers lacking a field the specification always sends (issue 36)", () => {
  it("validateResponses: true reports each always-present envelope field a 2xx lacks, by name", async () => {
    for (const field of ["timestamp", "serviceUid", "trace", "path", "pathParams", "statusCode", "message", "help", "status", "data", "error"]) {
      const { [field]: _dropped, ...body } = envelope(null) as Record<string, unknown>;
      server.reply({ body });
      const err = await caught(client({ validateResponses: true }).v5.createVerification(createBody));
      expect(err, field).toBeInstanceOf(ResponseValidationError);
      expect(JSON.stringify(err.details), field).toContain(field);
    }
    server.reply({ body: envelope({ trace: "t" }) });
    const { data, trace } = await client({ validateResponses: true }).v5.getVerification("t");
    expect([data.trace, trace]).toEqual(["t", "tr-1"]);
    // `data` of a GET success is always present (section 4.6): an answer without it is reported.
    const { data: _none, ...withoutData } = envelope({});
    server.reply({ body: withoutData });
    expect(await caught(client({ validateResponses: true }).v5.getVerification("t"))).toBeInstanceOf(ResponseValidationError);
  });

  it("a field whose presence is not shown may be missing: a detail with nothing but a trace passes", async () => {
    server.reply({ body: envelope({}) });
    await expect(client({ validateResponses: true }).v5.getVerification("t")).resolves.toMatchObject({ data: {} });
  });
});

describe("credentials refused before anything is sent (issue 36)", () => {
  it("createClient: a serviceUid or secret that is missing, empty or not a string is one TypeError line naming it", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ serviceUid: undefined }, "serviceUid"],
      [{ secret: undefined }, "secret"],
      [{ secret: "" }, "secret"],
      [{ serviceUid: 42 }, "serviceUid"],
      [{ secret: { value: SECRET } }, "secret"],
      [{ serviceUid: null }, "serviceUid"],
    ];
    for (const [change, name] of cases) {
      let error: unknown;
      try {
        createClient({ baseUrl: server.url, serviceUid: UID, secret: SECRET, ...change } as ClientOptions);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(change)).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(`createClient: ${name} is missing or not a string`);
      expect((error as Error).message).not.toContain(SECRET);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("createClientFromEnv reads VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET, and names an unset one", async () => {
    const env = { VERISPEC_SANDBOX_SERVICE_UID: UID, VERISPEC_SANDBOX_SECRET: SECRET };
    await createClientFromEnv({ baseUrl: server.url, env }).v5.getVerification("t");
    expect(server.requests.at(-1)!.headers.authorization).toBe(AUTH);
    expect(() => createClientFromEnv({ baseUrl: server.url, env: { VERISPEC_SANDBOX_SERVICE_UID: UID } })).toThrow(
      new TypeError("createClientFromEnv: VERISPEC_SANDBOX_SECRET is not set (the sandbox reads the same variables)"),
    );
    expect(() => createClientFromEnv({ baseUrl: server.url, env: {} })).toThrow(
      /^createClientFromEnv: VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET are not set/,
    );
    const saved = { ...process.env };
    try {
      Object.assign(process.env, env);
      await createClientFromEnv({ baseUrl: server.url }).v5.getVerification("t");
      expect(server.requests.at(-1)!.headers.authorization).toBe(AUTH);
    } finally {
      for (const k of Object.keys(env)) if (!(k in saved)) delete process.env[k];
    }
  });
});
