// Nothing a caller sends stops or corrupts the sandbox (issue 23, items 1-3, 13, 14): malformed
// percent-escapes, NUL in text the store compares or keeps, body credentials that are not strings, control
// values out of range; the older endpoints' credentials are never stored; a 401 never names the account.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createHandler } from "../../templates/sandbox/server.js";
import { withoutCredentials } from "../../templates/sandbox/service.js";
import { ControlReads } from "../../templates/sandbox/service/reads.js";
import { DEFAULT_TENANT, type Db } from "../../templates/sandbox/store/index.js";
import { migrate } from "../../templates/sandbox/store/migrations.js";
import { basic, CREDENTIALS, olderIndividual, request, v5Individual, type Answer, olderBody as older } from "./helpers.js";
import { binding, harness, memoryDb, type Harness } from "./inprocess.js";
import type { Loose } from "../support/loose.js";

let db: Db;
let h: Harness;

beforeAll(async () => {
  db = await memoryDb();
  h = await harness(db, { dispatch: false });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await db?.close();
});

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  request(h.url, method, path, body, headers);
const authed = (method: string, path: string, body?: unknown) => send(method, path, body, { authorization: basic() });

/** A request with the path sent byte for byte (fetch would normalise some escapes). */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Loose }> {
  const { port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "GET", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const MALFORMED = "The request path or query has a malformed percent-escape.";
const NUL = { message: "Invalid string: must not contain the NUL character (U+0000)", code: "invalid_format" };

describe("malformed percent-escapes (item 1): 400 in the interface's shape, before or after authentication", () => {
  const paths = [
    "/v5/verifications/%E0%A4%A", // a truncated UTF-8 sequence: the one that killed the process
    "/v5/verifications/%FF", // not UTF-8
    "/v5/verifications/%zz",
    "/v5/%E0%A4%A",
  ];
  for (const path of paths) {
    it(`${path}: the v5 envelope, unauthenticated and authenticated`, async () => {
      for (const headers of [{}, { authorization: basic() }] as Record<string, string>[]) {
        const r = await raw(path, headers);
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({
          statusCode: 400,
          status: "error",
          path,
          message: MALFORMED,
          error: { code: "bad_request", message: MALFORMED, help: null },
        });
      }
    });
  }
  for (const path of [
    "/_sandbox/verifications/%FF/status",
    "/_sandbox/deliveries/%E0%A4%A/resend",
    "/_sandbox/deliveries?trace=%E0%A4%A",
    "/verify?x=%",
    "/%C0%AF",
    "/nowhere%",
    "/nowhere%4",
  ]) {
    it(`${path}: the older shape`, async () => {
      const r = await raw(path, { authorization: basic() });
      expect(r).toEqual({ status: 400, body: { status: "error", statusCode: 400, type: "bad_request", message: MALFORMED, details: [] } });
    });
  }
  it("an unknown path of the control API asks for credentials before it is told apart: 401 without them, 404 with", async () => {
    for (const [method, path] of [
      ["GET", "/_sandbox/nowhere"],
      ["POST", "/_sandbox"],
      ["DELETE", "/_sandbox/state"],
    ] as const) {
      expect([method, path, (await send(method, path)).status]).toEqual([method, path, 401]);
      expect([method, path, (await authed(method, path)).status]).toEqual([method, path, 404]);
    }
    // Outside it, an unknown path is 404 with or without credentials.
    expect((await send("GET", "/_sandboxes")).status).toBe(404);
  });

  it("the sandbox answers the next request after each", async () => {
    await raw("/v5/verifications/%E0%A4%A");
    expect((await authed("POST", "/v5/verifications", v5Individual("Still Here"))).status).toBe(200);
  });
});

describe("NUL in text (item 2): 422 at the field's path, the way the validators report a bad character", () => {
  it("v5 create: name, userId, and a string deep in the body; nothing is stored", async () => {
    const before = await db.query("SELECT count(*)::int AS n FROM verifications");
    const r = await authed("POST", "/v5/verifications", { ...v5Individual("A\u0000B", "user\u0000"), tags: ["ok", "t\u0000"] });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe("Validation error");
    expect(r.body.error.type).toBe("validation_error");
    expect(r.body.error.details).toEqual([
      { ...NUL, path: ["name"] },
      { ...NUL, path: ["userId"] },
      { ...NUL, path: ["tags", 1] },
    ]);
    expect(await db.query("SELECT count(*)::int AS n FROM verifications")).toEqual(before);
  });

  it("a key holding NUL is reported at its own path", async () => {
    const r = await authed("POST", "/v5/verifications", { ...v5Individual("Key Person"), ["k\u0000"]: 1 });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([{ ...NUL, path: ["k\u0000"] }]);
  });

  it("GET /v5/verifications/:trace with NUL in the trace", async () => {
    const r = await authed("GET", "/v5/verifications/a%00b");
    expect(r.status).toBe(422);
    expect(r.body.pathParams).toEqual({ trace: "a\u0000b" });
    expect(r.body.error).toEqual({ type: "validation_error", details: [{ ...NUL, path: ["trace"] }] });
  });

  it("the older endpoints: userId, trace, verificationUuid, metadata_userId", async () => {
    const cases: [string, Record<string, unknown>, (string | number)[]][] = [
      ["/getVerificationStatus", { trace: "t\u0000" }, ["trace"]],
      ["/getVerificationStatus", { userId: "u\u0000" }, ["userId"]],
      ["/requestedActions", { verificationUuid: "v\u0000", requestedActions: [] }, ["verificationUuid"]],
      ["/verify", olderIndividual("Nul", "older\u0000"), ["metadata_userId"]],
    ];
    for (const [path, body, at] of cases) {
      const r = await send("POST", path, older(body));
      expect(r.status, path).toBe(422);
      expect(r.body.type).toBe("validation_error");
      expect(r.body.details).toContainEqual({ ...NUL, path: at });
    }
  });

  it("the control API: a trace, a status, a deliveries query, a deliveryId", async () => {
    const cases: [string, string, unknown, string][] = [
      ["POST", "/_sandbox/verifications/a%00/status", { verificationStatus: "verified" }, "trace"],
      ["POST", "/_sandbox/verifications/a/status", { verificationStatus: "ver\u0000ified" }, "verificationStatus"],
      ["GET", "/_sandbox/deliveries?trace=a%00", undefined, "trace"],
      ["POST", "/_sandbox/deliveries/d%00/resend", {}, "deliveryId"],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await authed(method, path, body);
      expect(r.status, path).toBe(422);
      expect(r.body).toEqual({ status: "error", statusCode: 422, type: "validation_error", message: "Validation error", details: [{ ...NUL, path: [field] }] });
    }
  });

  it("the hosted form's fields", async () => {
    const made = await send(
      "POST",
      "/idform",
      older({ metadata_userId: "form-nul", serviceLink_dataAccessType: "idForm", type: "soleTrader", fields: { country: "AUS", name: "Nul Trader" } }),
    );
    expect(made.status).toBe(200);
    const r = await fetch(`${h.url}/_form/${made.body.verificationUuid}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "fields.name=a%00b",
    });
    expect(r.status).toBe(422);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await h.service.get(made.body.verificationUuid)).toBeUndefined();
  });
});

describe("other refusals that were 500s (item 2)", () => {
  it("a body credential that is not a string (metadata_secretKey: {toString}) is 401, unauthenticated", async () => {
    for (const bad of [{ toString: "x" }, { valueOf: 1 }, ["x"], 42, null]) {
      const r = await send("POST", "/verify", { ...older(olderIndividual("Creds")), metadata_secretKey: bad });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({
        status: "error",
        statusCode: 401,
        type: "unauthorized",
        message: "Authentication failed: wrong or missing credentials.",
        details: [],
      });
    }
    const uid = await send("POST", "/verify", { ...older(olderIndividual("Creds")), metadata_serviceUid: { toString: "x" } });
    expect(uid.status).toBe(401);
  });

  it("a control-API body that is not an object is 400", async () => {
    const { trace } = await h.service.createV5(v5Individual("Null Body") as never);
    for (const path of ["/_sandbox/clock", `/_sandbox/verifications/${trace}/status`]) {
      for (const body of ["null", "[]", "3", '"x"']) {
        const r = await authed("POST", path, body);
        expect(r).toMatchObject({
          status: 400,
          body: { status: "error", statusCode: 400, type: "bad_request", message: "The request body must be a JSON object.", details: [] },
        });
      }
    }
  });

  it("maxAttempts beyond 32 bits is 400 and changes nothing", async () => {
    const { trace } = await h.service.createV5(v5Individual("Big Attempts") as never);
    const before = await h.service.get(trace);
    const r = await authed("POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "rejected", maxAttempts: 3_000_000_000 });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("maxAttempts must be an integer from 1 to 2147483647.");
    expect(await h.service.get(trace)).toEqual(before);
    const edge = await authed("POST", `/_sandbox/verifications/${trace}/status`, {
      verificationStatus: "rejected",
      maxAttempts: 2_147_483_647,
      trigger: "complete",
    });
    expect(edge.status).toBe(200);
    expect(edge.body.maxAttempts).toBe(2_147_483_647);
  });

  it("a body nested deeper than 64 levels is 400, 64 levels are accepted (the store's JSON.stringify would overflow the stack)", async () => {
    const deep = `{"type":"individual","name":"Deep","extra":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const r = await authed("POST", "/v5/verifications", deep);
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({ code: "bad_request", message: "The request body is nested deeper than 64 levels.", help: null });
    // The limit itself: 64 levels (the object and 63 arrays) are accepted, 65 are not.
    const nested = (n: number) =>
      `{"type":"individual","subType":"data","name":"Nested","website":"https://example.com","extra":${"[".repeat(n)}${"]".repeat(n)}}`;
    expect((await authed("POST", "/v5/verifications", nested(63))).status).toBe(200);
    expect((await authed("POST", "/v5/verifications", nested(64))).status).toBe(400);
  });
});

describe("the control API's bounds (item 3)", () => {
  it("the clock moves at most 100 years ahead; past that is 400 and creates keep working", async () => {
    const r = await authed("POST", "/_sandbox/clock", { advanceMs: 8_640_000_000_000_000 });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^advanceMs must be an integer from 0 to \d+: the sandbox clock runs at most 100 years ahead of real time\.$/);
    expect(h.clock.offset).toBe(0);
    const max = 3_155_760_000_000;
    const full = await authed("POST", "/_sandbox/clock", { advanceMs: max });
    expect(full.status).toBe(200);
    expect(full.body.clockOffsetMs).toBe(max);
    expect((await authed("POST", "/_sandbox/clock", { advanceMs: 1 })).status).toBe(400);
    const created = await authed("POST", "/v5/verifications", v5Individual("Far Future"));
    expect(created.status).toBe(200);
    expect(Date.parse(created.body.timestamp)).toBeGreaterThan(Date.now() + max - 60_000);
    h.clock.set(0);
    await h.service.setClockOffset(0);
  });
});

describe("credentials (items 13, 14)", () => {
  it("a 401 envelope echoes the serviceUid the caller sent, or the empty string; never the configured one", async () => {
    const wrong = await send("POST", "/v5/verifications", v5Individual("X"), { authorization: basic({ serviceUid: "caller-uid", secret: "nope" }) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.serviceUid).toBe("caller-uid");
    const none = await send("GET", "/v5/verifications/abc");
    expect(none.status).toBe(401);
    expect(none.body.serviceUid).toBe(""); // every v5 envelope carries the field (the service's specification, section 2.11)
    for (const r of [wrong, none, await send("GET", "/v5/nothing-here"), await raw("/v5/verifications/%FF")]) {
      expect(JSON.stringify(r.body)).not.toContain(CREDENTIALS.serviceUid);
    }
    const ok = await authed("POST", "/v5/verifications", v5Individual("Uid Person"));
    expect(ok.body.serviceUid).toBe(CREDENTIALS.serviceUid);
  });

  it("the older endpoints' requests are stored without metadata_serviceUid and metadata_secretKey, in no table", async () => {
    const verified = await send("POST", "/verify", older(olderIndividual("Stored", "stored-user")));
    expect(verified.status).toBe(200);
    const form = await send(
      "POST",
      "/idform",
      older({ metadata_userId: "stored-form", serviceLink_dataAccessType: "idForm", type: "soleTrader", fields: { country: "AUS", name: "Stored Trader" } }),
    );
    expect(form.status).toBe(200);
    const v = await h.service.get(verified.body.trace);
    expect(v!.request).toEqual({ metadata_version: "4", ...olderIndividual("Stored", "stored-user") });
    for (const table of ["verifications", "forms", "outbox", "history", "sandbox_meta"]) {
      const text = JSON.stringify(await db.query(`SELECT * FROM ${table}`));
      expect(text, table).not.toContain(CREDENTIALS.secret);
      expect(text, table).not.toContain("metadata_secretKey");
    }
  });

  it("withoutCredentials drops exactly the named keys", () => {
    expect(
      withoutCredentials({ a: 1, metadata_secretKey: "s", metadata_serviceUid: "u", b: { metadata_secretKey: "kept: not a credential here" } }, [
        "metadata_serviceUid",
        "metadata_secretKey",
      ]),
    ).toEqual({ a: 1, b: { metadata_secretKey: "kept: not a credential here" } });
  });

  it("migration 4 drops the credentials from requests stored before it", async () => {
    const old = await memoryDb();
    try {
      await old.query("DELETE FROM schema_migrations WHERE version = 4");
      const body = JSON.stringify({
        metadata_version: "4",
        metadata_serviceUid: "uid",
        metadata_secretKey: "plain-secret",
        type: "individual",
        fields: { name: "x" },
      });
      await old.query(
        "INSERT INTO verifications (trace, api, submission_id, type, name, request, verification_status, submission_status, attempt, outcome, created_at, updated_at) VALUES ('t1', 'older', 's', 'individual', 'x', $1, 'pending', 'submitted', 1, 'verified', 0, 0)",
        [body],
      );
      await old.query("INSERT INTO forms (id, request, created_at) VALUES ('f1', $1, 0)", [body]);
      await migrate(old);
      for (const table of ["verifications", "forms"]) {
        const [row] = await old.query(`SELECT request FROM ${table}`);
        expect(JSON.parse(String(row!.request)), table).toEqual({ metadata_version: "4", type: "individual", fields: { name: "x" } });
      }
    } finally {
      await old.close();
    }
  });
});

describe("the process guard (item 4)", () => {
  let server: Server;
  let url: string;
  const lines: string[] = [];
  beforeAll(async () => {
    const handler = createHandler({
      binding,
      db,
      accounts: [{ name: DEFAULT_TENANT, service: h.service, reads: new ControlReads(h.service.core), clock: h.clock, credentials: CREDENTIALS }],
      maxBodyBytes: 1_000_000,
      requestedActionsPath: "/requestedActions",
      baseUrl: () => url,
      wakeProcessing: () => {},
      log: (line) => lines.push(line),
      debug: true,
    });
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("with --debug the one log entry carries the stack; the older shape names the request id", async () => {
    const spy = vi.spyOn(h.service, "latestOlder").mockRejectedValueOnce(new Error("kaput"));
    try {
      const r = await request(url, "POST", "/getVerificationStatus", older({ trace: "x" }));
      expect(r.status).toBe(500);
      const id = /request id ([0-9a-f-]{36})/.exec(r.body.message)?.[1];
      expect(r.body).toEqual({ status: "error", statusCode: 500, type: "internal_error", message: `Internal sandbox error (request id ${id}).`, details: [] });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^internal error ${id} on POST /getVerificationStatus: Error: kaput\\n\\s+at `));
    } finally {
      spy.mockRestore();
    }
  });

  it("an error while answering an error (the envelope's clock) still answers 500 in a JSON shape", async () => {
    const now = vi.spyOn(h.clock, "now").mockReturnValue(Number.MAX_VALUE);
    try {
      const r = await request(url, "GET", "/v5/verifications/x");
      expect(r.status).toBe(500);
      expect(r.body).toMatchObject({ status: "error", statusCode: 500, type: "internal_error" });
    } finally {
      now.mockRestore();
    }
    expect((await request(url, "GET", "/v5/verifications/x", undefined, { authorization: basic() })).status).toBe(404);
  });
});
