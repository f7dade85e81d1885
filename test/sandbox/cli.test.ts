// `verispec sandbox` as a command: --help, usage errors (exit 2, one line, no stack), and credentials:
// values from the environment are never printed; missing ones get test values printed once, which work.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { parseSandboxArgs } from "../../generator/cli/commands/sandbox.js";
import { basic, startSandbox, until } from "./helpers.js";

async function run(args: string[], cwd = process.cwd()): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(["sandbox", ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: {},
    cwd,
    stdin: async () => "",
  });
  return { code, stdout, stderr };
}

describe("verispec sandbox: arguments", () => {
  it("--help prints the usage, with the flags, the environment variables and the follow-up path note", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    for (const word of [
      "--port",
      "--db",
      "--webhook-url",
      "--signature-version",
      "--processing-ms",
      "--requested-actions-path",
      "VERISPEC_SANDBOX_SERVICE_UID",
      "VERISPEC_SANDBOX_SECRET",
      "VERISPEC_SIGNING_SECRET",
      "does not show the path",
    ]) {
      expect(r.stdout).toContain(word);
    }
  });

  const bad: Array<[string[], RegExp]> = [
    [["--port", "70000"], /--port must be an integer from 0 to 65535/],
    [["--signature-version", "3"], /--signature-version must be 2 or 1/],
    [["--processing-ms", "soon"], /--processing-ms must be an integer/],
    [["--webhook-url", "ftp://x.example/"], /--webhook-url must be http or https/],
    [["--webhook-url", "not a url"], /is not a URL/],
    [["--requested-actions-path", "actions"], /must be a path starting with \//],
    [["--retry-delays", "1,x"], /--retry-delays must be milliseconds/],
    [["--max-body", "0"], /--max-body must be an integer from 1/],
    [["--bogus"], /Unknown option '--bogus'/],
  ];
  for (const [args, message] of bad) {
    it(`${args.join(" ")}: exit 2 with one clear line`, async () => {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.stderr.split("\n")[0]).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it("a signature version the served spec does not name: exit 2 before the store opens (the default --db is not made)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verispec-version-"));
    try {
      const r = await run(["--signature-version", "3"], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe("verispec: --signature-version must be 2 or 1\n");
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a --db directory PGlite cannot open: exit 2 with one line naming it, nothing listening", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verispec-baddb-"));
    try {
      writeFileSync(join(dir, "PG_VERSION"), "not a data directory\n");
      const r = await run(["--port", "0", "--db", dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`verispec: PGlite cannot open ${dir}: PGlite failed to initialize properly\n`);
      expect(r.stdout).not.toContain("listening");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("defaults: 127.0.0.1:4010, PGlite in .verispec/sandbox, the spec's signature version, 1000 ms", () => {
    expect(parseSandboxArgs({})).toMatchObject({
      host: "127.0.0.1",
      port: 4010,
      db: ".verispec/sandbox",
      signatureVersion: undefined,
      processingMs: 1000,
      webhookUrls: [],
    });
    expect(
      parseSandboxArgs({ "processing-ms": "manual", "webhook-url": ["http://a.example/x", "http://b.example/y"], "signature-version": "1" }),
    ).toMatchObject({
      signatureVersion: { value: "1", where: "--signature-version" },
      processingMs: "manual",
      webhookUrls: ["http://a.example/x", "http://b.example/y"],
    });
  });
});

describe("verispec sandbox: credentials", () => {
  it("prints a test value once for each credential not in the environment, and only those", async () => {
    const sandbox = await startSandbox(["--db", "memory"], {
      VERISPEC_SANDBOX_SERVICE_UID: undefined,
      VERISPEC_SANDBOX_SECRET: undefined,
      VERISPEC_SIGNING_SECRET: "from-the-environment-key",
    });
    try {
      await until(() => sandbox.stdout.includes("VERISPEC_SANDBOX_SECRET="), "the test values");
      const uid = /^test value VERISPEC_SANDBOX_SERVICE_UID=(\S+)$/m.exec(sandbox.stdout)?.[1];
      const secret = /^test value VERISPEC_SANDBOX_SECRET=(\S+)$/m.exec(sandbox.stdout)?.[1];
      expect(uid).toBeDefined();
      expect(secret).toBeDefined();
      expect(sandbox.stdout).not.toContain("VERISPEC_SIGNING_SECRET");
      expect(sandbox.stdout + sandbox.stderr).not.toContain("from-the-environment-key");
      expect(sandbox.stdout.match(/test value/g)).toHaveLength(2);
      const ok = await fetch(`${sandbox.url}/_sandbox/verifications`, { headers: { authorization: basic({ serviceUid: uid!, secret: secret! }) } });
      expect(ok.status).toBe(200);
    } finally {
      expect(await sandbox.stop("SIGINT")).toBe(0);
    }
  }, 60_000);
});

describe("docs/sandbox.md: the sandbox's documented choices", () => {
  it("lists every choice of spec/sandbox.yaml with its text and the not-shown it answers", async () => {
    const { sandboxSpec } = await import("../../generated/sandbox.js");
    const readme = (await import("../support/docs.js")).allDocs();
    for (const [name, c] of Object.entries(sandboxSpec.choices)) {
      const answers = "answers" in c && c.answers ? c.answers : "(no gap of the specification: a sandbox-only choice)";
      expect(readme, name).toContain(`| \`${name}\` | ${c.choice.replace(/\|/g, "\\|")} | ${answers} |`);
    }
  });
});
