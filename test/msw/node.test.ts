// verispec/msw under msw/node: the package's typed client against the handlers (create, GET, a rejected
// individual resubmitted to 474, 475 while pending), the older interface, credentials, 422, determinism,
// reset and the state.
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, SubmissionConflictError, TooManyAttemptsError, ValidationError } from "../../generated/index.js";
import { validateV5VerificationCreateRequest } from "../../generated/validators/v5.VerificationCreateRequest.js";
import { createHandlers } from "../../templates/msw/index.js";

const BASE = "https://verification.example.test";
const T0 = Date.parse("2026-03-01T09:00:00.000Z");
let now = T0;
const mock = createHandlers({ baseUrl: BASE, now: () => now, processingMs: 1000 });
const server = setupServer(...mock.handlers);
const client = createClient({ baseUrl: BASE, serviceUid: mock.serviceUid, secret: mock.secret, retry: false });

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  mock.reset();
  now = T0;
});
afterAll(() => server.close());

const individual = (name: string, userId: string) =>
  ({ type: "individual", subType: "data", country: "AUS", website: "https://www.example.com", name, userId }) as const;
const basic = (uid: string, secret: string) => `Basic ${btoa(`${uid}:${secret}`)}`;

describe("verispec/msw in Node (msw/node)", () => {
  it("creates and reads a v5 verification through the typed client; it completes once processing time has passed", async () => {
    const created = await client.v5.createVerification(individual("Jane Citizen", "customer-1"));
    expect(created.trace).toBe("00000000-0000-4000-8000-000000000001");
    expect(created.status).toBe("success");
    const pending = await client.v5.getVerification(created.trace!);
    expect(pending.data).toMatchObject({ trace: created.trace, name: "Jane Citizen", verificationStatus: "pending", attempt: 1, maxAttempts: 5 });
    await mock.advance(1000);
    const done = await client.v5.getVerification(created.trace!);
    expect(done.data?.verificationStatus).toBe("verified");
    expect(done.timestamp).toBe(new Date(T0 + 1000).toISOString());
  });

  it("a rejected individual resubmitted up to its cap: then 474 (TooManyAttemptsError); 475 while one is pending", async () => {
    const body = individual("Jane Rejected", "customer-2");
    const { trace } = await client.v5.createVerification(body);
    await expect(client.v5.createVerification(body)).rejects.toBeInstanceOf(SubmissionConflictError);
    for (let attempt = 1; attempt <= 5; attempt++) {
      await mock.advance(1000);
      const v = await client.v5.getVerification(trace!);
      expect(v.data).toMatchObject({ verificationStatus: "rejected", attempt });
      if (attempt < 5) expect((await client.v5.createVerification(body)).trace).toBe(trace);
    }
    const refused = await client.v5.createVerification(body).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TooManyAttemptsError);
    expect((refused as TooManyAttemptsError).status).toBe(474);
    const state = mock.state().verifications.find((v) => v.trace === trace)!;
    expect(state).toMatchObject({ verificationStatus: "rejected", submissionStatus: "locked", attempt: 5 });
    expect(state.history.map((h) => h.verification_status)).toEqual([
      "pending",
      "rejected",
      "pending",
      "rejected",
      "pending",
      "rejected",
      "pending",
      "rejected",
      "pending",
      "rejected",
      "rejected",
    ]);
    expect(mock.state().webhooks.filter((w) => w.trace === trace).length).toBe(11);
  });

  it("answers an invalid body 422 with the validators' issues, as the service does", async () => {
    const bad = { type: "trust", name: "n".repeat(200), website: "" };
    const res = await fetch(`${BASE}/v5/verifications`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: basic(mock.serviceUid, mock.secret) },
      body: JSON.stringify(bad),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { status: string; statusCode: number; error: { type: string; details: unknown } };
    const direct = validateV5VerificationCreateRequest(bad);
    expect(direct.valid).toBe(false);
    expect(body).toMatchObject({ status: "error", statusCode: 422, error: { type: "validation_error" } });
    expect(body.error.details).toEqual(direct.valid ? [] : direct.errors);
    await expect(client.v5.createVerification(bad as never)).rejects.toBeInstanceOf(ValidationError);
  });

  it("checks HTTP Basic on /v5 and the body credentials of the older endpoints (401)", async () => {
    const wrong = await fetch(`${BASE}/v5/verifications/00000000-0000-4000-8000-000000000001`, { headers: { Authorization: basic(mock.serviceUid, "wrong") } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain("Basic");
    const older = await fetch(`${BASE}/getVerificationStatus`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ metadata_version: "4", metadata_serviceUid: mock.serviceUid, metadata_secretKey: "wrong", trace: "x" }),
    });
    expect(older.status).toBe(401);
    expect(await older.json()).toMatchObject({ status: "error", statusCode: 401 });
  });

  it("the older interface: /verify answers the initial webhook's content; /getVerificationStatus the latest; /idform a form", async () => {
    const older = createClient({ baseUrl: BASE, serviceUid: mock.serviceUid, secret: mock.secret, retry: false });
    const fields = {
      country: "USA",
      firstName: "Jane",
      lastName: "Rejected",
      dateOfBirth: "15/07/1985",
      streetNumber: "1",
      streetName: "Main",
      suburb: "Springfield",
      postcode: "62701",
      state: "IL",
    };
    const verified = await older.verify({ type: "individual", metadata_userId: "older-1", fields } as never);
    expect(verified).toMatchObject({ verificationStatus: "pending", name: "Jane Rejected" });
    await mock.advance(1000);
    const latest = await older.getVerificationStatus({ userId: "older-1" } as never);
    expect(latest).toMatchObject({ verificationUuid: (verified as { verificationUuid: string }).verificationUuid, verificationStatus: "rejected" });
    const form = await older.idForm({ serviceLink_dataAccessType: "idForm", type: "publicCompany", fields: { country: "AUS" } } as never);
    expect(form).toMatchObject({ status: "success", serviceLink: expect.stringMatching(new RegExp(`^${BASE}/_form/`)) });
  });

  it("the follow-up request (its path as the sandbox serves it): an entity in info moves back to pending", async () => {
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${BASE}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ metadata_version: "4", metadata_serviceUid: mock.serviceUid, metadata_secretKey: mock.secret, ...body }),
      });
    const entity = {
      type: "association",
      fields: { country: "USA", name: "Acme Info", associationNumber: "x", registeredOfficeRequired: "x" },
      stakeholders: [],
    };
    const created = (await (await post("/verify", entity)).json()) as { verificationUuid: string; verificationStatus: string };
    expect(created.verificationStatus).toBe("pending");
    await mock.advance(1000);
    expect(mock.state().verifications[0]).toMatchObject({ trace: created.verificationUuid, verificationStatus: "info" });
    const answered = await post("/requestedActions", { verificationUuid: created.verificationUuid, requestedActions: [] });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ verificationUuid: created.verificationUuid, verificationStatus: "pending" });
    const again = await post("/requestedActions", { verificationUuid: created.verificationUuid, requestedActions: [] });
    expect(again.status).toBe(409);
  });

  it("is deterministic and resettable: the same calls give the same answers after reset; the state is emptied", async () => {
    const first = await client.v5.createVerification(individual("Jane Citizen", "customer-3"));
    const detail1 = await client.v5.getVerification(first.trace!);
    expect(mock.state().verifications).toHaveLength(1);
    mock.reset();
    expect(mock.state()).toEqual({ now: T0, verifications: [], webhooks: [] });
    await expect(client.v5.getVerification(first.trace!)).rejects.toMatchObject({ status: 404 });
    mock.reset();
    const again = await client.v5.createVerification(individual("Jane Citizen", "customer-3"));
    expect(again.trace).toBe(first.trace);
    const detail2 = await client.v5.getVerification(again.trace!);
    expect(detail2.data).toEqual(detail1.data);
  });

  it("a separate set of handlers keeps separate verifications", async () => {
    const other = createHandlers({ baseUrl: BASE, now: () => now });
    await client.v5.createVerification(individual("Jane Citizen", "customer-4"));
    expect(other.state().verifications).toEqual([]);
    expect(mock.state().verifications).toHaveLength(1);
  });
});
