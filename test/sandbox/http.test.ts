// The sandbox's HTTP layer in-process (templates/sandbox/server.ts over a PGlite database in memory):
// routing, HTTP Basic and body credentials, the body limits and content types, and the exact error shapes
// of each interface (v5 envelope, the older shape, the form's HTML page).
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { validate } from "../../generated/validators/index.js";
import { credentialChecker } from "../../templates/sandbox/http/credentials.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { basic, CREDENTIALS, olderIndividual, request, v5Individual, type Answer, olderBody as older } from "./helpers.js";
import { harness, memoryDb, outbox, type Harness } from "./inprocess.js";
import type { Loose } from "../support/loose.js";

let db: Db;
let h: Harness;
const OFFSET = 400 * 86_400_000; // the sandbox clock runs 400 days ahead: timestamps come from it
const LIMIT = 4096;

beforeAll(async () => {
  db = await memoryDb();
  h = await harness(db, { maxBodyBytes: LIMIT, requestedActionsPath: "/custom/actions", dispatch: false });
  await h.service.advanceClock(OFFSET);
}, 60_000);

afterAll(async () => {
  await h?.close();
  await db?.close();
});

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  request(h.url, method, path, body, headers);
const authed = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  send(method, path, body, { authorization: basic(), ...headers });

/** The v5 envelope's fixed fields, its timestamp from the sandbox clock. */
function expectEnvelope(body: Loose, before: number, path: string, statusCode: number) {
  const at = Date.parse(body.timestamp);
  expect(at).toBeGreaterThanOrEqual(before + OFFSET - 1);
  expect(at).toBeLessThanOrEqual(Date.now() + OFFSET + 1);
  expect(body).toMatchObject({ serviceUid: CREDENTIALS.serviceUid, path, statusCode, help: null, status: statusCode < 400 ? "success" : "error" });
  expect(body.trace).toMatch(/^[0-9a-f-]{36}$/);
}

const UNAUTHORIZED = "Authentication failed: wrong or missing credentials.";

describe("v5 over HTTP", () => {
  it("creates: 200, the envelope with the created message and the new trace; the headers of every JSON answer", async () => {
    const before = Date.now();
    const r = await authed("POST", "/v5/verifications", v5Individual("Http Person"));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("content-length")).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers.get("www-authenticate")).toBeNull();
    expectEnvelope(r.body, before, "/v5/verifications", 200);
    expect(r.body).toMatchObject({ message: "Verification created successfully", pathParams: {}, data: null, error: null });
    expect(Object.keys(r.body)).toEqual(["timestamp", "serviceUid", "trace", "path", "pathParams", "statusCode", "message", "help", "status", "data", "error"]);
    const v = await h.service.get(r.body.trace);
    expect(v).toMatchObject({ api: "v5", name: "Http Person", verificationStatus: "pending" });
  });

  it("GET answers the detail with the documented message, the trace and its pathParams", async () => {
    const created = await authed("POST", "/v5/verifications", { ...v5Individual("Detail Person", "detail-user"), industry: "Mining", inputRisk: "low" });
    const trace = created.body.trace as string;
    const before = Date.now();
    const r = await authed("GET", `/v5/verifications/${trace}`);
    expect(r.status).toBe(200);
    expectEnvelope(r.body, before, `/v5/verifications/${trace}`, 200);
    expect(r.body.trace).toBe(trace);
    expect(r.body.pathParams).toEqual({ trace });
    expect(r.body.message).toBe("Verification retrieved successfully");
    expect(r.body.error).toBeNull();
    const v = await h.service.get(trace);
    expect(r.body.data).toEqual(h.service.detail(v!));
    expect(r.body.data).toMatchObject({
      trace,
      type: "individual",
      subType: "data",
      country: "AUS",
      name: "Detail Person",
      industry: "Mining",
      website: "https://example.com",
      inputRisk: "low",
      other: [],
      attempt: 1,
      maxAttempts: 5,
    });
  });

  it("422 carries the generated validator's details and the spec's message; nothing is stored", async () => {
    const bad = { ...v5Individual("Bad", "bad-user-422"), website: "" };
    const expected = validate("v5.VerificationCreateRequest", bad);
    const r = await authed("POST", "/v5/verifications", bad);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe("Validation error");
    expect(r.body.error).toEqual({ type: "validation_error", details: expected.valid ? [] : expected.errors });
    expect(r.body.status).toBe("error");
    expect((await db.query("SELECT 1 FROM verifications WHERE user_id = 'bad-user-422'")).length).toBe(0);
  });

  it("401 with the challenge for missing, wrong, malformed or partial credentials; the right ones pass", async () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    for (const authorization of [
      undefined,
      `Basic ${b64(`${CREDENTIALS.serviceUid}:wrong`)}`,
      `Basic ${b64(`wrong:${CREDENTIALS.secret}`)}`,
      `Basic ${b64(`${CREDENTIALS.serviceUid}${CREDENTIALS.secret}`)}`, // no colon
      `Bearer ${b64(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`)}`,
      `Basic ${b64(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`)} extra`,
      `Basic ${b64(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}:`)}`,
      `Basic ${b64(`:${CREDENTIALS.secret}`)}`,
    ]) {
      const r = await send("GET", "/v5/verifications/x", undefined, authorization ? { authorization } : {});
      expect(r.status, String(authorization)).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Basic realm="verispec sandbox"');
      expect(r.body.error).toEqual({ code: "unauthorized", message: UNAUTHORIZED, help: null });
      expect(r.body.message).toBe(UNAUTHORIZED);
      expect(r.body.pathParams).toEqual({ trace: "x" });
    }
    // The scheme is case-insensitive and spaces around the token are allowed.
    const ok = await send("GET", "/v5/verifications/none", undefined, { authorization: `basic   ${b64(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`)}  ` });
    expect(ok.status).toBe(404);
  });

  it("404 for an unknown trace and for an older verification's trace, with the trace in the envelope", async () => {
    const missing = await authed("GET", "/v5/verifications/no%20such");
    expect(missing.status).toBe(404);
    expect(missing.body.trace).toBe("no such");
    expect(missing.body.pathParams).toEqual({ trace: "no such" });
    expect(missing.body.error).toEqual({ code: "not_found", message: "No verification with trace no such.", help: null });
    expect(missing.body.message).toBe("No verification with trace no such.");
    expect(missing.headers.get("www-authenticate")).toBeNull();
    const { trace } = await h.service.verifyOlder(older(olderIndividual("Lee", "older-404")));
    const olderOne = await authed("GET", `/v5/verifications/${trace}`);
    expect(olderOne.status).toBe(404);
    expect(olderOne.body.error.message).toBe(`No verification with trace ${trace}.`);
  });

  it("400 for a body that is not JSON, 415 for another content type; the media type's case and parameters do not matter", async () => {
    const malformed = await authed("POST", "/v5/verifications", "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toEqual({ code: "bad_request", message: "The request body is not valid JSON.", help: null });
    const typed = await authed("POST", "/v5/verifications", "{}", { "content-type": "text/plain" });
    expect(typed.status).toBe(415);
    expect(typed.body.error).toEqual({
      code: "unsupported_media_type",
      message: "The request body must be JSON (Content-Type: application/json).",
      help: null,
    });
    const none = await fetch(`${h.url}/v5/verifications`, { method: "POST", headers: { authorization: basic() }, body: new Uint8Array([123, 125]) });
    expect(none.status).toBe(415);
    const upper = await authed("POST", "/v5/verifications", JSON.stringify(v5Individual("Case Person")), {
      "content-type": " Application/JSON ; charset=UTF-8",
    });
    expect(upper.status).toBe(200);
  });

  it("413: a declared length over the limit is refused before reading, with Connection: close; a body of exactly the limit is read", async () => {
    const big = JSON.stringify({ ...v5Individual("Big"), industry: "x".repeat(LIMIT) });
    const r = await authed("POST", "/v5/verifications", big);
    expect(r.status).toBe(413);
    expect(r.headers.get("connection")).toBe("close");
    expect(r.body.error).toEqual({ code: "payload_too_large", message: `The request body is larger than ${LIMIT} bytes.`, help: null });
    const base = JSON.stringify({ ...v5Individual("Exact"), industry: "" });
    const exact = JSON.stringify({ ...v5Individual("Exact"), industry: "y".repeat(LIMIT - base.length) });
    expect(Buffer.byteLength(exact)).toBe(LIMIT);
    const ok = await authed("POST", "/v5/verifications", exact);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("connection")).not.toBe("close");
  });

  it("413 for a chunked body that passes the limit while it is read", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${h.url}/v5/verifications`,
        { method: "POST", headers: { authorization: basic(), "content-type": "application/json", "transfer-encoding": "chunked" } },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      req.write(`[${"1,".repeat(LIMIT / 2)}`);
      req.end("1]");
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe("payload_too_large");
    // A chunked body of exactly the limit is read whole.
    const exact = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${h.url}/_sandbox/clock`,
        { method: "POST", headers: { authorization: basic(), "content-type": "application/json", "transfer-encoding": "chunked" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      const text = JSON.stringify({ advanceMs: 0, pad: "" });
      req.write(JSON.stringify({ advanceMs: 0, pad: "p".repeat(LIMIT - text.length) }).slice(0, 100));
      req.end(JSON.stringify({ advanceMs: 0, pad: "p".repeat(LIMIT - text.length) }).slice(100));
    });
    expect(exact).toBe(200);
  });

  it("an unknown /v5 route is 404 in the envelope; any other path 404 in the older shape", async () => {
    const v5 = await authed("DELETE", "/v5/verifications/abc");
    expect(v5.status).toBe(404);
    expect(v5.body.error).toEqual({ code: "not_found", message: "No route DELETE /v5/verifications/abc.", help: null });
    expect(v5.body.pathParams).toEqual({ trace: "abc" });
    const bare = await authed("GET", "/v5");
    expect(bare.body.error.message).toBe("No route GET /v5.");
    expect(bare.body.statusCode).toBe(404);
    const other = await send("GET", "/nowhere?x=1");
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ status: "error", statusCode: 404, type: "not_found", message: "No route GET /nowhere.", details: [] });
    const v5ish = await send("GET", "/v5x");
    expect(v5ish.body).toEqual({ status: "error", statusCode: 404, type: "not_found", message: "No route GET /v5x.", details: [] });
  });

  it("a route answers only its own method and its whole path: anything else is the router's 404", async () => {
    const form = "00000000-0000-4000-8000-000000000000";
    const cases: [string, string, unknown?][] = [
      ["GET", "/v5/verifications"],
      ["POST", "/v5/verifications/abc", v5Individual("Wrong Method")],
      ["GET", "/verify"],
      ["POST", "/_sandbox"],
      ["GET", "/_sandbox/clock"],
      ["GET", `/x/_form/${form}`],
      ["GET", `/_form/${form}/x`],
      ["POST", "/_sandbox/a/_sandbox/verifications/abc/status", { verificationStatus: "verified" }],
      ["POST", "/_sandbox/verifications/abc/status/x", { verificationStatus: "verified" }],
      ["POST", "/_sandbox/a/_sandbox/deliveries/abc/resend"],
      ["POST", "/_sandbox/deliveries/abc/resend/x"],
    ];
    for (const [method, path, body] of cases) {
      const r = await authed(method, path, body);
      expect([path, r.status]).toEqual([path, 404]);
      // JSON in the envelope or the older shape; on the form's paths an HTML page that says the same.
      if (path.startsWith("/_form/")) expect(r.text).toContain(`No route ${method} ${path}.`);
      else expect(r.body.error?.message ?? r.body.message).toBe(`No route ${method} ${path}.`);
    }
  });

  it("an unexpected error is 500 internal_error naming a request id, one line on stderr without its stack; the sandbox keeps serving", async () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const get = vi.spyOn(h.service, "get").mockRejectedValueOnce(new TypeError("boom\n    at a stack line"));
    try {
      const r = await authed("GET", "/v5/verifications/some-trace");
      expect(r.status).toBe(500);
      const id = r.body.trace as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const message = `Internal sandbox error (request id ${id}).`;
      expect(r.body).toMatchObject({ statusCode: 500, message, error: { code: "internal_error", message, help: null } });
      expect(write.mock.calls.map((c) => String(c[0]))).toEqual([
        `verispec sandbox: internal error ${id} on GET /v5/verifications/some-trace: TypeError: boom\n`,
      ]);
      expect((await authed("GET", "/v5/verifications/some-trace")).status).toBe(404);
    } finally {
      get.mockRestore();
      write.mockRestore();
    }
  });
});

describe("the older endpoints over HTTP", () => {
  it("POST /verify answers exactly the initial webhook's text; wrong body credentials are 401 without a challenge", async () => {
    const r = await send("POST", "/verify", older(olderIndividual("Older", "older-http")));
    expect(r.status).toBe(200);
    const [row] = await outbox(db, r.body.trace);
    expect(r.text).toBe(String(row!.body));
    for (const creds of [{ metadata_secretKey: "nope" }, { metadata_serviceUid: "nope" }, { metadata_secretKey: 5 }, { metadata_serviceUid: undefined }]) {
      const refused = await send("POST", "/verify", { ...older(olderIndividual("X")), ...creds });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBeNull();
      expect(refused.body).toEqual({ status: "error", statusCode: 401, type: "unauthorized", message: UNAUTHORIZED, details: [] });
    }
  });

  it("400 for a body that is not a JSON object, checked before the credentials; 422 with details in the older shape", async () => {
    for (const body of ["[1]", "null", "7", '"text"']) {
      const r = await send("POST", "/verify", body);
      expect(r.status, body).toBe(400);
      expect(r.body).toEqual({ status: "error", statusCode: 400, type: "bad_request", message: "The request body must be a JSON object.", details: [] });
    }
    const body = older(olderIndividual("X"));
    (body.fields as Record<string, unknown>).state = "XX";
    const expected = validate("v4.VerifyRequest", body);
    const r = await send("POST", "/verify", body);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      status: "error",
      statusCode: 422,
      type: "validation_error",
      message: "Validation error",
      details: expected.valid ? [] : expected.errors,
    });
    const typed = await send("POST", "/idform", "{}", { "content-type": "text/plain" });
    expect(typed.body).toEqual({
      status: "error",
      statusCode: 415,
      type: "unsupported_media_type",
      message: "The request body must be JSON (Content-Type: application/json).",
      details: [],
    });
  });

  it("/getVerificationStatus by trace and by userId (the newest), 404 otherwise; a v5 trace is not found there", async () => {
    const first = await h.service.verifyOlder(older(olderIndividual("One", "older-status-user")));
    const second = await h.service.verifyOlder(older(olderIndividual("Two", "older-status-user")));
    const byTrace = await send("POST", "/getVerificationStatus", older({ trace: first.trace }));
    expect(byTrace.status).toBe(200);
    expect(byTrace.text).toBe(first.text);
    const byUser = await send("POST", "/getVerificationStatus", older({ userId: "older-status-user" }));
    expect(byUser.text).toBe(second.text);
    const missing = await send("POST", "/getVerificationStatus", older({ userId: "nobody-here" }));
    expect(missing.body).toEqual({ status: "error", statusCode: 404, type: "not_found", message: "No verification with that trace or userId.", details: [] });
    const v5 = await authed("POST", "/v5/verifications", v5Individual("V5 Only"));
    expect((await send("POST", "/getVerificationStatus", older({ trace: v5.body.trace }))).status).toBe(404);
  });

  it("/idform answers the source and a serviceLink on this server; the follow-up answers at the configured path only", async () => {
    const form = await send(
      "POST",
      "/idform",
      older({
        metadata_userId: "form-http",
        serviceLink_dataAccessType: "idForm",
        type: "soleTrader",
        fields: { country: "AUS", name: "Form Trader", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
      }),
    );
    expect(form.status).toBe(200);
    expect(form.body).toEqual({
      source: "verispec-sandbox",
      serviceLink: `${h.url}/_form/${form.body.verificationUuid}`,
      verificationUuid: form.body.verificationUuid,
      status: "success",
    });
    expect(form.body.verificationUuid).toMatch(/^[0-9a-f-]{36}$/);
    const moved = await send("POST", "/requestedActions", older({ verificationUuid: "x", requestedActions: [] }));
    expect(moved.status).toBe(404);
    const missing = await send("POST", "/custom/actions", older({ verificationUuid: "no-such", requestedActions: [] }));
    expect(missing.body).toEqual({
      status: "error",
      statusCode: 404,
      type: "not_found",
      message: "No verification with verificationUuid no-such.",
      details: [],
    });
    const { trace } = await h.service.verifyOlder(
      older({ metadata_userId: "follow-http", type: "governmentBody", fields: { country: "USA", name: "Agency", legislationType: "federal" } }),
    );
    const notInfo = await send("POST", "/custom/actions", older({ verificationUuid: trace, requestedActions: [] }));
    expect(notInfo.body).toEqual({
      status: "error",
      statusCode: 409,
      type: "conflict",
      message: "The verification is pending; requested actions are answered only in status info.",
      details: [],
    });
    await h.service.applyStatus(trace, "info", {});
    const done = await send("POST", "/custom/actions", older({ verificationUuid: trace, requestedActions: [] }));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ trace, verificationStatus: "pending" });
    const rows = await outbox(db, trace);
    expect(done.text).toBe(String(rows.at(-1)!.body));
  });
});

describe("the hosted form over HTTP", () => {
  async function newForm(): Promise<string> {
    return h.service.createForm(
      older({
        metadata_userId: "form-page",
        serviceLink_dataAccessType: "idForm",
        type: "soleTrader",
        fields: { country: "AUS", name: "Page <Trader>", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
      }),
    );
  }

  it("GET serves the prefilled form as HTML; POST takes only the form's inputs and answers the submitted page", async () => {
    const id = await newForm();
    const page = await send("GET", `/_form/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.text).toContain(`<form method="post" action="/_form/${id}" novalidate>`);
    expect(page.text).toContain('<input id="in-fields.name" name="fields.name" value="Page &#60;Trader&#62;">');
    const posted = await fetch(`${h.url}/_form/${id}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body: "fields.name=Renamed+Trader&other=x&fieldsX=y&fields.abn=",
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const text = await posted.text();
    expect(text).toContain("<title>Submitted</title>");
    expect(text).toContain(`Thank you. Verification ${id} was submitted; a webhook reports its status.`);
    const v = await h.service.get(id);
    // An emptied input leaves its field out (spec/sandbox.yaml hostedForm): abn is not required, so the request is valid without it.
    expect(v!.request.fields).toEqual({ country: "AUS", name: "Renamed Trader", principalPlaceOfBusiness: "2 Pitt St" });
    expect(Object.keys(v!.request)).not.toContain("other");
  });

  it("errors on the form's paths are HTML pages: 415, 404 for an unknown form, a malformed id or another method", async () => {
    const id = await newForm();
    const typed = await send("POST", `/_form/${id}`, '{"fields.name":"x"}');
    expect(typed.status).toBe(415);
    expect(typed.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(typed.text).toContain("<title>Form unavailable</title>");
    expect(typed.text).toContain("<p>The form posts application/x-www-form-urlencoded.</p>");
    const unknown = await send("GET", "/_form/00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("<p>No such form.</p>");
    const bad = await send("GET", "/_form/not-a-uuid");
    expect(bad.status).toBe(404);
    expect(bad.text).toContain("<p>No route GET /_form/not-a-uuid.</p>");
    const put = await send("PUT", `/_form/${id}`);
    expect(put.status).toBe(404);
    expect(put.text).toContain(`No route PUT /_form/${id}.`);
  });
});

describe("the control API over HTTP", () => {
  it("asks for credentials with the challenge, at /_sandbox and below it", async () => {
    for (const path of ["/_sandbox", "/_sandbox/state", "/_sandbox/anything"]) {
      const r = await send("GET", path);
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Basic realm="verispec sandbox"');
      expect(r.body).toEqual({ status: "error", statusCode: 401, type: "unauthorized", message: UNAUTHORIZED, details: [] });
    }
    const page = await authed("GET", "/_sandbox");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("<title>verispec sandbox</title>");
    const unknown = await authed("GET", "/_sandbox/nope");
    expect(unknown.body).toEqual({ status: "error", statusCode: 404, type: "not_found", message: "No route GET /_sandbox/nope.", details: [] });
    const sandboxish = await send("GET", "/_sandboxes");
    expect(sandboxish.headers.get("www-authenticate")).toBeNull();
    expect(sandboxish.status).toBe(404);
  });

  it("POST status: 400 for each bad field, 404 for an unknown trace, 200 with the detail", async () => {
    const { trace } = await h.service.createV5(v5Individual("Control Http") as never);
    const path = `/_sandbox/verifications/${trace}/status`;
    const cases: [unknown, string][] = [
      [{}, "verificationStatus (a string) is required."],
      [{ verificationStatus: 3 }, "verificationStatus (a string) is required."],
      [{ verificationStatus: "rejected", maxAttempts: 0 }, "maxAttempts must be an integer from 1 to 2147483647."],
      [{ verificationStatus: "rejected", maxAttempts: 1.5 }, "maxAttempts must be an integer from 1 to 2147483647."],
      [{ verificationStatus: "rejected", maxAttempts: "3" }, "maxAttempts must be an integer from 1 to 2147483647."],
      [{ verificationStatus: "rejected", maxAttempts: 3_000_000_000 }, "maxAttempts must be an integer from 1 to 2147483647."],
      [{ verificationStatus: "rejected", trigger: 1 }, "trigger must be a transition id."],
    ];
    for (const [body, message] of cases) {
      const r = await authed("POST", path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toEqual({ status: "error", statusCode: 400, type: "bad_request", message, details: [] });
    }
    const missing = await authed("POST", "/_sandbox/verifications/no-such/status", { verificationStatus: "verified" });
    expect(missing.body).toEqual({ status: "error", statusCode: 404, type: "not_found", message: "No verification with trace no-such.", details: [] });
    const ok = await authed("POST", path, { verificationStatus: "rejected", maxAttempts: 1, trigger: "complete" });
    expect(ok.status).toBe(200);
    const v = await h.service.get(trace);
    expect(ok.body).toEqual(h.service.detail(v!));
    expect(ok.body).toMatchObject({ verificationStatus: "rejected", maxAttempts: 1 });
    const getStatus = await authed("GET", path);
    expect(getStatus.status).toBe(404);
  });

  it("POST clock: 400 unless advanceMs is a non-negative integer; advances, stores the offset and answers it", async () => {
    const room = 3_155_760_000_000 - h.clock.offset;
    for (const body of [{}, { advanceMs: -1 }, { advanceMs: 1.5 }, { advanceMs: "5" }, { advanceMs: room + 1 }]) {
      const r = await authed("POST", "/_sandbox/clock", body);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(`advanceMs must be an integer from 0 to ${room}: the sandbox clock runs at most 100 years ahead of real time.`);
    }
    const offset = h.clock.offset;
    const before = Date.now();
    const r = await authed("POST", "/_sandbox/clock", { advanceMs: 60_000 });
    expect(r.status).toBe(200);
    expect(r.body.clockOffsetMs).toBe(offset + 60_000);
    expect(r.body.now).toBeGreaterThanOrEqual(before + offset + 60_000);
    expect(r.body.now).toBeLessThanOrEqual(Date.now() + offset + 60_000);
    expect(h.clock.offset).toBe(offset + 60_000);
    expect(await h.service.loadClockOffset()).toBe(offset + 60_000);
    const zero = await authed("POST", "/_sandbox/clock", { advanceMs: 0 });
    expect(zero.body.clockOffsetMs).toBe(offset + 60_000);
  });

  it("GET state, verifications and deliveries; resend answers the count, 404 for an unknown deliveryId", async () => {
    const { trace } = await h.service.createV5(v5Individual("State Person", "state-user") as never);
    const before = Date.now();
    const state = await authed("GET", "/_sandbox/state");
    expect(state.status).toBe(200);
    expect(state.body.clockOffsetMs).toBe(h.clock.offset);
    expect(state.body.now).toBeGreaterThanOrEqual(before + h.clock.offset);
    const mine = state.body.verifications.find((v: { trace: string }) => v.trace === trace);
    const v = (await h.service.get(trace))!;
    expect(mine).toEqual({ ...h.service.detail(v), api: "v5", userId: "state-user", history: await h.service.historyOf(trace) });
    expect(mine.history).toHaveLength(1);
    expect(state.body.deliveries.filter((d: { trace: string }) => d.trace === trace)).toHaveLength(1);
    const list = await authed("GET", "/_sandbox/verifications");
    expect(list.body.verifications[0]).toEqual(h.service.detail(v));
    const deliveries = await authed("GET", `/_sandbox/deliveries?trace=${trace}`);
    expect(deliveries.body.deliveries).toHaveLength(1);
    expect(deliveries.body.deliveries[0]).toMatchObject({ trace, state: "no_receiver", url: null });
    const all = await authed("GET", "/_sandbox/deliveries");
    expect(all.body.deliveries.length).toBeGreaterThan(1);
    expect(all.body.deliveries[0].trace).toBe(trace); // newest first
    const id = deliveries.body.deliveries[0].deliveryId as string;
    const noReceiver = await authed("POST", `/_sandbox/deliveries/${id}/resend`);
    expect(noReceiver.body).toEqual({ resent: 0 });
    const unknown = await authed("POST", "/_sandbox/deliveries/no-such/resend");
    expect(unknown.body).toEqual({ status: "error", statusCode: 404, type: "not_found", message: "No delivery with that deliveryId.", details: [] });
    expect((await authed("GET", `/_sandbox/deliveries/${id}/resend`)).status).toBe(404);
  });
});

describe("credentialChecker", () => {
  const check = credentialChecker({ serviceUid: "uid", secret: 's:e"cret' });
  const header = (text: string) => `Basic ${Buffer.from(text, "utf8").toString("base64")}`;

  it("compares the pair in any length, and both must be strings", () => {
    expect(check.pair({ serviceUid: "uid", secret: 's:e"cret' })).toBe(true);
    expect(check.pair({ serviceUid: "uid", secret: 's:e"crex' })).toBe(false);
    expect(check.pair({ serviceUid: "uid", secret: 's:e"cret!' })).toBe(false);
    expect(check.pair({ serviceUid: "uidd", secret: 's:e"cret' })).toBe(false);
    expect(check.pair({ serviceUid: "uid" })).toBe(false);
    expect(check.pair({ serviceUid: "uid", secret: 7 as unknown as string })).toBe(false);
    expect(check.pair(undefined)).toBe(false);
  });

  it("takes the Basic header as clients send it, and other spellings of the same credentials", () => {
    expect(check.basic(header('uid:s:e"cret'))).toBe(true);
    expect(check.basic(`basic   ${Buffer.from('uid:s:e"cret').toString("base64")}  `)).toBe(true);
    expect(check.basic(header('uid:s:e"crex'))).toBe(false);
    expect(check.basic(header("uid"))).toBe(false);
    expect(check.basic("Bearer abc")).toBe(false);
    expect(check.basic(undefined)).toBe(false);
  });
});
