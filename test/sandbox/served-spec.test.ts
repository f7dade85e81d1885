// `verispec sandbox --spec <dir>` serves that spec, with no build step (issue 25): a copy of the spec with
// another default attempt cap and one more country is followed on both counts, the start names the spec
// and its specVersion, and a broken spec stops the command with the generator's diagnostics (exit 2).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { mapList, removeFixtures, reword, set, specWith } from "../diff/fixture.js";
import { call, request, basic, ROOT, startSandbox, v5Individual, type Sandbox } from "./helpers.js";

afterAll(removeFixtures);

const create = (s: Sandbox, body: unknown) => request(s.url, "POST", "/v5/verifications", body, { authorization: basic() });

describe("verispec sandbox --spec", () => {
  it("serves the given spec: its default attempt cap, its countries, its specVersion", async () => {
    const dir = specWith([
      set("statuses.yaml", ["attempts", "observedDefaultCap"], 2),
      set("limits.yaml", ["limits", "verificationAttempts", "observedDefault"], 2),
      reword("limits.yaml", "(5 observed as default", "(2 observed as default"),
      reword("statuses.yaml", "default cap observed is 5", "default cap observed is 2"),
      set("countries.yaml", ["iso3166Alpha3", "XKX"], "Kosovo"),
      set("versions.yaml", ["specVersion"], "1.1.0"),
    ]);
    const own = await startSandbox(["--db", "memory", "--processing-ms", "manual"]);
    const edited = await startSandbox(["--db", "memory", "--processing-ms", "manual", "--spec", dir]);
    try {
      // The start line names the hash of the spec served: the own one is the package entry's specHash.
      const { specHash } = await import("../../generated/index.js");
      expect(edited.stdout).toMatch(new RegExp(`verispec sandbox serving ${dir} \\(specVersion 1\\.1\\.0, specHash (?!${specHash})[0-9a-f]{16}\\)`));
      expect(own.stdout).toMatch(new RegExp(`verispec sandbox serving \\S+/spec \\(specVersion 1\\.0\\.0, specHash ${specHash}\\)`));

      // The extra country: refused by the package's spec, accepted by the edited one.
      const kosovo = { ...v5Individual("Ada Kosovo"), country: "XKX" };
      expect((await create(own, kosovo)).status).toBe(422);
      const accepted = await create(edited, kosovo);
      expect(accepted.status).toBe(200);

      // The default cap: a new individual (subType data) carries the edited spec's cap.
      const detail = async (s: Sandbox, trace: string) => (await call(s.url, "GET", `/v5/verifications/${trace}`)).body.data;
      const mine = await create(own, v5Individual("Ada Capped"));
      expect((await detail(own, mine.body.trace)).maxAttempts).toBe(5);
      expect((await detail(edited, accepted.body.trace)).maxAttempts).toBe(2);
    } finally {
      await Promise.all([own.stop(), edited.stop()]);
    }
  }, 180_000);

  it("a broken spec stops it before anything listens: the generator's diagnostics, exit 2", async () => {
    const dir = specWith([mapList("statuses.yaml", ["transitions", 1, "to"], (v) => [...v, "approved"])]);
    let stdout = "";
    let stderr = "";
    const code = await main(["sandbox", "--port", "0", "--db", "memory", "--spec", dir], {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env: {},
      cwd: process.cwd(),
      stdin: async () => "",
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/statuses\.yaml:\d+:\d+/);
    expect(stderr).toContain("approved");
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stdout).not.toContain("listening");
  }, 120_000);

  it("a broken spec with a new --db directory: the database opened meanwhile is closed again and the process ends, exit 2", async () => {
    const spec = specWith([mapList("statuses.yaml", ["transitions", 1, "to"], (v) => [...v, "approved"])]);
    const db = mkdtempSync(join(tmpdir(), "verispec-early-db-"));
    try {
      const child = spawn(process.execPath, ["--import", "tsx", "generator/cli/bin.ts", "sandbox", "--port", "0", "--db", join(db, "new"), "--spec", spec], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr!.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      expect(code).toBe(2);
      expect(stderr).toMatch(/statuses\.yaml:\d+:\d+/);
    } finally {
      rmSync(db, { recursive: true, force: true });
    }
  }, 120_000);
});
