// Issue 38, part 3: `verispec conform --proxy`. The typed client's representative calls (create, GET, a
// validation error, the resubmission cycle to 474, a 475, the older interface) pass through the judging
// proxy in front of the sandbox with no finding; behind it, a deviating proxy changes one behaviour at a time
// and each is found and named. The sandbox runs in-process (test/sandbox/inprocess.ts).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadRuntime } from "../../generator/cli/commands/conform.js";
import { main } from "../../generator/cli/main.js";
import { startJudgingProxy, type RunningProxy } from "../../generator/conform/proxy.js";
import type { CheckResult } from "../../generator/conform/report.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { createClient, SubmissionConflictError, TooManyAttemptsError, ValidationError } from "../../generated/index.js";
import { call, CREDENTIALS, olderIndividual, ROOT, SIGNING_SECRET, v5Individual } from "../sandbox/helpers.js";
import { harness, memoryDb, type Harness } from "../sandbox/inprocess.js";
import { editJson, startProxy, type DeviatingProxy } from "./deviating-proxy.js";

let sandbox: Harness;
let deviating: DeviatingProxy;
let judging: RunningProxy;
const results: CheckResult[] = [];
const failed = () => results.filter((r) => r.outcome === "failed");
/** The results of exchanges judged so far: judging runs just after each answer is sent, so wait a tick. */
const settle = () => new Promise((r) => setTimeout(r, 30));

beforeAll(async () => {
  deviating = await startProxy();
  sandbox = await harness(await memoryDb(), { webhookUrls: [deviating.hookUrl] });
  deviating.upstream = sandbox.url;
  const model = modelFromSpec(`${ROOT}spec`);
  judging = await startJudgingProxy({
    host: "127.0.0.1",
    port: 0,
    upstream: new URL(deviating.url),
    model,
    rt: await loadRuntime(),
    onResult: (r) => results.push(r),
    maxBodyBytes: 4 << 20,
    maxDepth: 256,
  });
}, 120_000);

afterAll(async () => {
  await judging?.close();
  await sandbox?.close();
  await deviating?.close();
});

beforeEach(() => {
  results.length = 0;
  deviating.deviation = {};
});

const client = () => createClient({ baseUrl: judging.url, ...CREDENTIALS, retry: false });
const reject = (trace: string) => call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "rejected" });

describe("the typed client through the proxy in front of the sandbox: no finding", () => {
  it("create, GET, a validation error, the resubmission cycle to 474, a 475, the older interface", async () => {
    const c = client();
    const created = await c.v5.createVerification(v5Individual("Proxy Person", "proxy-user-1"));
    await c.v5.getVerification(created.trace!);
    const bad = { ...v5Individual("Ada"), website: "", identifiers: { abn: "123" } };
    expect(await c.v5.createVerification(bad).catch((e: unknown) => e)).toBeInstanceOf(ValidationError);
    const userId = "proxy-attempts";
    const { trace } = await c.v5.createVerification(v5Individual("Attempt Person", userId));
    for (let attempt = 1; attempt <= 5; attempt++) {
      await reject(trace!);
      await c.v5.getVerification(trace!);
      if (attempt < 5) {
        await c.v5.createVerification(v5Individual("Attempt Person", userId));
        await c.v5.getVerification(trace!);
        if (attempt === 2)
          expect(await c.v5.createVerification(v5Individual("Attempt Person", userId)).catch((e: unknown) => e)).toBeInstanceOf(SubmissionConflictError);
      }
    }
    expect(await c.v5.createVerification(v5Individual("Attempt Person", userId)).catch((e: unknown) => e)).toBeInstanceOf(TooManyAttemptsError);
    await c.verify(olderIndividual("Proxy", "proxy-older-1") as never);
    await settle();
    expect(failed()).toEqual([]);
    // The validation error is flagged on the client's side, with the 422 the service gives; the server's issues matched it.
    const flagged = results.filter((r) => r.outcome === "warned" && r.id.startsWith("client:"));
    // Every other warning is a field whose presence is not shown (never a failure).
    expect(results.filter((r) => r.outcome === "warned" && !r.id.startsWith("client:")).every((r) => r.id.endsWith("#presence-not-shown"))).toBe(true);
    expect(results.filter((r) => r.id.endsWith("#presence") && r.outcome === "held").length).toBeGreaterThan(15);
    expect(flagged).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^client:\d+:createVerification#request$/),
        operation: "client",
        got: expect.stringMatching(/^the service should answer 422 validation_error: \[/),
      }),
    ]);
    expect(results.filter((r) => r.id.endsWith("#errors") && r.outcome === "held")).toHaveLength(1);
    expect(results.filter((r) => r.id.endsWith("#resubmission") && r.outcome === "held").map((r) => r.expected)).toEqual([
      expect.stringMatching(/^HTTP 475 submission_conflict/),
      expect.stringMatching(/^HTTP 474 too_many_attempts/),
    ]);
    expect(results.filter((r) => r.id.endsWith("#content-type") && r.outcome === "held").length).toBeGreaterThan(15);
    expect(results.filter((r) => r.id.endsWith("#body") && r.outcome === "held").length).toBeGreaterThan(15);
  }, 60_000);

  it("forwards bytes as they are: the same answer through the proxy as direct, and the request as sent", async () => {
    const seen: { body: string; auth?: string; extra?: string }[] = [];
    const echo: Server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("latin1")));
      req.on("end", () => {
        seen.push({ body, auth: req.headers.authorization, extra: req.headers["x-extra"] as string });
        res.writeHead(200, { "content-type": "application/json", "x-upstream": "kept" }).end(`{ "spaced" :  1 }`);
      });
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    const p = await startJudgingProxy({
      host: "127.0.0.1",
      port: 0,
      upstream: new URL(`http://127.0.0.1:${(echo.address() as AddressInfo).port}`),
      model: modelFromSpec(`${ROOT}spec`),
      rt: await loadRuntime(),
      onResult: () => {},
      maxBodyBytes: 1 << 20,
      maxDepth: 256,
    });
    const raw = '{"name" :"Ad\\u0061",  "x":[1, 2]}\n';
    const r = await fetch(`${p.url}/v5/verifications`, {
      method: "POST",
      body: raw,
      headers: { authorization: "Basic abc", "x-extra": "1", "content-type": "application/json" },
    });
    expect(await r.text()).toBe(`{ "spaced" :  1 }`);
    expect(r.headers.get("x-upstream")).toBe("kept");
    expect(seen).toEqual([{ body: raw, auth: "Basic abc", extra: "1" }]);
    await p.close();
    echo.closeAllConnections();
    await new Promise((res) => echo.close(res));
  });
});

describe("what the proxy cannot know is not judged as a failure", () => {
  it("a request over the judging bound goes up whole; a refusal other than 422 for an invalid payload is not judged; a 475 expected from a stale GET is a warning", async () => {
    const seen: number[] = [];
    const sink: Server = createServer((req, res) => {
      let n = 0;
      req.on("data", (c: Buffer) => (n += c.length));
      req.on("end", () => (seen.push(n), res.writeHead(401, { "content-type": "application/json" }).end("{}")));
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    const got: CheckResult[] = [];
    const small = await startJudgingProxy({
      host: "127.0.0.1",
      port: 0,
      upstream: new URL(`http://127.0.0.1:${(sink.address() as AddressInfo).port}`),
      model: modelFromSpec(`${ROOT}spec`),
      rt: await loadRuntime(),
      onResult: (r) => got.push(r),
      maxBodyBytes: 1024,
      maxDepth: 256,
    });
    const big = JSON.stringify({ ...v5Individual("Big Body"), industry: "x".repeat(10_000) });
    expect((await fetch(`${small.url}/v5/verifications`, { method: "POST", body: big, headers: { "content-type": "application/json" } })).status).toBe(401);
    const invalid = JSON.stringify({ ...v5Individual("A"), website: "" });
    expect((await fetch(`${small.url}/v5/verifications`, { method: "POST", body: invalid, headers: { "content-type": "application/json" } })).status).toBe(401);
    await settle();
    await small.close();
    sink.closeAllConnections();
    await new Promise((r) => sink.close(r));
    expect(seen).toEqual([Buffer.byteLength(big), Buffer.byteLength(invalid)]);
    expect(got.filter((r) => r.id.endsWith("#status"))).toEqual([]);
    expect(got).toContainEqual(expect.objectContaining({ id: "client:2:createVerification#request", outcome: "warned" }));

    // Rejected through the control API, unseen by the proxy: the resubmission's 200 is only warned about.
    const c = client();
    const { trace } = await c.v5.createVerification(v5Individual("Stale Person", "proxy-stale"));
    await c.v5.getVerification(trace!);
    await reject(trace!);
    await c.v5.createVerification(v5Individual("Stale Person", "proxy-stale"));
    await settle();
    expect(failed()).toEqual([]);
    expect(results).toContainEqual(
      expect.objectContaining({
        id: expect.stringMatching(/#resubmission$/),
        outcome: "warned",
        got: expect.stringMatching(/^HTTP 200 \(the verification may have left pending since it was last seen through GET\)/),
      }),
    );
  }, 60_000);
});

const createPath = "/v5/verifications";
const isCreate = (m: string, p: string) => m === "POST" && p === createPath;

describe("deviating servers behind the proxy: each deviation found and named", () => {
  const cases: [string, DeviatingProxy["deviation"], () => Promise<unknown>, RegExp, RegExp][] = [
    [
      "201 for a created verification",
      { answer: (m, p, a) => (isCreate(m, p) && a.status === 200 ? { ...a, status: 201 } : a) },
      () =>
        client()
          .v5.createVerification(v5Individual("A B"))
          .catch(() => {}),
      /#status$/,
      /HTTP 201/,
    ],
    [
      "200 for an invalid payload",
      {
        answer: (m, p, a) =>
          isCreate(m, p) && a.status === 422 ? editJson(a, (b) => Object.assign(b, { statusCode: 200, status: "success", error: null }), 200) : a,
      },
      () => raw("POST", createPath, { ...v5Individual("A"), website: "" }),
      /#status$/,
      /HTTP 200/,
    ],
    [
      "an issue with another message",
      { answer: (m, p, a) => (isCreate(m, p) && a.status === 422 ? editJson(a, (b) => (b.error.details[0].message = "Something else.")) : a) },
      () => raw("POST", createPath, { ...v5Individual("A"), website: "" }),
      /#errors$/,
      /Something else\./,
    ],
    [
      "text/plain on a JSON answer",
      { answer: (_method, _path, a) => ({ ...a, headers: { ...a.headers, "content-type": "text/plain" } }) },
      () => raw("POST", createPath, v5Individual("A B")),
      /#content-type$/,
      /text\/plain/,
    ],
    [
      "statusCode 400 in an HTTP 422",
      { answer: (_method, _path, a) => (a.status === 422 ? editJson(a, (b) => (b.statusCode = 400)) : a) },
      () => raw("POST", createPath, { ...v5Individual("A"), website: "" }),
      /#status-code$/,
      /statusCode 400/,
    ],
    [
      "an envelope timestamp in the wrong format",
      { answer: (m, p, a) => (isCreate(m, p) && a.status === 200 ? editJson(a, (b) => (b.timestamp = "2026-01-01 00:00:00")) : a) },
      () => raw("POST", createPath, v5Individual("A B")),
      /#body$/,
      /timestamp/,
    ],
    [
      "an older error as text/plain",
      {
        answer: (_method, p, a) =>
          p === "/verify" && a.status === 422 ? { ...a, headers: { ...a.headers, "content-type": "text/plain" }, body: "Bad Request" } : a,
      },
      () =>
        raw("POST", "/verify", {
          metadata_version: "4",
          metadata_serviceUid: CREDENTIALS.serviceUid,
          metadata_secretKey: CREDENTIALS.secret,
          type: "individual",
          fields: {},
        }),
      /#error-json$/,
      /Bad Request/,
    ],
    [
      "no 474 after the cap",
      {
        answer: (m, p, a) =>
          isCreate(m, p) && a.status === 474 ? editJson(a, (b) => Object.assign(b, { statusCode: 200, status: "success", error: null }), 200) : a,
      },
      () => toTheCap("dev-474"),
      /#resubmission$/,
      /HTTP 200/,
    ],
    [
      "an attempt that goes back",
      {
        answer: (m, p, a) => (m === "GET" && p.startsWith(`${createPath}/`) && a.status === 200 && ++gets === 2 ? editJson(a, (b) => (b.data.attempt = 0)) : a),
      },
      () => twoGets("dev-attempt"),
      /#attempt$/,
      /attempt 0 after 1/,
    ],
    [
      "a status the table does not allow (removed, for no stakeholder)",
      {
        answer: (m, p, a) =>
          m === "GET" && p.startsWith(`${createPath}/`) && a.status === 200 && ++gets === 2 ? editJson(a, (b) => (b.data.verificationStatus = "removed")) : a,
      },
      () => twoGets("dev-removed"),
      /#transition$/,
      /pending -> removed/,
    ],
  ];
  let gets = 0;
  it.each(cases)(
    "%s",
    async (_name, deviation, drive, id, says) => {
      gets = 0;
      deviating.deviation = deviation;
      await drive();
      await settle();
      const named = failed().filter((r) => id.test(r.id) && says.test(r.got ?? ""));
      expect(named.length, JSON.stringify(failed().slice(0, 4))).toBeGreaterThan(0);
    },
    60_000,
  );
});

/** A request sent as it is through the judging proxy, with the sandbox's credentials. */
const raw = (method: string, path: string, body: unknown) =>
  fetch(`${judging.url}${path}`, {
    method,
    body: JSON.stringify(body),
    headers: {
      "content-type": "application/json",
      authorization: `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}`,
    },
  });

async function twoGets(userId: string): Promise<void> {
  const { trace } = (await (await raw("POST", createPath, v5Individual("Two Gets", userId))).json()) as { trace: string };
  await raw("GET", `${createPath}/${trace}`, undefined);
  await raw("GET", `${createPath}/${trace}`, undefined);
}

async function toTheCap(userId: string): Promise<void> {
  const { trace } = (await (await raw("POST", createPath, v5Individual("Cap Person", userId))).json()) as { trace: string };
  for (let attempt = 1; attempt <= 5; attempt++) {
    await reject(trace);
    if (attempt < 5) await raw("POST", createPath, v5Individual("Cap Person", userId));
  }
  await fetch(`${judging.url}${createPath}/${trace}`, {
    headers: { authorization: `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}` },
  });
  await raw("POST", createPath, v5Individual("Cap Person", userId));
}

describe("verispec conform --proxy, the command", () => {
  it("one line per finding as it happens (stderr with --format json), webhooks judged with --receive-on, the report at --duration", async () => {
    const receivePort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    deviating.receiverPort = receivePort;
    deviating.deviation = {
      webhook: (body, headers) => ({ body, headers: Object.fromEntries(Object.entries(headers).filter(([k]) => k !== "x-svc-signature-version")) }),
    };
    let stdout = "";
    let stderr = "";
    const env = { VERISPEC_CONFORM_SERVICE_UID: CREDENTIALS.serviceUid, VERISPEC_CONFORM_SECRET: CREDENTIALS.secret, VERISPEC_SIGNING_SECRET: SIGNING_SECRET };
    const running = main(
      ["conform", "--proxy", "127.0.0.1:0", deviating.url, "--duration", "3", "--format", "json", "--receive-on", `127.0.0.1:${receivePort}`],
      { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, cwd: ROOT, stdin: async () => "" },
    );
    const url = await new Promise<string>((resolve) => {
      const t = setInterval(() => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) {
          clearInterval(t);
          resolve(m[1]!);
        }
      }, 20);
    });
    const c = createClient({ baseUrl: url, ...CREDENTIALS, retry: false });
    await c.v5.createVerification(v5Individual("Command Person", "command-user"));
    expect(await running).toBe(1);
    const report = JSON.parse(stdout) as { summary: { failed: number; requests: number; webhooks: number }; checks: CheckResult[] };
    expect(report.summary.requests).toBe(1);
    expect(report.summary.webhooks).toBeGreaterThan(0);
    expect(report.checks.filter((c) => c.outcome === "failed").map((c) => c.id)).toEqual([expect.stringMatching(/^webhook:delivery-1#version-header$/)]);
    expect(stderr).toMatch(/\nFAIL webhook:delivery-1#version-header \[webhook\] expected a X-Svc-Signature-version header/);
    for (const out of [stdout, stderr]) {
      expect(out).not.toContain(CREDENTIALS.secret);
      expect(out).not.toContain(SIGNING_SECRET);
    }
  }, 60_000);
});

describe("verispec conform --proxy in front of a server that echoes the request: no secret in any format", () => {
  it("the credentials the client sends (HTTP Basic, metadata_secretKey) are redacted, none given in the environment", async () => {
    const secret = 'proxy-echo-secret/7+é"x<y>';
    const echo: Server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () =>
        res.writeHead(422, { "content-type": "application/json" }).end(
          JSON.stringify({
            statusCode: 400,
            message: body,
            auth: req.headers.authorization,
            encoded: encodeURIComponent(body),
            error: { type: "validation_error", details: [{ message: body, code: "custom", path: [] }] },
          }),
        ),
      );
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    const upstream = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    const token = Buffer.from(`echo-uid:${secret}`).toString("base64");
    const forms = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      encodeURIComponent(secret),
      token,
      secret.replace(/[<>"&]/g, (c) => `&${{ "<": "lt", ">": "gt", '"': "quot", "&": "amp" }[c]};`),
    ];
    try {
      for (const format of ["text", "json", "junit"]) {
        let [stdout, stderr] = ["", ""];
        const running = main(["conform", "--proxy", "127.0.0.1:0", upstream, "--duration", "1", "--format", format], {
          stdout: (t) => void (stdout += t),
          stderr: (t) => void (stderr += t),
          env: {},
          cwd: ROOT,
          stdin: async () => "",
        });
        const url = await new Promise<string>((resolve) => {
          const t = setInterval(() => {
            const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
            if (m) resolve((clearInterval(t), m[1]!));
          }, 10);
        });
        await createClient({ baseUrl: url, serviceUid: "echo-uid", secret, retry: false })
          .v5.createVerification(v5Individual("Echo Person"))
          .catch(() => {});
        await fetch(`${url}/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ metadata_version: "4", metadata_serviceUid: "echo-uid", metadata_secretKey: secret, type: "individual", fields: {} }),
        });
        expect(await running).toBe(1);
        for (const out of [stdout, stderr]) for (const f of forms) expect(out, `${format}: ${f}`).not.toContain(f);
        expect(stdout + stderr).toContain("[redacted]");
      }
    } finally {
      echo.closeAllConnections();
      await new Promise((r) => echo.close(r));
    }
  }, 60_000);
});
