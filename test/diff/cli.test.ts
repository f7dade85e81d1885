// `verispec diff` end to end: sides from directories and git revisions, self-diff, exit codes, formats,
// --fail-on, overrides and the spec-version check.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import type { Io } from "../../generator/context.js";
import { CHECKS } from "../../generator/diff/catalog.js";
import { compareSides } from "../../generator/diff/compare-model.js";
import { sideFromDir } from "../../generator/diff/sides.js";
import { defaultCap, del, mapList, REAL_SPEC, removeFixtures, reword, set, specWith, type Edit } from "./fixture.js";

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env, cwd, stdin: async () => "" };
  return main(["diff", ...args], io).then((code) => ({ code, out: out.join(""), err: err.join("") }));
}

/** The three changes of the README's example: a narrowed country list, a new required field, a removed transition. */
const DELIBERATE: Edit[] = [
  reword("countries.yaml", "The 15 other countries", "The 14 other countries"),
  mapList("countries.yaml", ["groups", "trustCountries", "countries"], (v) => v.filter((c) => c !== "SWE")),
  set("v5.yaml", ["shapes", "v5.VerificationCreateRequest", "properties", "purpose"], {
    required: true,
    type: "string",
    description: "Why the verification is made.",
  }),
  del("statuses.yaml", ["transitions", 6]),
];

const temp = mkdtempSync(join(tmpdir(), "verispec-diff-cli-"));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
  removeFixtures();
});

describe("self-diff", () => {
  it("the real spec against itself reports nothing", () => {
    expect(compareSides(sideFromDir(REAL_SPEC, "a"), sideFromDir(REAL_SPEC, "b"))).toEqual([]);
  });
  it("exit 0 and 'no changes' on the CLI", async () => {
    const r = await run([REAL_SPEC, REAL_SPEC], temp);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: no changes\n$/);
  });
});

describe("git revisions", () => {
  const repo = join(temp, "repo");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
  beforeAll(() => {
    cpSync(REAL_SPEC, join(repo, "spec"), { recursive: true });
    git("init", "-q", "-b", "main");
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "spec");
    const changed = specWith(DELIBERATE);
    rmSync(join(repo, "spec"), { recursive: true });
    cpSync(changed, join(repo, "spec"), { recursive: true });
  });

  it("diff HEAD: the working tree's spec against the last commit, without touching the work tree or index", async () => {
    const status = git("status", "--porcelain");
    const r = await run(["HEAD"], repo);
    expect(r.err).toBe("");
    expect(r.code).toBe(1);
    for (const id of ["request-country-removed", "request-property-required-added", "transition-removed", "spec-version-not-bumped"])
      expect(r.out).toContain(id);
    expect(r.out).toContain("spec/entities/trust.yaml:");
    expect(git("status", "--porcelain")).toBe(status);
    expect(git("diff", "--cached", "--name-only")).toBe("");
  });

  it("diff HEAD~1 HEAD: two revisions", async () => {
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "change");
    const r = await run(["HEAD~1", "HEAD", "--format", "json"], repo);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out);
    expect(doc.base.label).toBe("HEAD~1");
    expect(doc.base.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(doc.findings.map((f: { id: string }) => f.id)).toContain("transition-removed");
    git("reset", "-q", "--soft", "HEAD~1");
  });

  it("a revision whose spec does not pass the checks: its diagnostics, prefixed with the revision, exit 2", async () => {
    writeFileSync(join(repo, "spec", "limits.yaml"), "limits: [\n");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "broken");
    const r = await run(["HEAD", join(REAL_SPEC)], repo);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^HEAD:spec\/limits\.yaml:\d+:\d+: /);
    expect(r.out).toBe("");
    git("reset", "-q", "--hard", "HEAD~1");
  });

  it("an unknown revision is one line and exit 2", async () => {
    const r = await run(["no-such-branch"], repo);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`verispec: "no-such-branch" is neither a spec directory nor a git revision of ${repo}\n`);
  });
});

describe("exit codes and usage", () => {
  it("usage errors exit 2", async () => {
    expect((await run([], temp)).code).toBe(2);
    expect((await run(["a", "b", "c"], temp)).code).toBe(2);
    expect((await run([REAL_SPEC, "--format", "xml"], temp)).code).toBe(2);
    expect((await run([REAL_SPEC, "--fail-on", "info"], temp)).code).toBe(2);
    const r = await run([REAL_SPEC, "--frob"], temp);
    expect(r.code).toBe(2);
    expect(r.err).toContain("Usage: verispec diff");
  });
  it("a broken spec on one side: its file:line:col, exit 2", async () => {
    const broken = specWith([set("limits.yaml", ["limits", "formOpens", "count"], "ten")]);
    const r = await run([REAL_SPEC, broken], temp);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/spec\/limits\.yaml:\d+:\d+: /);
    expect(r.out).toBe("");
  });
  it("--fail-on warning fails on a warning; the default does not", async () => {
    const head = specWith([...defaultCap(3), set("versions.yaml", ["specVersion"], "1.1.0")]);
    expect((await run([REAL_SPEC, head], temp)).code).toBe(0);
    expect((await run([REAL_SPEC, head, "--fail-on", "warning"], temp)).code).toBe(1);
  });
  it("--help and --checks", async () => {
    expect((await run(["--help"], temp)).out).toContain("Usage: verispec diff <base> [<head>]");
    const checks = (await run(["--checks"], temp)).out.trim().split("\n");
    expect(checks.map((l) => l.split(/\s+/)[0])).toEqual(Object.keys(CHECKS));
  });
});

describe("severity overrides (.verispec-diff.yaml)", () => {
  const head = specWith([del("statuses.yaml", ["transitions", 6]), set("versions.yaml", ["specVersion"], "2.0.0")]);
  it("an override lowers a breaking finding to a warning (exit 0) or drops it", async () => {
    const dir = join(temp, "ov1");
    cpSync(join(REAL_SPEC, ".."), dir, {
      recursive: true,
      filter: (s) => !s.includes("node_modules") && !s.includes(".git") && !s.includes("generated") && !s.includes("test"),
    });
    writeFileSync(join(dir, ".verispec-diff.yaml"), "severities:\n  transition-removed: warning\n");
    const r = await run([REAL_SPEC, head, "--format", "json"], dir);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).findings.map((f: { id: string; severity: string }) => `${f.id}:${f.severity}`)).toEqual(["transition-removed:warning"]);
    writeFileSync(join(dir, "drop.yaml"), "severities:\n  transition-removed: none\n");
    const d = await run([REAL_SPEC, head, "--config", "drop.yaml", "--format", "json"], dir);
    expect(JSON.parse(d.out).findings).toEqual([]);
  });
  it("an unknown check id or severity is a usage error", async () => {
    writeFileSync(join(temp, "bad.yaml"), "severities:\n  transition-gone: warning\n");
    const r = await run([REAL_SPEC, head, "--config", "bad.yaml"], temp);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown check id "transition-gone"');
    writeFileSync(join(temp, "bad2.yaml"), "severities:\n  transition-removed: fatal\n");
    expect((await run([REAL_SPEC, head, "--config", "bad2.yaml"], temp)).code).toBe(2);
  });
});

describe("spec-version-not-bumped", () => {
  const ids = async (edits: Edit[]) => {
    const r = await run([REAL_SPEC, specWith(edits), "--format", "json"], temp);
    return JSON.parse(r.out)
      .findings.filter((f: { id: string }) => f.id === "spec-version-not-bumped")
      .map((f: { severity: string; message: string }) => `${f.severity}: ${f.message}`);
  };
  const breaking = del("statuses.yaml", ["transitions", 6]);
  const minor = set("webhooks.yaml", ["shapes", "v5.WebhookPayload", "properties", "deliveryId"], { type: "string" });
  it("a breaking change without a major bump is breaking", async () => {
    expect(await ids([breaking])).toEqual(["breaking: specVersion 1.0.0 -> 1.0.0: the other change (breaking) calls for a major bump"]);
    expect(await ids([breaking, set("versions.yaml", ["specVersion"], "1.1.0")])).toHaveLength(1);
    expect(await ids([breaking, set("versions.yaml", ["specVersion"], "2.0.0")])).toEqual([]);
  });
  it("a non-breaking change without a minor bump is a warning; a patch bump is not enough", async () => {
    expect(await ids([minor])).toEqual(["warning: specVersion 1.0.0 -> 1.0.0: the other change (not breaking) calls for a minor bump"]);
    expect(await ids([minor, set("versions.yaml", ["specVersion"], "1.0.1")])).toHaveLength(1);
    expect(await ids([minor, set("versions.yaml", ["specVersion"], "1.1.0")])).toEqual([]);
  });
  it("while the major is 0, a minor bump carries a breaking change", async () => {
    const base = specWith([set("versions.yaml", ["specVersion"], "0.3.0")]);
    const r = await run([base, specWith([breaking, set("versions.yaml", ["specVersion"], "0.4.0")]), "--format", "json"], temp);
    expect(JSON.parse(r.out).findings.map((f: { id: string }) => f.id)).toEqual(["transition-removed"]);
  });
  it("no finding when the base has no specVersion (a spec from before it)", async () => {
    const base = specWith([del("versions.yaml", ["specVersion"])]);
    const r = await run([base, specWith([breaking]), "--format", "json"], temp);
    expect(JSON.parse(r.out).findings.map((f: { id: string }) => f.id)).toEqual(["transition-removed"]);
  });
});

describe("outputs", () => {
  let head: string;
  beforeAll(() => {
    head = specWith([...DELIBERATE, ...defaultCap(3), set("webhooks.yaml", ["shapes", "v5.WebhookPayload", "properties", "deliveryId"], { type: "string" })]);
  });
  it("text: breaking first, grouped by audience, no colours off a terminal; colours with FORCE_COLOR", async () => {
    const r = await run([REAL_SPEC, head], temp);
    expect(r.out).not.toContain("\u001b[");
    const order = [
      "BREAKING",
      "Request senders",
      "request-country-removed",
      "Behaviour",
      "transition-removed",
      "WARNING",
      "attempt-default-cap-changed",
      "INFO",
      "response-property-added",
    ].map((s) => r.out.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect((await run([REAL_SPEC, head], temp, { FORCE_COLOR: "1" })).out).toContain("\u001b[1;31m");
    expect((await run([REAL_SPEC, head], temp, { FORCE_COLOR: "1", NO_COLOR: "1" })).out).not.toContain("\u001b[");
  });
  it("json: the documented shape, stable across runs", async () => {
    const a = await run([REAL_SPEC, head, "--format", "json"], temp);
    const b = await run([REAL_SPEC, head, "--format", "json"], temp);
    expect(a.out).toBe(b.out);
    const doc = JSON.parse(a.out);
    expect(Object.keys(doc)).toEqual(["format", "base", "head", "summary", "findings"]);
    expect(doc.format).toBe("verispec-diff/1");
    expect(doc.summary).toEqual({ breaking: 4, warning: 2, info: 1 });
    const country = doc.findings.find((f: { id: string }) => f.id === "request-country-removed");
    expect(country).toEqual({
      id: "request-country-removed",
      severity: "breaking",
      audience: "request",
      message: "countries of trustCountries (spec/countries.yaml:289) removed: `SWE`",
      schema: "v4.entities.Trust",
      path: "/properties/fields/oneOf/0/properties/country",
      operation: "verify",
      base: { file: "spec/entities/trust.yaml", line: 10, col: 16 },
      head: { file: "spec/entities/trust.yaml", line: 10, col: 16 },
    });
  });
  it("markdown: a changelog section with the breaking changes first", async () => {
    const r = await run([REAL_SPEC, head, "--format", "markdown"], temp);
    expect(r.out.startsWith("## Specification 1.0.0\n")).toBe(true);
    expect(r.out.indexOf("### Breaking changes")).toBeLessThan(r.out.indexOf("### Changes to review"));
    expect(r.out).toContain(
      "- `purpose` added as required (`v5.VerificationCreateRequest` `/properties/purpose`, operation `createVerification`). `request-property-required-added`, spec/v5.yaml:30 -> spec/v5.yaml:",
    );
  });
});

describe("a tightened request pattern (nzbn 6 to 13 digits -> 13)", () => {
  const NZBN: Edit[] = [
    set("rules.yaml", ["rules", "nzbn", "pattern"], "^[0-9]{13}$"),
    ...["rules.yaml", "limits.yaml", "errors.yaml"].map((f) => reword(f, "6 to 13 digits", "13 digits")),
  ];
  const both = '"^[0-9]{6,13}$" -> "^[0-9]{13}$" (rule nzbn)';
  it("is breaking (exit 1) and every format shows the old and the new pattern", async () => {
    const head = specWith(NZBN);
    const text = await run([REAL_SPEC, head], temp);
    expect(text.code).toBe(1);
    expect(text.out).toMatch(
      /BREAKING[\s\S]*request-pattern-changed {2}pattern changed, not provably accepting every value it accepted: "\^\[0-9\]\{6,13\}\$" -> "\^\[0-9\]\{13\}\$" \(rule nzbn\)/,
    );
    const json = JSON.parse((await run([REAL_SPEC, head, "--format", "json"], temp)).out) as { findings: { id: string; severity: string; message: string }[] };
    expect(json.findings.find((f) => f.id === "request-pattern-changed")).toMatchObject({ severity: "breaking", message: expect.stringContaining(both) });
    const markdown = (await run([REAL_SPEC, head, "--format", "markdown"], temp)).out;
    expect(markdown.slice(markdown.indexOf("### Breaking changes"))).toContain(both);
  });
});

describe("docs/diff-change-kinds.md", () => {
  it("lists every check id with its default severity and audience", () => {
    const page = readFileSync(join(REAL_SPEC, "..", "docs", "diff-change-kinds.md"), "utf8");
    for (const [id, c] of Object.entries(CHECKS)) expect(page).toContain(`| \`${id}\` | ${c.severity} | ${c.audience} | ${c.summary} |`);
  });
});
