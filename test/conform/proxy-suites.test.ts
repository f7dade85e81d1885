// Issue 38, part 3, proven as the issue asks: `verispec conform --proxy` (the command, as a child process) in
// front of `verispec sandbox`, with real clients pointed at it: the README tour's own programs (client.js,
// receiver.js, taken from README.md as the tour test takes them) and the client suites that drive the
// sandbox with the generated client (run again by vitest with every sandbox they start behind a proxy).
// The proxy judges every exchange and, with --receive-on, every webhook: nothing fails. Then a deviating
// server between the proxy and the sandbox makes the same tour traffic fail with the named checks.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CheckResult } from "../../generator/conform/report.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { docSection } from "../support/docs.js";
import { CREDENTIALS, ROOT, SIGNING_SECRET, startSandbox, until } from "../sandbox/helpers.js";
import { editJson, startProxy } from "./deviating-proxy.js";
import { startConformProxy, THROUGH_PROXY, type ProxyRun } from "./through-proxy.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The tour's file `name` as README.md shows it. */
function tourFile(name: string): string {
  const m = new RegExp(`<!-- tour-file: ${name.replace(".", "\\.")} -->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(docSection("tour"));
  if (!m) throw new Error(`the tour has no ${name}`);
  return m[1]!;
}

/** A directory holding the tour's client.js and receiver.js (pointed at `baseUrl` and `receiverPort`) and ./generated. */
function tourDir(baseUrl: string, receiverPort: number): string {
  const dir = tempDir("verispec-proxy-tour-");
  const client = tourFile("client.js");
  const receiver = tourFile("receiver.js");
  expect(client).toContain("http://127.0.0.1:4010");
  expect(receiver).toContain(".listen(3000,");
  writeFileSync(join(dir, "client.js"), client.replace("http://127.0.0.1:4010", baseUrl));
  writeFileSync(join(dir, "receiver.js"), receiver.replace(".listen(3000,", `.listen(${receiverPort},`).replace(":3000/", `:${receiverPort}/`));
  writeFileSync(join(dir, "package.json"), `{ "type": "module" }\n`);
  symlinkSync(join(ROOT, "generated"), join(dir, "generated"));
  return dir;
}

const tourEnv = {
  ...process.env,
  VERISPEC_SANDBOX_SERVICE_UID: CREDENTIALS.serviceUid,
  VERISPEC_SANDBOX_SECRET: CREDENTIALS.secret,
  VERISPEC_SIGNING_SECRET: SIGNING_SECRET,
};

/** The tour's receiver running in `dir`; its output so far in `out.text`. */
async function runReceiver(dir: string) {
  const child = spawn(process.execPath, ["receiver.js"], { cwd: dir, env: tourEnv, stdio: ["ignore", "pipe", "pipe"] });
  const out = { text: "" };
  child.stdout.on("data", (c: Buffer) => (out.text += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (out.text += c.toString("utf8")));
  await until(() => out.text.includes("receiver listening"), "the tour's receiver");
  return { out, stop: () => child.kill("SIGTERM") };
}

/** The tour's client run in `dir` (asynchronously: a deviating server of this process must keep answering). */
const runClient = (dir: string) =>
  new Promise<{ stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ["client.js"], { cwd: dir, env: tourEnv, encoding: "utf8", timeout: 60_000 }, (_, stdout, stderr) =>
      resolve({ stdout, stderr }),
    ),
  );

const failedOf = (run: ProxyRun) => run.report.checks.filter((c) => c.outcome === "failed");
const heldOps = (checks: readonly CheckResult[]) => new Set(checks.filter((c) => c.outcome === "held").map((c) => c.operation));

describe("the README tour's programs through conform --proxy in front of the sandbox", { timeout: 180_000 }, () => {
  it("every exchange and every webhook judged, nothing failed; the programs see what they see without the proxy", async () => {
    const [receiverPort, receiveOn] = [await freePort(), await freePort()];
    const sandbox = await startSandbox([
      "--db",
      "memory",
      "--webhook-url",
      `http://127.0.0.1:${receiverPort}/webhooks`,
      "--webhook-url",
      `http://127.0.0.1:${receiveOn}/`,
    ]);
    const proxy = await startConformProxy(sandbox.url, ["--receive-on", `127.0.0.1:${receiveOn}`]);
    const dir = tourDir(proxy.url, receiverPort);
    const receiver = await runReceiver(dir);
    let run: ProxyRun;
    try {
      const client = await runClient(dir);
      expect(client.stderr).toBe("");
      expect(client.stdout).toMatch(/^created [0-9a-f-]{36}: pending\n$/);
      // The tour's receiver prints both webhooks: the initial one and, a second later, the result.
      await until(() => (receiver.out.text.match(/^verified webhook/gm) ?? []).length === 2, "both webhooks at the tour's receiver", 30_000);
      await new Promise((r) => setTimeout(r, 300)); // the same two at the proxy's receiver
    } finally {
      run = await proxy.stop();
      receiver.stop();
      await sandbox.stop();
    }
    expect(receiver.out.text).toMatch(
      /verified webhook \(signature version 2\): pending, processing\nverified webhook \(signature version 2\): verified, verified\n/,
    );
    expect(failedOf(run), run.stderr).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.report.summary).toMatchObject({ requests: 2, webhooks: 2, failed: 0 });
    expect(run.report.summary.held).toBeGreaterThan(10);
    expect([...heldOps(run.report.checks)].sort()).toEqual(["createVerification", "getVerification", "webhook"]);
    // Each exchange is judged: the answer's status, content type and schema, for both calls.
    for (const [n, op] of [
      [1, "createVerification"],
      [2, "getVerification"],
    ] as const)
      for (const what of ["content-type", "status-code", "body", "presence"])
        expect(run.report.checks, `${n} ${what}`).toContainEqual(expect.objectContaining({ id: `proxy:${n}:${op}#${what}`, outcome: "held" }));
    const out = JSON.stringify(run) + receiver.out.text;
    for (const secret of [CREDENTIALS.secret, SIGNING_SECRET, Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")])
      expect(out).not.toContain(secret);
  });

  it("with a deviating server behind the proxy, the same traffic fails with the named checks (an envelope without timestamp, a webhook without its version header)", async () => {
    const [receiverPort, receiveOn] = [await freePort(), await freePort()];
    const deviating = await startProxy();
    deviating.receiverPort = receiveOn;
    deviating.deviation = {
      answer: (m, p, a) => (m === "POST" && p === "/v5/verifications" && a.status === 200 ? editJson(a, (b) => delete b.timestamp) : a),
      webhook: (body, headers) => ({ body, headers: Object.fromEntries(Object.entries(headers).filter(([k]) => k !== "x-svc-signature-version")) }),
    };
    const sandbox = await startSandbox(["--db", "memory", "--webhook-url", `http://127.0.0.1:${receiverPort}/webhooks`, "--webhook-url", deviating.hookUrl]);
    deviating.upstream = sandbox.url;
    const proxy = await startConformProxy(deviating.url, ["--receive-on", `127.0.0.1:${receiveOn}`]);
    const dir = tourDir(proxy.url, receiverPort);
    const receiver = await runReceiver(dir);
    let run: ProxyRun;
    try {
      // The client does not validate answers unless asked: the tour's program goes on as before.
      expect((await runClient(dir)).stdout).toMatch(/^created [0-9a-f-]{36}: pending\n$/);
      await until(() => (receiver.out.text.match(/^verified webhook/gm) ?? []).length === 2, "both webhooks at the tour's receiver", 30_000);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      run = await proxy.stop();
      receiver.stop();
      await sandbox.stop();
      await deviating.close();
    }
    expect(run.code).toBe(1);
    const failed = failedOf(run);
    expect(failed).toContainEqual(expect.objectContaining({ id: "proxy:1:createVerification#presence", got: expect.stringContaining("timestamp") }));
    // Nothing else: the schema names the same missing field; both webhooks lack the header.
    expect(failed.map((c) => c.id).sort()).toEqual([
      "proxy:1:createVerification#body",
      "proxy:1:createVerification#presence",
      "webhook:delivery-1#version-header",
      "webhook:delivery-2#version-header",
    ]);
    expect(failed[0]!.got).toMatch(/^timestamp: /);
    // One line per finding as it happened, on stderr beside the JSON report.
    expect(run.stderr).toMatch(/^FAIL proxy:1:createVerification#presence \[createVerification\]/m);
    expect(run.stderr).toMatch(/^FAIL webhook:delivery-\d+#version-header \[webhook\]/m);
  });
});

/** The client suites that drive `verispec sandbox` (test/sandbox/helpers.ts's startSandbox) with the generated client. */
const SUITES = ["test/sandbox/sandbox.test.ts", "test/sandbox/receiver.test.ts"];

describe("the client suites against the sandbox, run again with a conform --proxy in front of every sandbox", () => {
  it("they pass unchanged through the proxy, and its reports judge every exchange: nothing failed, every operation seen", async () => {
    const dir = tempDir("verispec-proxy-suites-");
    const vitest = await new Promise<{ status: number; out: string }>((resolve) => {
      const env = { ...process.env, [THROUGH_PROXY]: dir, VITEST: undefined, VITEST_WORKER_ID: undefined, VITEST_POOL_ID: undefined };
      execFile(
        process.execPath,
        [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--hookTimeout=300000", "--testTimeout=180000", "--no-file-parallelism", ...SUITES],
        { cwd: ROOT, env, encoding: "utf8", timeout: 900_000, maxBuffer: 64 << 20 },
        (e, stdout, stderr) => resolve({ status: e ? ((e as { code?: number }).code ?? -1) : 0, out: `${stdout.slice(-3000)}${stderr.slice(-2000)}` }),
      );
    });
    expect(vitest.status, vitest.out).toBe(0);
    const runs = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as ProxyRun & { suite: string });
    // One proxy per sandbox the suites start: sandbox.test.ts two, receiver.test.ts one per signature version.
    expect(runs.map((r) => r.suite.slice(ROOT.length)).sort()).toEqual([
      "test/sandbox/receiver.test.ts",
      "test/sandbox/receiver.test.ts",
      "test/sandbox/sandbox.test.ts",
      "test/sandbox/sandbox.test.ts",
    ]);
    for (const run of runs) {
      expect(failedOf(run), `${run.suite}: ${run.stderr.slice(0, 2000)}`).toEqual([]);
      expect(run.report.summary.requests).toBeGreaterThan(0);
      expect(run.report.summary.held).toBeGreaterThan(0);
    }
    const checks = runs.flatMap((r) => r.report.checks);
    expect(runs.reduce((n, r) => n + r.report.summary.requests, 0)).toBeGreaterThan(60);
    // Every operation of the specification was seen and judged (the follow-up request at the sandbox's path for it).
    const operations = modelFromSpec(join(ROOT, "spec")).endpoints.map((e) => e.operationId);
    expect([...heldOps(checks)].sort()).toEqual([...new Set(operations)].sort());
    for (const op of operations)
      expect(checks.filter((c) => c.operation === op && c.id.endsWith("#content-type") && c.outcome === "held").length, op).toBeGreaterThan(0);
    for (const secret of [CREDENTIALS.secret, SIGNING_SECRET]) expect(JSON.stringify(runs)).not.toContain(secret);
  }, 900_000);
});
