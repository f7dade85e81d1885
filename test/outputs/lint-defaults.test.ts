// The shipped openapi.json under the linters' default rule sets, as a team that does not use verispec's
// tuned configurations (.spectral.yaml, redocly.yaml) sees it: Redocly `recommended` and plain
// `spectral:oas`. No errors; the warnings are exactly the rows (rule and count) of the table in
// docs/other-languages.md ("Under the default rule sets"), each with why it stays.
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

/** "rule count" for each warning rule, sorted. */
const tally = (rules: readonly string[]): string[] => {
  const counts = new Map<string, number>();
  for (const r of rules) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${r} ${n}`).sort();
};

/** The documented warnings of one rule set, as "rule count" (docs/other-languages.md, lint-defaults table). */
async function documented(ruleSet: string): Promise<string[]> {
  const rows = (await readmeSection("lint-defaults")).split("\n").filter((l) => l.startsWith(`| ${ruleSet} |`));
  return rows
    .map((l) => /^\|[^|]+\| `([a-z0-9-]+)` \| (\d+) \| .{20,} \|$/.exec(l))
    .map((m) => `${m![1]} ${m![2]}`)
    .sort();
}

describe("the linters' default rule sets", () => {
  it("Redocly recommended: no error; the warnings are the documented ones", async () => {
    writeFileSync(join(temp, "redocly.yaml"), "extends:\n  - recommended\n");
    const r = await run(bin("redocly"), ["lint", OPENAPI, "--config", join(temp, "redocly.yaml"), "--format=json"], { cwd: temp });
    const { totals, problems } = report<{ totals: { errors: number }; problems: { ruleId: string; severity: string }[] }>(r.stdout);
    expect(totals.errors).toBe(0);
    expect(problems.filter((p) => p.severity === "error")).toEqual([]);
    const warnings = tally(problems.filter((p) => p.severity === "warn").map((p) => p.ruleId));
    expect(warnings).toEqual(await documented("Redocly `recommended`"));
  }, 120_000);

  it("spectral:oas: no error; the warnings are the documented ones", async () => {
    writeFileSync(join(temp, "spectral.yaml"), 'extends: ["spectral:oas"]\n');
    const r = await run(bin("spectral"), ["lint", "-r", join(temp, "spectral.yaml"), "-f", "json", "--quiet", OPENAPI], { cwd: temp });
    const problems = r.stdout.trim() === "" ? [] : report<{ code: string; severity: number; path: string[] }[]>(r.stdout);
    expect(problems.filter((p) => p.severity === 0).map((p) => `${p.code} ${p.path.join("/")}`)).toEqual([]);
    const warnings = tally(problems.filter((p) => p.severity === 1).map((p) => p.code));
    expect(warnings).toEqual(await documented("Spectral `spectral:oas`"));
  }, 120_000);
});
