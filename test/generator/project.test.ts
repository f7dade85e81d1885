// A project with its own spec (issue 36): `verispec check` fails when its generated/ no longer matches its
// spec/ (one line per stale file, and both hashes), and `verispec generate --watch` regenerates on every
// change of the spec, keeps watching after a broken edit, and ends with exit 0 on Ctrl-C (SIGINT).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Io } from "../../generator/context.js";
import { main } from "../../generator/cli/main.js";
import { lowerNameLimit, ROOT, scratchSpec, type ScratchSpec } from "./helpers.js";

const projects: ScratchSpec[] = [];
afterAll(() => projects.forEach((p) => p.remove()));

function project(): ScratchSpec {
  const p = scratchSpec();
  projects.push(p);
  return p;
}

function capture(cwd: string) {
  const out: string[] = [];
  const io: Io = { stdout: (t) => out.push(t), stderr: (t) => out.push(t), env: {}, cwd, stdin: async () => "" };
  return { io, out: () => out.join("") };
}

const manifestHash = (dir: string) => (JSON.parse(readFileSync(join(dir, "generated", "manifest.json"), "utf8")) as { specHash: string }).specHash;

describe("verispec check in a project", () => {
  it("exits 1 with one line per stale file and both hashes once spec/ was edited without regenerating", { timeout: 240_000 }, async () => {
    const p = project();
    expect(await main(["generate"], capture(p.dir).io)).toBe(0);
    const before = manifestHash(p.dir);
    expect(await main(["check"], capture(p.dir).io)).toBe(0);

    lowerNameLimit(p);
    const stale = capture(p.dir);
    expect(await main(["check"], stale.io)).toBe(1);
    const lines = stale.out().trimEnd().split("\n");
    const after = /the spec is now specHash ([0-9a-f]{16})/.exec(lines[0]!)?.[1];
    expect(after).toMatch(/^[0-9a-f]{16}$/);
    expect(after).not.toBe(before);
    expect(lines[0]).toBe(`verispec: generated/ is stale (generated from specHash ${before}; the spec is now specHash ${after}); run 'npx verispec generate'`);
    // One line a file, each naming a file that differs; the entry (its hash), the validators' messages and the schema are among them.
    for (const line of lines.slice(1)) expect(line).toMatch(/^changed: generated\/\S+$/);
    for (const file of ["index.js", "index.d.ts", "manifest.json", "validators/errors.js", "schemas/v5.VerificationCreateRequest.json"])
      expect(lines).toContain(`changed: generated/${file}`);

    expect(await main(["generate"], capture(p.dir).io)).toBe(0);
    expect(manifestHash(p.dir)).toBe(after);
    expect(readFileSync(join(p.dir, "generated", "index.js"), "utf8")).toContain(`export const specHash = "${after}";`);
    expect(await main(["check"], capture(p.dir).io)).toBe(0);
  });
});

describe("verispec generate --watch", () => {
  it("regenerates on a spec edit, prints the diagnostics of a broken one and keeps watching, exits 0 on SIGINT", { timeout: 300_000 }, async () => {
    const p = project();
    const child = spawn(process.execPath, [join(ROOT, "bin", "verispec.js"), "generate", "--watch"], { cwd: p.dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const until = async (what: string, ok: () => boolean) => {
      for (const started = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 100)))
        if (Date.now() - started > 120_000) throw new Error(`no ${what} within 120 s:\n${out}\n${err}`);
    };
    const wrote = () => out.split("\n").filter((l) => /^\[\d\d:\d\d:\d\d\] verispec: wrote \d+ files to /.test(l)).length;
    try {
      await until("first run", () => wrote() === 1 && out.includes("verispec: watching spec for changes (Ctrl-C to stop)\n"));
      const first = manifestHash(p.dir);

      lowerNameLimit(p);
      await until("run after the edit", () => wrote() >= 2 && manifestHash(p.dir) !== first);
      expect(readFileSync(join(p.dir, "generated", "validators", "errors.js"), "utf8")).toContain("Name must be less than 100 characters.");
      const runs = wrote();

      // A broken edit: the diagnostics, nothing written, and the watch goes on.
      writeFileSync(join(p.spec, "limits.yaml"), "limits: [\n");
      await until("the diagnostics", () => /verispec: not generated, 1 diagnostic\(s\); still watching\nspec\/limits\.yaml:\d+:\d+: error VS101/.test(err));
      expect(wrote()).toBe(runs);
      expect(existsSync(join(p.dir, "generated", "index.js"))).toBe(true);

      p.edit(
        "limits.yaml",
        "limits: [\n",
        readFileSync(join(ROOT, "spec", "limits.yaml"), "utf8").replace("fewer than 200 characters", "fewer than 100 characters"),
      );
      await until("run after the repair", () => wrote() > runs);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(err).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      child.kill("SIGKILL");
    }
  });
});
