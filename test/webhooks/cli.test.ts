import { describe, expect, it } from "vitest";
import { webhookCommand, WEBHOOK_USAGE } from "../../generator/cli/commands/webhook.js";
import { createWebhookKit } from "../../templates/webhooks/index.js";
import { fixtureRules, signWebhook } from "./rules.fixture.js";
import { v5Body, vectors } from "./helpers.js";

const SECRET = vectors.secret;
const BODY = v5Body(vectors.now);

/** Runs the command with captured output and an in-memory file system. */
async function run(args: string[], options: { env?: NodeJS.ProcessEnv; files?: Record<string, string | Uint8Array> } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const files: Record<string, string | Uint8Array> = { "body.json": BODY, ...options.files };
  const code = await webhookCommand(
    args,
    {
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
      env: options.env ?? { VERISPEC_SIGNING_SECRET: SECRET },
      readFile: async (path) => {
        const content = files[path];
        if (content === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
        return typeof content === "string" ? Buffer.from(content) : content;
      },
    },
    createWebhookKit({ rules: fixtureRules }),
  );
  return { code, stdout: out.join(""), stderr: err.join("") };
}

function headerArgs(headers: Record<string, string>): string[] {
  return Object.entries(headers).flatMap(([name, value]) => ["--header", `${name}: ${value}`]);
}

const now = ["--now", String(vectors.now)];

describe("verispec webhook verify", () => {
  for (const version of ["1", "2"] as const) {
    it(`prints {"valid":true,"version":"${version}"} and exits 0 for a good v${version} delivery`, async () => {
      const headers = headerArgs(signWebhook({ version, rawBody: BODY, secret: SECRET }));
      const result = await run(["verify", "--body", "body.json", ...headers, ...now]);
      expect(result).toMatchObject({ code: 0, stdout: `{"valid":true,"version":"${version}"}\n` });
    });
  }

  it("verifies the same delivery twice in one process (no replay store across runs)", async () => {
    const args = ["verify", "--body", "body.json", ...headerArgs(signWebhook({ version: "2", rawBody: BODY, secret: SECRET })), ...now];
    expect((await run(args)).code).toBe(0);
    expect((await run(args)).code).toBe(0);
  });

  it("reads the key from --secret-file, ignoring one trailing newline", async () => {
    const headers = headerArgs(signWebhook({ version: "2", rawBody: BODY, secret: "file-key" }));
    const result = await run(["verify", "--body", "body.json", "--secret-file", "key.txt", ...headers, ...now], {
      env: {},
      files: { "key.txt": "file-key\n" },
    });
    expect(result).toMatchObject({ code: 0, stdout: '{"valid":true,"version":"2"}\n' });
  });

  it('prints {"valid":false,"reason":…} and exits 1 for refused deliveries', async () => {
    const good = signWebhook({ version: "2", rawBody: BODY, secret: SECRET });
    const cases: Array<[string[], string]> = [
      [[...headerArgs(signWebhook({ version: "2", rawBody: BODY, secret: "other" })), ...now], "signature_mismatch"],
      [[...headerArgs(good), "--now", String(vectors.now + 300_001)], "timestamp_out_of_tolerance"],
      [["--header", "X-Svc-Signature: sha256=abc", ...now], "malformed_signature"],
      [["--header", "Content-Type: application/json", ...now], "missing_signature"],
      [[...headerArgs(good), "--header", "X-Svc-Signature-version: 3", ...now], "malformed_signature"], // sent twice
      [["--header", `X-Svc-Signature: ${good["X-Svc-Signature"]}`, "--header", "X-Svc-Signature-version: 3", ...now], "unsupported_version"],
    ];
    for (const [args, reason] of cases) {
      const result = await run(["verify", "--body", "body.json", ...args]);
      expect(result.code, reason).toBe(1);
      expect(result.stdout).toBe(`{"valid":false,"reason":"${reason}"}\n`);
      expect(result.stderr).not.toContain(SECRET);
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it("prints usage and exits 0 for --help", async () => {
    for (const args of [["--help"], ["verify", "-h"]]) {
      const result = await run(args);
      expect(result).toMatchObject({ code: 0, stdout: WEBHOOK_USAGE });
    }
  });

  it("refuses the key on the command line without echoing it (exit 2)", async () => {
    for (const flag of [["--secret", "hunter2-key"], ["--secret=hunter2-key"]]) {
      const result = await run(["verify", "--body", "body.json", ...flag, "--header", "X-Svc-Signature: sha256=00"]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("Usage: verispec webhook verify");
      expect(result.stderr).toContain("VERISPEC_SIGNING_SECRET");
      expect(result.stderr).not.toContain("hunter2-key");
    }
  });

  it("exits 2 with usage on usage errors, without stack traces or echoed positionals", async () => {
    const header = ["--header", "X-Svc-Signature: sha256=00"];
    const cases: Array<[string[], NodeJS.ProcessEnv | undefined, string]> = [
      [[], undefined, "verify"],
      [["check", "--body", "body.json", ...header], undefined, "verify"],
      [["verify", "stray-positional-value", "--body", "body.json", ...header], undefined, "extra argument"],
      [["verify", ...header], undefined, "--body"],
      [["verify", "--body", "body.json"], undefined, "--header"],
      [["verify", "--body", "body.json", "--header", "no colon here"], undefined, "Name: value"],
      [["verify", "--body", "body.json", ...header, "--now", "yesterday"], undefined, "--now"],
      [["verify", "--body", "body.json", ...header, "--bogus"], undefined, "--bogus"],
      [["verify", "--body", "missing.json", ...header], undefined, "cannot read the --body file"],
      [["verify", "--body", "body.json", ...header, "--secret-file", "missing.key"], undefined, "cannot read the --secret-file file"],
      [["verify", "--body", "body.json", ...header], {}, "VERISPEC_SIGNING_SECRET"],
      [["verify", "--body", "body.json", ...header], { VERISPEC_SIGNING_SECRET: "" }, "no signing key"],
    ];
    for (const [args, env, hint] of cases) {
      const result = await run(args, env === undefined ? {} : { env });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(hint);
      expect(result.stderr).toContain("Usage: verispec webhook verify");
      expect(result.stderr).not.toContain("stray-positional-value");
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("reads --body and --secret-file to at most 10 MiB: /dev/zero fails fast, one line, exit 2", async () => {
    const header = ["--header", "X-Svc-Signature: sha256=00"];
    for (const args of [
      ["verify", "--body", "/dev/zero", ...header],
      ["verify", "--body", "/dev/null", ...header, "--secret-file", "/dev/zero"],
    ]) {
      const out: string[] = [];
      const err: string[] = [];
      const started = Date.now();
      const code = await webhookCommand(
        args,
        { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: { VERISPEC_SIGNING_SECRET: SECRET } },
        createWebhookKit({ rules: fixtureRules }),
      );
      expect(code).toBe(2);
      expect(out.join("")).toBe("");
      const flag = args.includes("--secret-file") ? "--secret-file" : "--body";
      expect(err.join("")).toBe(
        `verispec webhook verify: the ${flag} file is larger than 10,485,760 bytes (10 MiB), the most 'verispec webhook verify' reads\n`,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });
});
