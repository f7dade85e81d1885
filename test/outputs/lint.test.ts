// Issue 6, part 1: the published OpenAPI document passes Redocly CLI and Spectral (spectral:oas plus
// verispec's rules in .spectral.yaml) with zero errors; any warning left on is named in the README.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OPENAPI, ROOT, bin, readmeSection, run } from "./helpers.js";

interface RedoclyReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: "error" | "warn"; message: string; location: { pointer: string }[] }[];
}
interface SpectralProblem {
  code: string;
  severity: 0 | 1 | 2 | 3; // error, warn, info, hint
  message: string;
  path: string[];
}

/** Parses the JSON report a linter printed (they print it to stdout, possibly after a log line). */
function jsonReport<T>(stdout: string): T {
  const start = stdout.search(/^[[{]/m);
  if (start < 0) throw new Error(`no JSON report in the linter's output:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(stdout.slice(start)) as T;
}

async function redocly(file: string): Promise<RedoclyReport> {
  const r = await run(bin("redocly"), ["lint", file, "--format=json"], { cwd: ROOT });
  return jsonReport<RedoclyReport>(r.stdout);
}

async function spectral(file: string): Promise<SpectralProblem[]> {
  const r = await run(bin("spectral"), ["lint", "-r", join(ROOT, ".spectral.yaml"), "-f", "json", "--quiet", file], { cwd: ROOT });
  if (r.stdout.trim() === "" && r.code !== 0) throw new Error(`spectral failed: ${r.stderr}`);
  return r.stdout.trim() === "" ? [] : jsonReport<SpectralProblem[]>(r.stdout);
}

const describeProblem = (p: SpectralProblem) => `${p.code} at ${p.path.join(".")}: ${p.message.slice(0, 300)}`;

const temp = mkdtempSync(join(tmpdir(), "verispec-lint-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("Redocly CLI lint (redocly.yaml)", () => {
  it("reports zero errors and zero warnings on generated/openapi.json", async () => {
    const report = await redocly("generated/openapi.json");
    const listed = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(listed).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.totals.warnings).toBe(0);
  }, 60_000);

  it("fails an invalid example (the example check is on, at severity error)", async () => {
    const doc = JSON.parse(readFileSync(OPENAPI, "utf8"));
    doc.paths["/v5/verifications"].post.requestBody.content["application/json"].example.website = 42;
    const file = join(temp, "bad-example.json");
    writeFileSync(file, JSON.stringify(doc));
    const report = await redocly(file);
    expect(report.problems.some((p) => p.ruleId === "no-invalid-media-type-examples" && p.severity === "error")).toBe(true);
  }, 60_000);
});

describe("Spectral (spectral:oas + .spectral.yaml)", () => {
  it("reports zero errors on generated/openapi.json, and every warning left on is named in the README", async () => {
    const problems = await spectral("generated/openapi.json");
    expect(problems.filter((p) => p.severity === 0).map(describeProblem)).toEqual([]);
    const warnings = [...new Set(problems.filter((p) => p.severity === 1).map((p) => p.code))].sort();
    // The one warning left on: the seed names no contact, and verispec does not invent one.
    expect(warnings).toEqual(["info-contact"]);
    const readme = await readmeSection("other-languages");
    for (const code of warnings) expect(readme, `README other-languages section names ${code}`).toContain(code);
  }, 60_000);

  it("verispec's own rules fire on a document that breaks them", async () => {
    const doc = JSON.parse(readFileSync(OPENAPI, "utf8"));
    delete doc.paths["/verify"].post.operationId;
    delete doc.webhooks.verificationEventV5.post.description;
    delete doc.paths["/v5/verifications/{trace}"].get.responses["200"].content["application/json"].example;
    doc.paths["/v5/verifications"].post.responses["422"].content["application/json"].schema = { $ref: "#/components/schemas/v5.Envelope" };
    delete doc.paths["/idform"].post.responses.default.content;
    const file = join(temp, "broken.json");
    writeFileSync(file, JSON.stringify(doc));
    const ours = (await spectral(file)).filter((p) => p.code.startsWith("verispec-"));
    const at = (code: string) => ours.filter((p) => p.code === code && p.severity === 0).map((p) => p.path.join("/"));
    expect(at("verispec-operation-id")).toEqual(["paths//verify/post"]);
    expect(at("verispec-operation-description")).toEqual(["webhooks/verificationEventV5/post"]);
    expect(at("verispec-operation-example")[0]).toBe("paths//v5/verifications/{trace}/get");
    expect(at("verispec-error-envelope").sort()).toEqual([
      "paths//idform/post/responses/default",
      "paths//v5/verifications/post/responses/422/content/application/json/schema/$ref",
    ]);
  }, 60_000);
});
