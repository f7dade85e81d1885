// The HTTP layer as it is made: createHandler reads its rules from the binding and builds its route table once,
// when the handler is made. The other in-process suites make it in beforeAll, outside any test, so what the
// making decides (the body's rules, the NUL refusal, the sole account, each route's authentication and shape,
// the default log) was reached by no test of its own. Each test here makes its own handler.
import { type ClientRequest, request as httpRequest, type RequestOptions } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { choice, choiceMessage } from "../../templates/sandbox/binding.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import { createHandler } from "../../templates/sandbox/server.js";
import { ControlReads } from "../../templates/sandbox/service/reads.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { basic, call, olderBody, request, v5Individual } from "./helpers.js";
import { binding, harness, testService, type Harness, useMemoryDb } from "./inprocess.js";

const FORM = "00000000-0000-4000-8000-000000000000";

let db: Db;
useMemoryDb((opened) => {
  db = opened;
});

/** A harness made inside the test that uses it, and closed after it. */
async function withHarness(test: (h: Harness) => Promise<void>): Promise<void> {
  const h = await harness(db, { dispatch: false });
  try {
    await test(h);
  } finally {
    await h.close();
  }
}

/** The status answered to a request node:http sends as given (a target or a length fetch would not send); `send` ends or holds it. */
function rawStatus(url: string, options: RequestOptions, send: (req: ClientRequest) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: new URL(url).port, ...options }, (res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      req.destroy();
    });
    req.on("error", reject);
    send(req);
  });
}

describe("the rules the handler reads when it is made", () => {
  it("an array over the bound is the validators' 422 at its path; a refused create names no path parameter", () =>
    withHarness(async (h) => {
      const r = await call(h.url, "POST", "/v5/verifications", { ...v5Individual("Wiring Person"), tags: Array(1001).fill("k:v") });
      expect([r.status, r.body.pathParams, r.body.error]).toEqual([
        422,
        {},
        { type: "validation_error", details: [{ message: "Too big: expected array to have <=1000 items", code: "too_big", path: ["tags"] }] },
      ]);
    }));

  it("NUL in text is the binding's refusal at its path, once where the schema refuses the same field", () =>
    withHarness(async (h) => {
      const nul = { code: choice<string>(binding.spec, "nulCharacter", "code"), message: choice<string>(binding.spec, "nulCharacter", "message") };
      const r = await call(h.url, "POST", "/v5/verifications", { ...v5Individual("Nul\u0000Person"), country: "A\u0000U" });
      expect(r.status).toBe(422);
      const details = r.body.error.details as { path: unknown[]; code: string; message: string }[];
      expect(details.filter((d) => d.path[0] === "country")).toHaveLength(1);
      expect(details.find((d) => d.path[0] === "country")!.code).not.toBe(nul.code);
      expect(details.filter((d) => d.path[0] === "name")).toEqual([{ ...nul, path: ["name"] }]);
    }));

  it("a body declared over the limit is refused before a byte of it arrives", () =>
    withHarness(async (h) => {
      const headers = { authorization: basic(), "content-type": "application/json", "content-length": "10485761" };
      expect(await rawStatus(h.url, { method: "POST", path: "/v5/verifications", headers }, (req) => req.flushHeaders())).toBe(413);
    }));

  it("a request target that no URL can be made of is 400, not 500", () =>
    withHarness(async (h) => {
      expect(await rawStatus(h.url, { method: "GET", path: "//", headers: { authorization: basic() } }, (req) => req.end())).toBe(400);
    }));

  it("without a log of its own, an internal error is one line on stderr, its path cut at 200 characters", () =>
    withHarness(async (h) => {
      const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      const get = vi.spyOn(h.service, "get").mockRejectedValueOnce(new TypeError("boom"));
      try {
        const path = `/v5/verifications/${"t".repeat(300)}`;
        const r = await call(h.url, "GET", path);
        expect(r.status).toBe(500);
        expect(write.mock.calls.map((c) => String(c[0]))).toEqual([
          `verispec sandbox: internal error ${r.body.trace} on GET ${path.slice(0, 200)}: TypeError: boom\n`,
        ]);
      } finally {
        get.mockRestore();
        write.mockRestore();
      }
    }));
});

describe("the route table the handler builds", () => {
  it("the page and every control-API route ask for credentials first: 401 with the challenge", () =>
    withHarness(async (h) => {
      const routes: [string, string][] = [
        ["GET", "/_sandbox"],
        ["GET", "/_sandbox/state"],
        ["POST", "/_sandbox/verifications/abc/status"],
        ["POST", "/_sandbox/clock"],
        ["GET", "/_sandbox/deliveries"],
        ["POST", "/_sandbox/deliveries/abc/resend"],
        ["GET", "/_sandbox/verifications"],
      ];
      for (const [method, path] of routes) {
        const r = await request(h.url, method, path, method === "POST" ? {} : undefined);
        expect([path, r.status, r.headers.get("www-authenticate")]).toEqual([path, 401, choice<string>(binding.spec, "authFailure", "challenge")]);
      }
      const page = await call(h.url, "GET", "/_sandbox");
      expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
      expect(page.text).toContain("<html");
    }));

  it("the hosted form answers its refusals as pages, and its id is a UUID", () =>
    withHarness(async (h) => {
      const json = await request(h.url, "POST", `/_form/${FORM}`, { a: 1 });
      expect([json.status, json.headers.get("content-type")]).toEqual([415, "text/html; charset=utf-8"]);
      const badEscape = await request(h.url, "GET", `/_form/${FORM}?q=%zz`);
      expect([badEscape.status, badEscape.headers.get("content-type")]).toEqual([400, "text/html; charset=utf-8"]);
      const notUuid = await request(h.url, "GET", "/_form/not-a-form-id");
      expect([notUuid.status, notUuid.text]).toEqual([404, expect.stringContaining("No route GET /_form/not-a-form-id.")]);
    }));
});

describe("the clock the handlers read again", () => {
  it("opening a hosted form reads its account's clock as stored now (another instance may have moved it)", () =>
    withHarness(async (h) => {
      const form = await request(
        h.url,
        "POST",
        "/idform",
        olderBody({
          metadata_userId: "wiring-form",
          serviceLink_dataAccessType: "idForm",
          type: "soleTrader",
          fields: { country: "AUS", name: "Wiring Trader", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
        }),
      );
      const refresh = vi.spyOn(h.service, "refreshClock");
      try {
        expect((await request(h.url, "GET", `/_form/${form.body.verificationUuid}`)).status).toBe(200);
        expect(refresh).toHaveBeenCalledTimes(1);
      } finally {
        refresh.mockRestore();
      }
    }));

  it("an advance the store refuses (another instance moved the clock meanwhile) is 400 with the room left as read again", () =>
    withHarness(async (h) => {
      const advance = vi.spyOn(h.service, "advanceClock").mockResolvedValueOnce(false);
      const refresh = vi.spyOn(h.service, "refreshClock");
      try {
        const r = await call(h.url, "POST", "/_sandbox/clock", { advanceMs: 1000 });
        const max = choice<number>(binding.spec, "controlApi", "maxClockOffsetMs");
        const text = choiceMessage(binding.spec, "controlApi", "advanceMs", { max: max - h.clock.offset });
        expect([r.status, r.body.error?.message ?? r.body.message]).toEqual([400, text]);
        // Once for the request's account, once after the refusal.
        expect(refresh).toHaveBeenCalledTimes(2);
      } finally {
        advance.mockRestore();
        refresh.mockRestore();
      }
    }));
});

describe("the clock of an answer given before credentials", () => {
  const DAY = 86_400_000;
  const accountOf = (name: string, uid: string, clock: SandboxClock) => {
    const service = testService(db, { clock, tenant: name });
    return { name, credentials: { serviceUid: uid, secret: `${uid}-secret` }, service, reads: new ControlReads(service.core), clock };
  };
  /** The timestamp of a 401 to a caller without credentials, from a handler over these accounts. */
  async function strangersTimestamp(accounts: ReturnType<typeof accountOf>[]): Promise<number> {
    const handler = createHandler({
      binding,
      db,
      accounts,
      maxBodyBytes: 1_000_000,
      requestedActionsPath: "/requestedActions",
      baseUrl: () => "http://127.0.0.1",
      wakeProcessing: () => {},
      log: () => {},
    });
    let answered = "";
    const res = {
      headersSent: false,
      writeHead: () => res,
      setHeader: () => {},
      end: (body: string) => {
        answered = body;
      },
    };
    await handler({ method: "GET", url: "/v5/verifications/abc", headers: {}, complete: true } as never, res as never);
    return Date.parse(JSON.parse(answered).timestamp);
  }

  it("is the sole account's, else real time (no account's offset is shown to a stranger)", async () => {
    const ahead = new SandboxClock(30 * DAY);
    const before = Date.now();
    expect(await strangersTimestamp([accountOf("default", "one-uid", ahead)])).toBeGreaterThanOrEqual(before + 30 * DAY);
    const stranger = await strangersTimestamp([accountOf("team-a", "a-uid", ahead), accountOf("team-b", "b-uid", new SandboxClock(60 * DAY))]);
    expect(stranger).toBeGreaterThanOrEqual(before);
    expect(stranger).toBeLessThan(before + DAY);
  });
});
