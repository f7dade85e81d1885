// `verispec sandbox` when it cannot start (issue 23, items 3 and 5): a port in use, an address that is
// not this machine's or does not resolve, a stored clock offset out of range. Each: one line naming the
// address (or the reset), exit 2, and the process ends (nothing left running keeps it alive).
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, StartError } from "../../templates/sandbox/index.js";
import { openStore } from "../../templates/sandbox/store/index.js";
import { basic, CREDENTIALS, ROOT, SIGNING_SECRET } from "./helpers.js";
import { binding, testService } from "./inprocess.js";

/** Runs `verispec sandbox ...args` to its end: exit code and output. */
function runCli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "generator/cli/bin.ts", "sandbox", ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      VERISPEC_SANDBOX_SERVICE_UID: CREDENTIALS.serviceUid,
      VERISPEC_SANDBOX_SECRET: CREDENTIALS.secret,
      VERISPEC_SIGNING_SECRET: SIGNING_SECRET,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("verispec sandbox cannot listen (item 5): one line, exit 2, the process ends", () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    port = (busy.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it("a port in use", async () => {
    const r = await runCli(["--db", "memory", "--port", String(port)]);
    expect([r.code, r.stderr]).toEqual([2, `verispec: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)\n`]);
    expect(r.stdout).not.toContain("listening");
  }, 120_000);
});

describe("startSandbox cannot listen: a StartError naming the address and the cause, nothing left running", () => {
  const options = {
    binding,
    port: 0,
    db: "memory",
    cwd: ROOT,
    webhookUrls: [],
    signatureVersion: "2" as const,
    processingMs: "manual" as const,
    requestedActionsPath: "/requestedActions",
    maxBodyBytes: 1_000_000,
    credentials: CREDENTIALS,
    signingSecret: SIGNING_SECRET,
    deliveryTimeoutMs: 2000,
    retryDelaysMs: [],
    log: () => {},
  };
  const refusal = (host: string) =>
    startSandbox({ ...options, host }).then(
      () => undefined,
      (err: unknown) => err as StartError,
    );

  it("an address that is not this machine's, and a host that does not resolve: not the database's words", async () => {
    const notMine = await refusal("192.0.2.1");
    expect([notMine?.name, notMine?.code, notMine?.message]).toEqual([
      "StartError",
      "VERISPEC_LISTEN",
      "cannot listen on 192.0.2.1:0: the address is not one of this machine's (EADDRNOTAVAIL)",
    ]);
    const bogus = await refusal("999.1.1.1");
    expect(bogus?.code).toBe("VERISPEC_LISTEN");
    expect(bogus?.message).toMatch(/^cannot listen on 999\.1\.1\.1:0: the host name does not resolve \((ENOTFOUND|EAI_AGAIN)\)$/);
  }, 120_000);
});

describe("a stored clock offset out of range (item 3): a start-up error naming the reset, not a crash loop", () => {
  const options = {
    binding,
    host: "127.0.0.1",
    port: 0,
    db: "memory",
    cwd: ROOT,
    webhookUrls: [],
    signatureVersion: "2" as const,
    processingMs: "manual" as const,
    requestedActionsPath: "/requestedActions",
    maxBodyBytes: 1_000_000,
    credentials: CREDENTIALS,
    signingSecret: SIGNING_SECRET,
    deliveryTimeoutMs: 2000,
    retryDelaysMs: [],
    log: () => {},
  };

  it("refuses to start with the offset the old control API let through; --reset-clock starts at real time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verispec-clock-"));
    try {
      const db = await openStore(dir, ROOT);
      await testService(db).setClockOffset(8_640_000_000_000_000);
      await db.close();
      const refused = await startSandbox({ ...options, db: dir }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(StartError);
      expect((refused as StartError).code).toBe("VERISPEC_CLOCK_RANGE");
      expect((refused as StartError).message).toBe(
        `the sandbox clock stored in PGlite in ${dir} is 8640000000000000 ms ahead, outside 0 to 3155760000000 ms: start once with --reset-clock to set it back to real time`,
      );
      const started = await startSandbox({ ...options, db: dir, resetClock: true });
      try {
        const answer = await fetch(`${started.url}/_sandbox/state`, { headers: { authorization: basic() } });
        expect((await answer.json()).clockOffsetMs).toBe(0);
      } finally {
        await started.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
