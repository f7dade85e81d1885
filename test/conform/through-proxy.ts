// Test support: `verispec conform --proxy` as a child process (the command a team runs, from the sources)
// in front of an upstream, and its JSON report once it is stopped. With VERISPEC_TEST_THROUGH_PROXY naming a
// directory, test/sandbox/helpers.ts's startSandbox puts such a proxy in front of every sandbox it starts:
// a client suite then talks to the proxy only, and each proxy's report is written into that directory for
// test/conform/proxy-suites.test.ts to judge.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { CheckResult, Summary } from "../../generator/conform/report.js";
import { CREDENTIALS, ROOT, SIGNING_SECRET, type Sandbox } from "../sandbox/helpers.js";

export const THROUGH_PROXY = "VERISPEC_TEST_THROUGH_PROXY";

export interface ProxyReport {
  readonly summary: Summary;
  readonly checks: CheckResult[];
}

export interface ProxyRun {
  readonly code: number | null;
  readonly report: ProxyReport;
  /** The findings as they happened (one line each) and the start line. */
  readonly stderr: string;
}

export interface ConformProxy {
  readonly url: string;
  /** SIGTERM, as Ctrl-C: the proxy writes its report and exits. */
  stop(): Promise<ProxyRun>;
}

/** Starts `verispec conform --proxy 127.0.0.1:0 <upstream> --format json [...args]` and resolves at its start line. */
export async function startConformProxy(upstream: string, args: readonly string[] = []): Promise<ConformProxy> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "generator/cli/bin.ts", "conform", "--proxy", "127.0.0.1:0", upstream, "--format", "json", ...args],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        VERISPEC_CONFORM_SERVICE_UID: CREDENTIALS.serviceUid,
        VERISPEC_CONFORM_SECRET: CREDENTIALS.secret,
        VERISPEC_SIGNING_SECRET: SIGNING_SECRET,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (c: Buffer) => (out.stdout += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => (out.stderr += c.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`conform --proxy did not start: ${out.stderr}`)), 120_000);
    child.stderr!.on("data", () => {
      const m = /conform --proxy listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => reject(new Error(`conform --proxy exited ${code}: ${out.stderr}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const code = await exited;
      let report: ProxyReport;
      try {
        report = JSON.parse(out.stdout) as ProxyReport;
      } catch {
        throw new Error(`conform --proxy (exit ${code}) wrote no JSON report: ${out.stdout.slice(0, 400)} ${out.stderr.slice(0, 400)}`);
      }
      return { code, report, stderr: out.stderr };
    },
  };
}

/** The sandbox as a client suite sees it through a judging proxy: `url` is the proxy's; stop() writes the proxy's report into `dir`. */
export async function behindProxy(sandbox: Sandbox, dir: string): Promise<Sandbox> {
  const proxy = await startConformProxy(sandbox.url, ["--requested-actions-path", "/requestedActions"]);
  const file = join(dir, `${process.pid}-${randomBytes(4).toString("hex")}.json`);
  return {
    url: proxy.url,
    servedUrl: sandbox.url,
    child: sandbox.child,
    get stdout() {
      return sandbox.stdout;
    },
    get stderr() {
      return sandbox.stderr;
    },
    stop: async (signal?: NodeJS.Signals) => {
      const run = await proxy.stop();
      writeFileSync(file, JSON.stringify({ suite: expect.getState().testPath ?? "", ...run }));
      return sandbox.stop(signal);
    },
  } as Sandbox;
}
