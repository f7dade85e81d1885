// `verispec sandbox` as a child process (--port 0, --db memory), driven with the generated client: every
// operation, the life of an individual to 474 and `locked`, 475, an entity's stakeholder webhooks, the
// control API, bad input. Every response is checked against generated/openapi.json and every webhook
// against the generated webhook schemas.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, SubmissionConflictError, TooManyAttemptsError, ValidationError } from "../../generated/index.js";
import { validate } from "../../generated/validators/index.js";
import { interpretWebhook, MemoryReplayStore, verifyWebhook } from "../../generated/webhooks.js";
import {
  call,
  checkingFetch,
  CREDENTIALS,
  olderIndividual,
  responseErrors,
  SIGNING_SECRET,
  startReceiver,
  startSandbox,
  until,
  v5Individual,
  webhookErrors,
  type Sandbox,
} from "./helpers.js";

let sandbox: Sandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const seen: Array<{ path: string; status: number; errors: string[] }> = [];
let client: ReturnType<typeof createClient>;

const payloads = () => receiver.deliveries.map((d) => JSON.parse(d.body) as Record<string, unknown>);
const forTrace = (trace: string) => payloads().filter((p) => p.trace === trace);

beforeAll(async () => {
  receiver = await startReceiver();
  sandbox = await startSandbox(["--db", "memory", "--processing-ms", "manual", "--webhook-url", receiver.url, "--retry-delays", "100,100"]);
  client = createClient({ baseUrl: sandbox.url, ...CREDENTIALS, fetch: checkingFetch(seen), retry: false });
}, 180_000); // a start from the sources, and a judging proxy in front when VERISPEC_TEST_THROUGH_PROXY is set

afterAll(async () => {
  const code = await sandbox?.stop("SIGTERM");
  await receiver?.close();
  expect(code).toBe(0); // SIGTERM stops it cleanly
});

describe("verispec sandbox: the command", () => {
  it("prints exactly one ready line and no secret taken from the environment", () => {
    // The spec it serves is named first; then exactly one ready line, the one scripts wait for.
    const lines = sandbox.stdout.split("\n");
    expect(lines[0]).toMatch(/^verispec sandbox serving .+ \(specVersion .+\)$/);
    expect(lines.filter((line) => line.includes("listening on"))).toEqual([`verispec sandbox listening on ${sandbox.servedUrl ?? sandbox.url}`]);
    for (const secret of [CREDENTIALS.secret, SIGNING_SECRET]) {
      expect(sandbox.stdout).not.toContain(secret);
      expect(sandbox.stderr).not.toContain(secret);
    }
    expect(sandbox.stdout).not.toContain("test value");
  });
});

describe("v5 (seed 4.5, 4.6)", () => {
  it("creates a pending verification, answers GET with its detail, and sends the initial webhook", async () => {
    const created = await client.v5.createVerification(v5Individual("Ada Lovelace", "v5-user-1"));
    expect(created.status).toBe("success");
    expect(created.message).toBe("Verification created successfully");
    const trace = created.trace!;
    const got = await client.v5.getVerification(trace);
    expect(got.data).toMatchObject({ trace, verificationStatus: "pending", submissionStatus: "submitted", type: "individual", subType: "data" });
    const [initial] = await until(() => forTrace(trace).length === 1 && forTrace(trace), "initial webhook");
    expect(initial).toMatchObject({ version: "v5", trace, userId: "v5-user-1", verificationStatus: "pending", attempt: 1, maxAttempts: 5, tags: [] });
    const delivery = receiver.deliveries.find((d) => JSON.parse(d.body).trace === trace)!;
    const verified = await verifyWebhook({ rawBody: delivery.body, headers: delivery.headers, secret: SIGNING_SECRET, replayStore: new MemoryReplayStore() });
    expect(verified.version).toBe("2");
    expect(delivery.headers["x-svc-delivery-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers 422 with the details the generated validators give, 401 without credentials, 404 for an unknown trace", async () => {
    const bad = { ...v5Individual("Ada"), website: "", identifiers: { abn: "123" } };
    const expected = validate("v5.VerificationCreateRequest", bad);
    expect(expected.valid).toBe(false);
    const error = await client.v5.createVerification(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details).toEqual(expected.valid ? [] : expected.errors);

    const wrong = createClient({ baseUrl: sandbox.url, serviceUid: CREDENTIALS.serviceUid, secret: "wrong", fetch: checkingFetch(seen), retry: false });
    expect(await wrong.v5.getVerification("x").catch((e: { status?: number }) => e.status)).toBe(401);
    const noAuth = await fetch(`${sandbox.url}/v5/verifications`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(noAuth.status).toBe(401);
    expect(noAuth.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(await client.v5.getVerification("no-such-trace").catch((e: { status?: number }) => e.status)).toBe(404);
  });

  it("walks an individual through five rejected attempts to 474 and submissionStatus locked", async () => {
    const userId = "five-attempts";
    const { trace } = await client.v5.createVerification(v5Individual("Rejected Person", userId));
    for (let attempt = 1; attempt <= 5; attempt++) {
      const done = await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "rejected" });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ verificationStatus: "rejected", attempt, maxAttempts: 5 });
      if (attempt < 5) {
        const again = await client.v5.createVerification(v5Individual("Rejected Person", userId));
        expect(again.trace).toBe(trace); // a resubmission of the same verification
        expect((await client.v5.getVerification(trace!)).data).toMatchObject({ verificationStatus: "pending", attempt: attempt + 1 });
      }
    }
    const locked = await client.v5.createVerification(v5Individual("Rejected Person", userId)).catch((e: unknown) => e);
    expect(locked).toBeInstanceOf(TooManyAttemptsError);
    expect((locked as TooManyAttemptsError).status).toBe(474);
    expect((await client.v5.getVerification(trace!)).data).toMatchObject({ verificationStatus: "rejected", submissionStatus: "locked", attempt: 5 });
    // Not re-verified: a further resubmission is 474 again and starts nothing.
    expect(await client.v5.createVerification(v5Individual("Rejected Person", userId)).catch((e: { status?: number }) => e.status)).toBe(474);
    const last = await until(() => forTrace(trace!).find((p) => p.submissionStatus === "locked"), "the locked webhook");
    expect(interpretWebhook(last as never).outcome).toBe("final_rejection");
    const statuses = forTrace(trace!).map((p) => `${p.verificationStatus}/${p.attempt}`);
    expect(statuses).toEqual([
      "pending/1",
      "rejected/1",
      "pending/2",
      "rejected/2",
      "pending/3",
      "rejected/3",
      "pending/4",
      "rejected/4",
      "pending/5",
      "rejected/5",
      "rejected/5",
    ]);
    expect(
      forTrace(trace!)
        .filter((p) => p.verificationStatus === "rejected" && p.attempt === 4)
        .map((p) => interpretWebhook(p as never).outcome),
    ).toEqual(["retry_possible"]);
  });

  it("answers 475 to a resubmission while one is pending, storing nothing", async () => {
    const userId = "conflict-user";
    const { trace } = await client.v5.createVerification(v5Individual("Conflict Person", userId));
    await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "rejected" });
    await client.v5.createVerification(v5Individual("Conflict Person", userId)); // attempt 2, pending
    const before = (await call(sandbox.url, "GET", `/_sandbox/deliveries?trace=${trace}`)).body.deliveries.length;
    const conflict = await client.v5.createVerification(v5Individual("Conflict Person", userId)).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(SubmissionConflictError);
    expect((conflict as SubmissionConflictError).status).toBe(475);
    expect((await client.v5.getVerification(trace!)).data).toMatchObject({ verificationStatus: "pending", attempt: 2 });
    expect((await call(sandbox.url, "GET", `/_sandbox/deliveries?trace=${trace}`)).body.deliveries.length).toBe(before);
  });

  it("sends one stakeholder webhook per individual of an entity (parentTrace, roles); removed only for stakeholders", async () => {
    const entity = {
      country: "AUS",
      type: "association",
      name: "Chess Club Inc",
      website: "https://chess.example",
      userId: "club-1",
      identifiers: { abn: "51824753556" },
      addresses: { registeredAddress: "1 Main St" },
      documents: [],
      stakeholders: [
        { type: "individual", name: "Pat Officer", country: "AUS", roles: ["publicOfficer", "shareholders"] },
        { role: "shareholders", entity: { type: "individual", name: "Sam Holder", country: "AUS" } },
        { type: "company", name: "Holding Pty Ltd", country: "AUS", roles: ["shareholders"] },
      ],
    };
    const { trace } = await client.v5.createVerification(entity as never);
    const children = await until(() => {
      const c = payloads().filter((p) => p.parentTrace === trace);
      return c.length === 2 && c;
    }, "two stakeholder webhooks");
    // Webhooks of different verifications may arrive in any order (one pass delivers them concurrently).
    children.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    expect(children.map((c) => c.roles)).toEqual([["publicOfficer", "shareholders"], ["shareholders"]]);
    expect(children.every((c) => c.parentUserId === "club-1" && c.trace !== trace && c.type === "individual")).toBe(true);
    expect(forTrace(trace!)).toHaveLength(1);
    const removed = await call(sandbox.url, "POST", `/_sandbox/verifications/${children[0]!.trace}/status`, { verificationStatus: "removed" });
    expect(removed.status).toBe(200);
    const refused = await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "removed" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/isStakeholder/);
    const info = await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "info" });
    expect(info.body).toMatchObject({ verificationStatus: "info" });
  });
});

describe("older endpoints (seed 4.1-4.4)", () => {
  it("POST /verify answers the initial webhook's content; getVerificationStatus the latest, by trace and userId", async () => {
    const response = await client.verify(olderIndividual("Info", "older-1") as never);
    const trace = response.trace!;
    expect(response).toMatchObject({ verificationStatus: "pending", entityType: "individual", verificationUuid: trace });
    const [webhook] = await until(() => forTrace(trace).length === 1 && forTrace(trace), "older initial webhook");
    expect(webhook).toEqual(response);
    expect(webhook!.signature).toMatchObject({ version: "1" });
    await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "verified" });
    const byTrace = await client.getVerificationStatus({ trace } as never);
    const byUser = await client.getVerificationStatus({ userId: "older-1" } as never);
    expect(byTrace).toMatchObject({ trace, verificationStatus: "verified" });
    expect(byUser).toEqual(byTrace);
    const latest = await until(() => forTrace(trace).length === 2 && forTrace(trace)[1], "second webhook");
    expect(byTrace).toEqual(latest);
  });

  it("the follow-up request moves an entity in info to pending (the sandbox's documented choice)", async () => {
    const response = await client.verify({
      metadata_userId: "trust-1",
      type: "governmentBody",
      fields: { country: "USA", name: "Info Agency", legislationType: "federal" },
    } as never);
    const trace = response.trace!;
    await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "info" });
    const status = await client.getVerificationStatus({ trace } as never);
    expect((status as Record<string, unknown>).requestedActions).toEqual([{ type: "document", id: `${trace}-document-1`, extractType: "companyExtract" }]);
    const answer = await client.submitRequestedActions(
      {
        verificationUuid: trace,
        requestedActions: [{ type: "document", id: `${trace}-document-1`, documentBase64: "data:application/pdf;base64,JVBERi0=" }],
      } as never,
      { path: "/requestedActions" },
    );
    expect(answer).toMatchObject({ trace, verificationStatus: "pending" });
    const again = await call(sandbox.url, "POST", "/requestedActions", {
      metadata_version: "4",
      metadata_serviceUid: CREDENTIALS.serviceUid,
      metadata_secretKey: CREDENTIALS.secret,
      verificationUuid: trace,
      requestedActions: [],
    });
    expect(again.status).toBe(409);
  });

  it("refuses wrong body credentials with 401 in the older error shape, and validates with the generated validators", async () => {
    const r = await call(sandbox.url, "POST", "/verify", {
      ...olderIndividual("X"),
      metadata_version: "4",
      metadata_serviceUid: CREDENTIALS.serviceUid,
      metadata_secretKey: "nope",
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      status: "error",
      statusCode: 401,
      type: "unauthorized",
      message: "Authentication failed: wrong or missing credentials.",
      details: [],
    });
    expect(responseErrors("/verify", "POST", 401, r.body)).toEqual([]);
    const body = { ...olderIndividual("X"), metadata_version: "4", metadata_serviceUid: CREDENTIALS.serviceUid, metadata_secretKey: CREDENTIALS.secret };
    (body.fields as Record<string, unknown>).state = "XX";
    const v = await call(sandbox.url, "POST", "/verify", body);
    const expected = validate("v4.VerifyRequest", body);
    expect(v.status).toBe(422);
    expect(v.body.details).toEqual(expected.valid ? [] : expected.errors);
  });
});

describe("control API and bad input", () => {
  it("409 with the reason when the table forbids a transition; compliance picks the any row", async () => {
    const { trace } = await client.v5.createVerification(v5Individual("Control Person"));
    await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "verified" });
    const back = await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "pending" });
    expect(back.status).toBe(409);
    expect(back.body.message).toMatch(/no row from verified to pending/);
    const individualInfo = await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "info", trigger: "compliance" });
    expect(individualInfo.status).toBe(409); // info: legal entities only
    const compliance = await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "rejected", trigger: "compliance" });
    expect(compliance.body).toMatchObject({ verificationStatus: "rejected" });
    const raised = await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "pending", maxAttempts: 9 });
    expect(raised.body).toMatchObject({ verificationStatus: "pending", attempt: 2, maxAttempts: 9 });
  });

  it("400 malformed JSON, 415 wrong content type, 413 over the limit, each in the interface's shape", async () => {
    const malformed = await call(sandbox.url, "POST", "/v5/verifications", "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/not valid JSON/);
    const typed = await call(sandbox.url, "POST", "/v5/verifications", "{}", { "content-type": "text/plain" });
    expect(typed.status).toBe(415);
    const older = await call(sandbox.url, "POST", "/verify", "{oops");
    expect(older.body).toMatchObject({ status: "error", statusCode: 400, type: "bad_request" });
    // The parser's own message quotes the text it stopped at: never echoed (the secret key travels in this body).
    const secretBody = `{"metadata_secretKey": "s3cr3t-KEY", "metadata_serviceUid": oops}`;
    const echoed = await call(sandbox.url, "POST", "/verify", secretBody);
    expect(echoed.status).toBe(400);
    expect(JSON.stringify(echoed.body)).not.toContain("s3cr3t");
    expect(JSON.stringify(echoed.body)).not.toContain("oops");
    for (const [path, r] of [
      ["/v5/verifications", malformed],
      ["/v5/verifications", typed],
      ["/verify", older],
    ] as const) {
      expect(responseErrors(path, "POST", r.status, r.body)).toEqual([]);
    }
  });

  it("every response seen by the client matched its schema in openapi.json, and every webhook its webhook schema", () => {
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.filter((s) => s.errors.length)).toEqual([]);
    expect(new Set(seen.map((s) => s.status))).toEqual(new Set([200, 401, 404, 422, 474, 475]));
    expect(receiver.deliveries.length).toBeGreaterThan(20);
    expect(receiver.deliveries.map((d) => webhookErrors(d.body)).filter((e) => e.length)).toEqual([]);
  });
});

describe("413 with a small --max-body", () => {
  it("refuses a body over the limit before reading it", async () => {
    const small = await startSandbox(["--db", "memory", "--max-body", "512"]);
    try {
      const r = await call(small.url, "POST", "/v5/verifications", { ...v5Individual("A"), industry: "x".repeat(1000) });
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ statusCode: 413, status: "error", error: { code: "payload_too_large" } });
      expect(responseErrors("/v5/verifications", "POST", 413, r.body)).toEqual([]);
      expect(small.stdout).not.toContain(CREDENTIALS.secret);
    } finally {
      expect(await small.stop("SIGINT")).toBe(0);
    }
  }, 180_000);
});

describe("the hosted form of /idform (seed 4.2, 8), with the clock advanced", () => {
  const idForm = () =>
    client.idForm({
      metadata_userId: "form-user",
      serviceLink_dataAccessType: "idForm",
      type: "soleTrader",
      fields: { country: "AUS", name: "Form Trader", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
      stakeholders: [{ type: "individual", role: "individuals", fields: { country: "AUS", firstName: "Ann", lastName: "Lee" } }],
    } as never);

  it("answers { source, serviceLink, verificationUuid, status }, serves a prefilled form, allows 10 opens without saving", async () => {
    const form = await idForm();
    expect(form).toMatchObject({ status: "success", source: "verispec-sandbox" });
    expect(form.serviceLink).toBe(`${sandbox.servedUrl ?? sandbox.url}/_form/${form.verificationUuid}`);
    for (let i = 1; i <= 10; i++) {
      const page = await fetch(form.serviceLink);
      expect(page.status).toBe(200);
      if (i === 1) expect(await page.text()).toContain('value="2 Pitt St"');
      else await page.text();
    }
    const eleventh = await fetch(form.serviceLink);
    expect(eleventh.status).toBe(403);
    expect(await eleventh.text()).toMatch(/opened 10 times without being saved/);
  });

  it("submitting creates the verification (trace = verificationUuid) and its webhook; saving resets the opens", async () => {
    const form = await idForm();
    for (let i = 0; i < 10; i++) await (await fetch(form.serviceLink)).text();
    const submitted = await fetch(form.serviceLink, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "fields.name=Form+Trader+Rejected",
    });
    expect(submitted.status).toBe(200);
    const [webhook] = await until(() => forTrace(form.verificationUuid!).length === 1 && forTrace(form.verificationUuid!), "form webhook");
    expect(webhook).toMatchObject({ trace: form.verificationUuid, entityType: "soleTrader", name: "Form Trader Rejected", verificationStatus: "pending" });
    expect((await fetch(form.serviceLink)).status).toBe(200); // saved: opens counted again from 0
  });

  it("hides prefilled data after 30 minutes and refuses the form after 31 days (clock advanced)", async () => {
    const form = await idForm();
    const advanced = await call(sandbox.url, "POST", "/_sandbox/clock", { advanceMs: 31 * 60_000 });
    expect(advanced.status).toBe(200);
    const reduced = await (await fetch(form.serviceLink)).text();
    expect(reduced).toContain('value="Form Trader"'); // name kept
    expect(reduced).not.toContain("2 Pitt St");
    await call(sandbox.url, "POST", "/_sandbox/clock", { advanceMs: 31 * 86_400_000 - 32 * 60_000 });
    expect((await fetch(form.serviceLink)).status).toBe(200); // a minute before 31 days: still open
    await call(sandbox.url, "POST", "/_sandbox/clock", { advanceMs: 2 * 60_000 });
    const expired = await fetch(form.serviceLink);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toMatch(/31 days/);
  });
});
