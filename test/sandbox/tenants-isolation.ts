// The tenants' isolation suite, run on PGlite (tenants.test.ts) and on Postgres (tenants-postgres.test.ts):
// two accounts in one sandbox (startSandbox in this process), tenant A's data made first, then every route
// of the route table called by tenant B with A's ids. For each, B gets exactly what an id never created
// gets (status and body, the id substituted), and A's data is unchanged afterwards. The route table is
// enumerated from the handler: a route without a case here fails the suite.
import { afterAll, beforeAll, expect, it } from "vitest";
import { MemoryReplayStore, verifyWebhook } from "../../generated/webhooks.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import { startSandbox, type RunningSandbox } from "../../templates/sandbox/index.js";
import { createHandler } from "../../templates/sandbox/server.js";
import { ControlReads } from "../../templates/sandbox/service/reads.js";
import { basic, olderIndividual, request, startReceiver, until, v5Individual, type Answer } from "./helpers.js";
import { binding, testService } from "./inprocess.js";

interface TestTenant {
  readonly name: string;
  readonly credentials: { readonly serviceUid: string; readonly secret: string };
  readonly signingSecret: string;
}

export const TENANT_A: TestTenant = {
  name: "team-a",
  credentials: { serviceUid: "uid-team-a", secret: "secret-a-5d1c9e0b7f2a4c68" },
  signingSecret: "signing-a-0f9e8d7c6b5a4938",
};
export const TENANT_B: TestTenant = {
  name: "team-b",
  credentials: { serviceUid: "uid-team-b", secret: "secret-b-e3a1f6c2d9b84e07" },
  signingSecret: "signing-b-71c3a9e5f0d2b864",
};
/** Every secret of the suite, to be looked for in what the sandbox says. */
export const SECRETS = [TENANT_A, TENANT_B].flatMap((t) => [t.credentials.secret, t.signingSecret]);

/** A secret in the encodings a log or an answer might carry it. */
export function encodings(secret: string): string[] {
  return [
    secret,
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
    encodeURIComponent(secret),
    Buffer.from(secret).toString("hex"),
  ];
}

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const LISTINGS = new Set(["GET /_sandbox/state", "GET /_sandbox/deliveries"]);
const FORM_SUBMIT = { "content-type": "application/x-www-form-urlencoded" };

/** What the suite made as tenant A (the ids B will try). */
interface AData {
  trace: string;
  rejectedTrace: string;
  olderTrace: string;
  infoTrace: string;
  formId: string;
  deliveryId: string;
}

/** An answer as compared: status, content type and body with `id` standing for the id sent, times blanked. */
function shape(a: Answer, id: string): { status: number; type: string | null; body: unknown } {
  const text = a.text.split(id).join("<id>");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // HTML or text: compared as it is
  }
  if (body && typeof body === "object") {
    const o = body as Record<string, unknown>;
    if ("timestamp" in o) o.timestamp = "<time>";
    if ("now" in o) o.now = "<time>";
    // A refusal without a trace of its own carries a fresh UUID (the envelope's trace): not the id's.
    if (typeof o.trace === "string" && o.trace !== "<id>" && /^[0-9a-f-]{36}$/.test(o.trace)) o.trace = "<fresh>";
  }
  return { status: a.status, type: a.headers.get("content-type"), body };
}

/** An isolation case: calls B makes with A's id and with an id never created, which must answer alike. */
interface Case {
  /** The id of A's data the call names, or undefined when the call names none (a create, a listing). */
  readonly foreign?: (a: AData) => string;
  /** B's call naming `id`. */
  readonly call: (id: string) => Promise<Answer>;
  /** Further checks of the route's isolation (optional). */
  readonly also?: (a: AData) => Promise<void>;
}

export function isolationSuite(dbOf: () => string): void {
  let sandbox: RunningSandbox;
  let url = "";
  const logs: string[] = [];
  const answers: string[] = [];
  let rxA: Awaited<ReturnType<typeof startReceiver>>;
  let rxB: Awaited<ReturnType<typeof startReceiver>>;
  const a = {} as AData;

  const as = async (t: TestTenant | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await request(url, method, path, body, { ...(t ? { authorization: basic(t.credentials) } : {}), ...headers });
    answers.push(r.text);
    return r;
  };
  const older = (t: TestTenant, extra: Record<string, unknown>) => ({
    metadata_version: "4",
    metadata_serviceUid: t.credentials.serviceUid,
    metadata_secretKey: t.credentials.secret,
    ...extra,
  });
  const form = async (t: TestTenant | undefined, method: "GET" | "POST", id: string) => {
    const r = await fetch(
      `${url}/_form/${id}`,
      method === "GET"
        ? { headers: t ? { authorization: basic(t.credentials) } : {} }
        : { method, headers: { ...FORM_SUBMIT, ...(t ? { authorization: basic(t.credentials) } : {}) }, body: "" },
    );
    const answer: Answer = { status: r.status, body: undefined, text: await r.text(), headers: r.headers };
    answers.push(answer.text);
    return answer;
  };
  /** A's data as A's control API shows it (the state, every delivery, the clock offset). */
  const snapshotA = async () => {
    const state = await as(TENANT_A, "GET", "/_sandbox/state?limit=500");
    const deliveries = await as(TENANT_A, "GET", "/_sandbox/deliveries");
    return { verifications: state.body.verifications, clockOffsetMs: state.body.clockOffsetMs, deliveries: deliveries.body.deliveries };
  };
  let before: Awaited<ReturnType<typeof snapshotA>>;

  beforeAll(async () => {
    [rxA, rxB] = [await startReceiver(), await startReceiver()];
    sandbox = await startSandbox({
      binding,
      host: "127.0.0.1",
      port: 0,
      db: dbOf(),
      cwd: process.cwd(),
      processingMs: "manual",
      requestedActionsPath: "/requestedActions",
      maxBodyBytes: 1_000_000,
      tenants: [
        { ...TENANT_A, webhookUrls: [rxA.url], signatureVersion: "2" },
        { ...TENANT_B, webhookUrls: [rxB.url], signatureVersion: "2" },
      ],
      deliveryTimeoutMs: 5000,
      retryDelaysMs: [1000],
      log: (line) => logs.push(line),
      retainDays: 0,
      logger: { event: (level, message) => logs.push(`${level} ${message}`), request: (fields) => logs.push(JSON.stringify(fields)) },
    });
    url = sandbox.url;
    await makeA();
    before = await snapshotA();
  }, 120_000);

  afterAll(async () => {
    await sandbox?.close();
    await rxA?.close();
    await rxB?.close();
  });

  /** Tenant A's data: v5 verifications (one rejected, resubmittable by userId), older ones (one in info), a submitted hosted form, delivered webhooks. */
  async function makeA(): Promise<void> {
    a.trace = (await as(TENANT_A, "POST", "/v5/verifications", v5Individual("Alice Person", "shared-user"))).body.trace;
    a.rejectedTrace = (await as(TENANT_A, "POST", "/v5/verifications", v5Individual("Rita Person", "resub-user"))).body.trace;
    expect((await as(TENANT_A, "POST", `/_sandbox/verifications/${a.rejectedTrace}/status`, { verificationStatus: "rejected" })).status).toBe(200);
    a.olderTrace = JSON.parse((await as(TENANT_A, "POST", "/verify", older(TENANT_A, olderIndividual("Smith", "older-a")))).text).trace;
    a.infoTrace = JSON.parse(
      (
        await as(
          TENANT_A,
          "POST",
          "/verify",
          older(TENANT_A, { metadata_userId: "follow-a", type: "governmentBody", fields: { country: "USA", name: "Agency", legislationType: "federal" } }),
        )
      ).text,
    ).trace;
    expect((await as(TENANT_A, "POST", `/_sandbox/verifications/${a.infoTrace}/status`, { verificationStatus: "info" })).status).toBe(200);
    a.formId = (
      await as(
        TENANT_A,
        "POST",
        "/idform",
        older(TENANT_A, {
          serviceLink_dataAccessType: "idForm",
          metadata_userId: "form-a",
          type: "soleTrader",
          fields: { country: "AUS", name: "Form Trader", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
        }),
      )
    ).body.verificationUuid;
    // Submitted without credentials: the form is A's, so is its verification.
    expect((await form(undefined, "POST", a.formId)).status).toBe(200);
    const all = await until(async () => {
      const d = (await as(TENANT_A, "GET", "/_sandbox/deliveries")).body.deliveries as { state: string; deliveryId: string }[];
      return d.length >= 7 && d.every((x) => x.state === "delivered") && d;
    }, "tenant A's webhooks delivered");
    a.deliveryId = all.at(-1)!.deliveryId;
  }

  /** B's call with A's id answers as B's call with an id never created; A's id is not in it. */
  const sameAsUnknown = async (c: Case) => {
    const id = c.foreign!(a);
    const foreign = await c.call(id);
    const unknown = await c.call(UNKNOWN);
    expect(shape(foreign, id)).toEqual(shape(unknown, UNKNOWN));
    return foreign;
  };

  const CASES: Record<string, Case> = {
    "POST /v5/verifications": {
      // A resubmission by userId is the tenant's own: B's create with A's rejected user's userId is a new verification of B's.
      call: () => as(TENANT_B, "POST", "/v5/verifications", v5Individual("Rita Person", "resub-user")),
      also: async (d) => {
        // The call above was B's first with that userId: a new verification (attempt 1), not A's rejected one retried.
        const mine = (await as(TENANT_B, "GET", "/_sandbox/state?userId=resub-user")).body.verifications as { trace: string; attempt: number }[];
        expect(mine.map((v) => v.attempt)).toEqual([1]);
        expect(mine[0]!.trace).not.toBe(d.rejectedTrace);
        // B's second is a resubmission of B's own pending one (475), which A's rejected one never was for B.
        expect((await as(TENANT_B, "POST", "/v5/verifications", v5Individual("Bob Person", "resub-user"))).status).toBe(475);
        // A cannot read B's new verification: the unknown answer.
        const byA = await as(TENANT_A, "GET", `/v5/verifications/${mine[0]!.trace}`);
        const unknown = await as(TENANT_A, "GET", `/v5/verifications/${UNKNOWN}`);
        expect(shape(byA, mine[0]!.trace)).toEqual(shape(unknown, UNKNOWN));
        // A's own resubmission still finds A's rejected verification (attempt 2 of the same trace).
        const resub = await as(TENANT_A, "POST", "/v5/verifications", v5Individual("Rita Person", "resub-user"));
        expect(resub.body.trace).toBe(d.rejectedTrace);
      },
    },
    "GET /v5/verifications/{trace}": { foreign: (d) => d.trace, call: (id) => as(TENANT_B, "GET", `/v5/verifications/${id}`) },
    "POST /verify": {
      call: () => as(TENANT_B, "POST", "/verify", older(TENANT_B, olderIndividual("Jones", "older-a"))),
      also: async (d) => {
        // The same userId in both: each tenant's lookup by userId finds its own.
        const b = await as(TENANT_B, "POST", "/getVerificationStatus", older(TENANT_B, { userId: "older-a" }));
        const mine = await as(TENANT_A, "POST", "/getVerificationStatus", older(TENANT_A, { userId: "older-a" }));
        expect(JSON.parse(mine.text).trace).toBe(d.olderTrace);
        expect(JSON.parse(b.text).trace).not.toBe(d.olderTrace);
      },
    },
    "POST /idform": {
      call: () =>
        as(
          TENANT_B,
          "POST",
          "/idform",
          older(TENANT_B, {
            serviceLink_dataAccessType: "idForm",
            metadata_userId: "form-b",
            type: "soleTrader",
            fields: { country: "AUS", name: "Form Trader", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
          }),
        ),
      also: async () => {
        const id = (await CASES["POST /idform"]!.call("")).body.verificationUuid as string;
        expect((await form(undefined, "POST", id)).status).toBe(200);
        // B's form made B's verification: A asking for it gets the unknown answer, B gets it.
        const byA = await as(TENANT_A, "POST", "/getVerificationStatus", older(TENANT_A, { trace: id }));
        const unknown = await as(TENANT_A, "POST", "/getVerificationStatus", older(TENANT_A, { trace: UNKNOWN }));
        expect(shape(byA, id)).toEqual(shape(unknown, UNKNOWN));
        expect((await as(TENANT_B, "POST", "/getVerificationStatus", older(TENANT_B, { trace: id }))).status).toBe(200);
      },
    },
    "POST /getVerificationStatus": {
      foreign: (d) => d.olderTrace,
      call: (id) => as(TENANT_B, "POST", "/getVerificationStatus", older(TENANT_B, { trace: id })),
      also: async () => {
        const byUser = await as(TENANT_B, "POST", "/getVerificationStatus", older(TENANT_B, { userId: "follow-a" }));
        const unknown = await as(TENANT_B, "POST", "/getVerificationStatus", older(TENANT_B, { userId: "never-a-user" }));
        expect(shape(byUser, "follow-a")).toEqual(shape(unknown, "never-a-user"));
      },
    },
    "POST /requestedActions": {
      foreign: (d) => d.infoTrace,
      call: (id) => as(TENANT_B, "POST", "/requestedActions", older(TENANT_B, { verificationUuid: id, requestedActions: [] })),
    },
    "GET /_form/{id}": {
      // A form id is a capability: whoever holds it opens that form, credentials or not; it stays A's.
      call: (id) => form(TENANT_B, "GET", id),
      also: async (d) => {
        const withB = await form(TENANT_B, "GET", d.formId);
        const anonymous = await form(undefined, "GET", d.formId);
        expect(withB.status).toBe(200);
        expect(withB.text).toBe(anonymous.text); // the same page whoever opens it
        expect((await form(TENANT_B, "GET", UNKNOWN)).status).toBe(404);
      },
    },
    "POST /_form/{id}": {
      // A's form, submitted in the set-up without credentials, made A's verification (trace = form id): B cannot see it.
      foreign: (d) => d.formId,
      call: (id) => as(TENANT_B, "POST", "/getVerificationStatus", older(TENANT_B, { trace: id })),
      also: async (d) => expect((await as(TENANT_A, "POST", "/getVerificationStatus", older(TENANT_A, { trace: d.formId }))).status).toBe(200),
    },
    "GET /_sandbox": {
      call: () => as(TENANT_B, "GET", "/_sandbox"),
      also: async () => {
        // The page is the same for every tenant; its data comes from /_sandbox/state with the caller's credentials.
        expect((await as(TENANT_B, "GET", "/_sandbox")).text).toBe((await as(TENANT_A, "GET", "/_sandbox")).text);
        expect((await as(undefined, "GET", "/_sandbox")).status).toBe(401);
      },
    },
    "GET /_sandbox/state": {
      foreign: (d) => d.trace,
      call: (id) => as(TENANT_B, "GET", `/_sandbox/state?trace=${id}`),
      also: async (d) => {
        const all = await as(TENANT_B, "GET", "/_sandbox/state?limit=500");
        for (const id of Object.values(d)) expect(all.text).not.toContain(id);
        const cursor = (await as(TENANT_A, "GET", "/_sandbox/state?limit=1")).body.nextCursor as string;
        expect(cursor).toEqual(expect.any(String));
        // A cursor is sealed for its tenant: A's in B's hands is refused, and tells nothing of A's rows.
        const paged = await as(TENANT_B, "GET", `/_sandbox/state?cursor=${cursor}`);
        expect([paged.status, paged.body.message]).toEqual([400, "cursor is not one this sandbox gave."]);
        for (const id of Object.values(d)) expect(paged.text).not.toContain(id);
        const byUser = await as(TENANT_B, "GET", "/_sandbox/state?userId=follow-a");
        const unknown = await as(TENANT_B, "GET", "/_sandbox/state?userId=never-a-user");
        expect(shape(byUser, "follow-a")).toEqual(shape(unknown, "never-a-user"));
      },
    },
    "POST /_sandbox/verifications/{trace}/status": {
      foreign: (d) => d.trace,
      call: (id) => as(TENANT_B, "POST", `/_sandbox/verifications/${id}/status`, { verificationStatus: "verified" }),
    },
    "POST /_sandbox/clock": {
      call: () => as(TENANT_B, "POST", "/_sandbox/clock", { advanceMs: 3_600_000 }),
      also: async () => {
        const b = await as(TENANT_B, "GET", "/_sandbox/state");
        expect(b.body.clockOffsetMs).toBeGreaterThanOrEqual(3_600_000);
        expect((await as(TENANT_A, "GET", "/_sandbox/state")).body.clockOffsetMs).toBe(0);
      },
    },
    "GET /_sandbox/deliveries": {
      foreign: (d) => d.trace,
      call: (id) => as(TENANT_B, "GET", `/_sandbox/deliveries?trace=${id}`),
      also: async (d) => {
        const all = await as(TENANT_B, "GET", "/_sandbox/deliveries");
        for (const id of Object.values(d)) expect(all.text).not.toContain(id);
        // A cursor is sealed for its tenant and listing: A's in B's hands is refused; it holds no row id.
        const cursor = (await as(TENANT_A, "GET", "/_sandbox/deliveries?limit=1")).body.nextCursor as string;
        expect(cursor).toEqual(expect.any(String));
        expect(Buffer.from(cursor, "base64url").toString("latin1")).not.toMatch(/v1:|\d{3}/);
        const paged = await as(TENANT_B, "GET", `/_sandbox/deliveries?cursor=${cursor}`);
        expect([paged.status, paged.body.message]).toEqual([400, "cursor is not one this sandbox gave."]);
        for (const id of Object.values(d)) expect(paged.text).not.toContain(id);
        const byUser = await as(TENANT_B, "GET", "/_sandbox/deliveries?userId=follow-a");
        const unknown = await as(TENANT_B, "GET", "/_sandbox/deliveries?userId=never-a-user");
        expect(shape(byUser, "follow-a")).toEqual(shape(unknown, "never-a-user"));
      },
    },
    "POST /_sandbox/deliveries/{deliveryId}/resend": { foreign: (d) => d.deliveryId, call: (id) => as(TENANT_B, "POST", `/_sandbox/deliveries/${id}/resend`) },
    "GET /_sandbox/verifications": {
      call: () => as(TENANT_B, "GET", "/_sandbox/verifications"),
      also: async (d) => {
        const all = await as(TENANT_B, "GET", "/_sandbox/verifications");
        expect(all.status).toBe(200);
        for (const id of Object.values(d)) expect(all.text).not.toContain(id);
      },
    },
  };

  it("every route of the route table has an isolation case (a new route fails here until it has one)", async () => {
    const clock = new SandboxClock();
    const service = testService(sandbox.db, { clock });
    const handler = createHandler({
      binding,
      db: sandbox.db,
      accounts: [{ name: "x", credentials: TENANT_A.credentials, service, reads: new ControlReads(service.core), clock }],
      maxBodyBytes: 1,
      requestedActionsPath: "/requestedActions",
      baseUrl: () => url,
      wakeProcessing: () => {},
    });
    expect(Object.keys(CASES).sort()).toEqual(handler.routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  // One test a route, in the table's order; each after the set-up, each with B's credentials.
  for (const [route, c] of Object.entries(CASES)) {
    it(`${route}: tenant B with tenant A's ids gets exactly the answer of an id never created`, async () => {
      if (c.foreign) {
        // A listing filtered by A's id is an empty page; anything else naming it is the unknown id's 404.
        expect((await sameAsUnknown(c)).status).toBe(LISTINGS.has(route) ? 200 : 404);
      } else {
        expect((await c.call("")).status).toBeLessThan(500);
      }
      await c.also?.(a);
    });
  }

  it("tenant A's data is unchanged by everything tenant B did", async () => {
    const after = await snapshotA();
    // A's own resubmission (in the create case) is the one change A made: its verification moved to attempt 2.
    const strip = (s: typeof before) => ({
      ...s,
      verifications: s.verifications.filter((v: { trace: string }) => v.trace !== a.rejectedTrace),
      deliveries: s.deliveries.filter((x: { trace: string }) => x.trace !== a.rejectedTrace),
    });
    expect(strip(after)).toEqual(strip(before));
    expect(after.clockOffsetMs).toBe(0);
    expect(after.deliveries.filter((x: { resend: boolean }) => x.resend)).toEqual([]);
  });

  it("webhooks: each tenant's receiver gets only its deliveries, signed with its signing secret only", async () => {
    const aTraces = new Set((before.deliveries as { trace: string }[]).map((x) => x.trace));
    await until(() => rxB.deliveries.length >= 3, "tenant B's webhooks");
    for (const d of rxB.deliveries) expect(aTraces.has(JSON.parse(d.body).trace)).toBe(false);
    for (const [rx, own, other] of [
      [rxA, TENANT_A, TENANT_B],
      [rxB, TENANT_B, TENANT_A],
    ] as const) {
      for (const d of rx.deliveries.slice(0, 3)) {
        const ok = await verifyWebhook({ rawBody: d.body, headers: d.headers, secret: own.signingSecret, replayStore: new MemoryReplayStore() });
        expect(ok.version).toBe("2");
        await expect(
          verifyWebhook({ rawBody: d.body, headers: d.headers, secret: other.signingSecret, replayStore: new MemoryReplayStore() }),
        ).rejects.toThrow();
      }
    }
    const bTraces = new Set(rxB.deliveries.map((d) => JSON.parse(d.body).trace as string));
    for (const d of rxA.deliveries) expect(bTraces.has(JSON.parse(d.body).trace)).toBe(false);
  });

  it("bad credentials answer as they always did, whichever tenant's UID they name", async () => {
    const wrong = (uid: string) =>
      as(undefined, "GET", `/v5/verifications/${UNKNOWN}`, undefined, { authorization: basic({ serviceUid: uid, secret: "not-the-secret" }) });
    const known = await wrong(TENANT_A.credentials.serviceUid);
    const unknown = await wrong("uid-of-nobody");
    expect(known.status).toBe(401);
    expect(shape(known, TENANT_A.credentials.serviceUid)).toEqual(shape(unknown, "uid-of-nobody"));
    // A's UID with B's secret is no one's.
    expect(
      (
        await as(undefined, "GET", "/_sandbox/state", undefined, {
          authorization: basic({ serviceUid: TENANT_A.credentials.serviceUid, secret: TENANT_B.credentials.secret }),
        })
      ).status,
    ).toBe(401);
    const olderWrong = await as(undefined, "POST", "/getVerificationStatus", {
      metadata_version: "4",
      metadata_serviceUid: TENANT_A.credentials.serviceUid,
      metadata_secretKey: TENANT_B.credentials.secret,
      trace: UNKNOWN,
    });
    expect(olderWrong.status).toBe(known.status);
  });

  it("each request's log line names the tenant whose credentials it carried (no tenant for a refused or credential-less one)", async () => {
    await until(() => logs.some((l) => l.includes('"tenant":"team-b"')), "a request line of tenant B");
    const lines = logs.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { route: string; status: number; tenant?: string });
    expect(lines.filter((l) => l.tenant === "team-a").length).toBeGreaterThan(5);
    expect(lines.filter((l) => l.tenant === "team-b").length).toBeGreaterThan(5);
    expect(lines.filter((l) => l.status === 401).every((l) => l.tenant === undefined)).toBe(true);
    expect(lines.filter((l) => l.route === "/_form/{id}").every((l) => l.tenant === undefined)).toBe(true);
  });

  it("no secret of any tenant appears in a log line or an answer, in any encoding", () => {
    expect(answers.length).toBeGreaterThan(30);
    const said = [...logs, ...answers].join("\n");
    for (const secret of SECRETS)
      for (const form of encodings(secret)) expect(said.includes(form), `a secret (${form.length} chars) in the output`).toBe(false);
  });
}
