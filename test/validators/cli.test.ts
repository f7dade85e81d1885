// `verispec validate <schemaId> <file|->` (issue item 4): exit 0 valid, 1 invalid, 2 unchecked.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { ROOT } from "./helpers.js";

async function run(args: string[], stdin = "") {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["validate", ...args], { stdout: (s) => out.push(s), stderr: (s) => err.push(s), env: {}, cwd: ROOT, stdin: async () => stdin });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

const dir = mkdtempSync(join(tmpdir(), "verispec-validate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

describe("verispec validate", () => {
  it('prints {"valid":true} and exits 0', async () => {
    expect(await run(["v5.VerificationCreateRequest", file("ok.json", '{"website":"https://x.example"}')])).toEqual({
      code: 0,
      stdout: '{"valid":true}\n',
      stderr: "",
    });
  });
  it("prints the service's errors and exits 1 (seed: 7)", async () => {
    const r = await run(["v5.VerificationCreateRequest", "-"], '{"website":""}');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, errors: [{ message: "Website is required.", code: "too_small", path: ["website"] }] });
  });
  it("an unknown schema id, a missing file, text that is not JSON: one line on stderr, exit 2", async () => {
    for (const args of [
      ["v9.Nope", file("a.json", "{}")],
      ["v5.Envelope", join(dir, "missing.json")],
      ["v5.Envelope", file("bad.json", "{nope")],
    ]) {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  });
  it("a usage mistake exits 2", async () => {
    expect((await run(["v5.Envelope"])).code).toBe(2);
  });
});
