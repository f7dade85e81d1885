// The shipped openapi.json under the linters' default rule sets, as a team that does not use verispec's
// tuned configurations (.spectral.yaml, redocly.yaml) sees it: Redocly `recommended` and plain
// `spectral:oas`. Every rule that reports is named in docs/other-languages.md with why it stays; the
// Spectral errors are the one known gap (the `u`-flag name pattern), pinned to where they are.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OPENAPI, bin, readmeSection, run } from "./helpers.js";

const temp = mkdtempSync(join(tmpdir(), "verispec-lint-defaults-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const report = <T>(stdout: string): T => {
  const start = stdout.search(/^[[{]/m);
  if (start < 0) throw new Error(`no JSON report in the linter's output:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(stdout.slice(start)) as T;
};

describe("the linters' default rule sets", () => {
  it("Redocly recommended: no error; each warning's rule is named in the docs", async () => {
    writeFileSync(join(temp, "redocly.yaml"), "extends:\n  - recommended\n");
    const r = await run(bin("redocly"), ["lint", OPENAPI, "--config", join(temp, "redocly.yaml"), "--format=json"], { cwd: temp });
    const { totals, problems } = report<{ totals: { errors: number }; problems: { ruleId: string; severity: string }[] }>(r.stdout);
    expect(totals.errors).toBe(0);
    const rules = [...new Set(problems.map((p) => p.ruleId))].sort();
    expect(rules).toEqual(["no-invalid-media-type-examples", "no-invalid-schema-examples", "no-unused-components", "operation-4xx-response"]);
    const docs = await readmeSection("other-languages");
    for (const rule of rules) expect(docs, rule).toContain(`\`${rule}\``);
  }, 120_000);

  it("spectral:oas: the errors are only the documented `u`-flag pattern; each warning's rule is named in the docs", async () => {
    writeFileSync(join(temp, "spectral.yaml"), 'extends: ["spectral:oas"]\n');
    const r = await run(bin("spectral"), ["lint", "-r", join(temp, "spectral.yaml"), "-f", "json", "--quiet", OPENAPI], { cwd: temp });
    const problems = r.stdout.trim() === "" ? [] : report<{ code: string; severity: number; path: string[] }[]>(r.stdout);
    const errors = problems.filter((p) => p.severity === 0).map((p) => `${p.code} ${p.path.slice(0, 4).join("/")}`).sort();
    expect(errors).toEqual([
      "oas3-schema components/schemas/rules.personName/pattern",
      "oas3-valid-media-example paths//idform/post/requestBody",
      "oas3-valid-media-example paths//verify/post/requestBody",
    ]);
    const warnings = [...new Set(problems.filter((p) => p.severity === 1).map((p) => p.code))].sort();
    expect(warnings).toEqual(["info-contact", "oas3-unused-component"]);
    const docs = await readmeSection("other-languages");
    for (const code of [...warnings, "oas3-schema", "oas3-valid-media-example"]) expect(docs, code).toContain(`\`${code}\``);
  }, 120_000);
});
