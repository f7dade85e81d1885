// `verispec webhook verify` as installed (node_modules/.bin/verispec, the compiled CLI) with the generated
// kit. A file of its own: mutation runs leave it out, since the binary runs dist/, not the mutated sources.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../generated/webhooks.js";

const NOW = 1_767_225_600_000;
const body = (over: Record<string, unknown> = {}) => JSON.stringify({ version: "v5", tags: [], attempt: 1, trace: "t-1", timestamp: NOW, ...over });

describe("verispec webhook verify (the real binary)", () => {
  const dir = mkdtempSync(join(tmpdir(), "verispec-webhook-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "verispec");

  it("verifies with the key from the environment, and refuses a tampered body", () => {
    const rawBody = body();
    writeFileSync(join(dir, "body.json"), rawBody);
    writeFileSync(join(dir, "tampered.json"), rawBody.replace("t-1", "t-2"));
    const headers = Object.entries(signWebhook({ version: "2", rawBody, secret: "s3cret-key" })).flatMap(([k, v]) => ["--header", `${k}: ${v}`]);
    const run = (file: string) =>
      spawnSync(bin, ["webhook", "verify", "--body", join(dir, file), ...headers, "--now", String(NOW)], {
        encoding: "utf8",
        env: { ...process.env, VERISPEC_SIGNING_SECRET: "s3cret-key" },
      });
    const ok = run("body.json");
    expect(ok.status).toBe(0);
    expect(ok.stdout.trim()).toBe('{"valid":true,"version":"2"}');
    const bad = run("tampered.json");
    expect(bad.status).toBe(1);
    expect(bad.stdout.trim()).toBe('{"valid":false,"reason":"signature_mismatch"}');
    expect(bad.stdout + bad.stderr).not.toContain("s3cret-key");
  });

  it("refuses a key on the command line with usage and exit 2", () => {
    const r = spawnSync(bin, ["webhook", "verify", "--body", "x", "--secret", "k"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Usage: verispec webhook verify");
  });
});
