// The CLI contract: commands, help, usage errors (exit 2), check's exit codes.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Io } from "../../generator/context.js";
import { main } from "../../generator/cli/main.js";
import { ROOT } from "./helpers.js";

function capture(cwd = ROOT) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, cwd, stdin: async () => "" };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

const temp = mkdtempSync(join(tmpdir(), "verispec-cli-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("verispec CLI", () => {
  it("with no command prints usage and exits 2", async () => {
    const c = capture();
    expect(await main([], c.io)).toBe(2);
    expect(c.out()).toContain("Usage: verispec <command>");
  });

  it.each(["generate", "check", "schemas", "validate", "docs", "webhook"])("%s --help prints its usage and exits 0", async (cmd) => {
    const c = capture();
    expect(await main([cmd, "--help"], c.io)).toBe(0);
    expect(c.out()).toContain(`Usage: verispec ${cmd}`);
  });

  it("an unknown command or option is a usage error: exit 2, usage on stderr", async () => {
    const a = capture();
    expect(await main(["frobnicate"], a.io)).toBe(2);
    expect(a.err()).toContain('unknown command "frobnicate"');
    const b = capture();
    expect(await main(["check", "--frob"], b.io)).toBe(2);
    expect(b.err()).toContain("Usage: verispec check");
  });

  it("a missing spec directory is one clear line, exit 2", async () => {
    const c = capture(temp);
    expect(await main(["generate", "--spec", "nowhere"], c.io)).toBe(2);
    expect(c.err()).toBe(`verispec: no spec directory at ${join(temp, "nowhere")}\n`);
  });

  it("without ./spec, a command uses the package's own spec (any working directory)", async () => {
    const c = capture(temp);
    expect(await main(["check", "--out", join(ROOT, "generated")], c.io)).toBe(0);
    expect(c.out()).toContain("is current");
  });

  it("schemas lists the ids one a line", async () => {
    const c = capture();
    expect(await main(["schemas"], c.io)).toBe(0);
    const ids = c.out().trim().split("\n");
    expect(ids).toContain("v5.VerificationCreateRequest");
    expect(ids).toContain("v4.entities.Trust");
    expect([...ids].sort()).toEqual(ids);
  });

  it("check exits 0 when current (naming the spec's hash), 1 with one line per stale file (--diff: a short diff)", async () => {
    const out = join(temp, "generated");
    cpSync(join(ROOT, "generated"), out, { recursive: true });
    const hash = (JSON.parse(readFileSync(join(ROOT, "generated", "manifest.json"), "utf8")) as { specHash: string }).specHash;
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    const ok = capture(temp);
    expect(await main(["check", "--out", out], ok.io)).toBe(0);
    expect(ok.out()).toMatch(new RegExp(`^verispec: generated/ is current \\(\\d+ files, specHash ${hash}\\)\n$`));

    writeFileSync(join(out, "schemas", "v4.Gender.json"), "{}\n");
    writeFileSync(join(out, "leftover.txt"), "old\n");
    rmSync(join(out, "openapi.yaml"));
    const stale = capture(temp);
    expect(await main(["check", "--out", out], stale.io)).toBe(1);
    expect(stale.out().split("\n")).toEqual([
      `verispec: generated/ is stale (specHash ${hash} both); run 'npx verispec generate'`,
      "changed: generated/schemas/v4.Gender.json",
      "missing: generated/openapi.yaml",
      "no longer generated: generated/leftover.txt",
      "",
    ]);
    const diff = capture(temp);
    expect(await main(["check", "--out", out, "--diff"], diff.io)).toBe(1);
    expect(diff.out()).toContain("changed: generated/schemas/v4.Gender.json\n");
    expect(diff.out()).toContain("line 1 - {}");
  });

  it("generate writes every file and check then passes", async () => {
    const out = join(temp, "fresh");
    const g = capture();
    expect(await main(["generate", "--out", out], g.io)).toBe(0);
    expect(g.out()).toMatch(/wrote \d+ files/);
    const c = capture();
    expect(await main(["check", "--out", out], c.io)).toBe(0);
  });
});

describe("the installed bin", () => {
  it("runs from the project root after npm ci (npx verispec)", async () => {
    const { spawnSync } = await import("node:child_process");
    const r = spawnSync(join(ROOT, "node_modules", ".bin", "verispec"), ["schemas"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")).toContain("v4.VerifyRequest");
  });

  it("the compiled meta-schema (built ahead of time) reports a broken spec exactly as a fresh compile does", async () => {
    const { spawnSync } = await import("node:child_process");
    const { scratchSpec } = await import("./helpers.js");
    const scratch = scratchSpec();
    try {
      scratch.edit("errors.yaml", "httpStatus: 474", 'httpStatus: "474"');
      scratch.write("limits.yaml", `${readFileSync(join(scratch.spec, "limits.yaml"), "utf8")}\nbogus: 1\n`);
      const r = spawnSync(process.execPath, [join(ROOT, "bin", "verispec.js"), "check", "--spec", scratch.spec, "--out", join(ROOT, "generated")], {
        cwd: scratch.dir,
        encoding: "utf8",
      });
      const c = capture(scratch.dir);
      expect(await main(["check", "--spec", scratch.spec, "--out", join(ROOT, "generated")], c.io)).toBe(2);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(c.err());
      expect(r.stderr).toContain("error VS205");
      expect(r.stderr).toContain("error VS202");
    } finally {
      scratch.remove();
    }
  });
});
