// Issue 6, part 2: Python's own tools on the published outputs. test/python/check_outputs.py validates
// generated/openapi.json with openapi_spec_validator and every payload fixture with jsonschema against
// generated/schemas/*.json; its verdicts must equal the TypeScript validators' for every rule JSON
// Schema expresses.
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, run, typescriptVerdict } from "./helpers.js";
import { needPython } from "../support/services.js";

const python = needPython(["jsonschema", "openapi_spec_validator"], "apt-get install -y python3-jsonschema; pip install openapi-spec-validator");

const SCRIPT = join(ROOT, "test", "python", "check_outputs.py");

interface Report {
  openapi: { valid: boolean; validator?: string; error?: string };
  openapiExamples: number;
  fixtures: {
    total: number;
    expressible: number;
    agreed: number;
    disagreed: string[];
    notExpressible: { name: string; schema: string; typescript: boolean; python: boolean }[];
    knownDifferences: { name: string; difference: string; typescript: boolean; python: boolean }[];
  };
  problems: string[];
}

interface Fixture {
  name?: string;
  schema: string;
  data: unknown;
  valid: boolean;
  jsonSchemaExpressible?: boolean;
  pythonDifference?: string;
}

function fixturesIn(dir: string): Fixture[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
  return files.flatMap((f) => {
    const content = JSON.parse(readFileSync(join(dir, f), "utf8")) as Fixture | Fixture[];
    return Array.isArray(content) ? content : [content];
  });
}

let result: { code: number | null; stdout: string; stderr: string };
let report: Report;

beforeAll(async () => {
  if (!python.found) return;
  result = await run("python3", [SCRIPT, "--json"]);
  const last = result.stdout.trim().split("\n").pop() ?? "";
  if (result.code === 2 || !last.startsWith("{")) {
    // A missing Python package (openapi-spec-validator, jsonschema) fails here, loudly, with its name.
    throw new Error(`test/python/check_outputs.py could not run (exit ${result.code}):\n${result.stderr}${result.stdout}`);
  }
  report = JSON.parse(last) as Report;
}, 120_000);

describe.skipIf(!python.found)("Python: openapi_spec_validator and jsonschema", () => {
  // Made here: a skipped suite runs no hook, so a folder made at load time would be left behind.
  let temp = "";
  beforeAll(() => void (temp = mkdtempSync(join(tmpdir(), "verispec-python-"))));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  it("exits 0 with no problems, and prints a summary with counts", () => {
    expect(report.problems).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/same verdict as the TypeScript validators: \d+/);
    expect(result.stdout).toContain("OK");
  });

  it("openapi_spec_validator accepts generated/openapi.json, and its examples are valid for jsonschema", () => {
    expect(report.openapi.valid).toBe(true);
    expect(report.openapiExamples).toBeGreaterThanOrEqual(7);
  });

  it("runs every fixture, and agrees with the TypeScript validators on every expressible one", () => {
    const all = [...fixturesIn(join(ROOT, "test", "fixtures", "payloads")), ...fixturesIn(join(ROOT, "test", "fixtures", "python-extra"))];
    expect(report.fixtures.total).toBe(all.length);
    expect(report.fixtures.disagreed).toEqual([]);
    expect(report.fixtures.agreed).toBe(report.fixtures.expressible);
    expect(report.fixtures.agreed).toBeGreaterThanOrEqual(10);
    const notExpressible = all.filter((f) => f.jsonSchemaExpressible === false).length;
    expect(report.fixtures.notExpressible).toHaveLength(notExpressible);
    for (const n of report.fixtures.notExpressible) expect(result.stdout).toContain(n.name);
    expect(report.fixtures.agreed + report.fixtures.notExpressible.length + report.fixtures.knownDifferences.length).toBe(all.length);
  });

  it("pins the known differences of Python's jsonschema (README: For other languages)", () => {
    const kinds = new Set(report.fixtures.knownDifferences.map((k) => k.difference));
    // Python re's `$` matches before a final newline: always a difference.
    expect(kinds.has("pattern-dollar")).toBe(true);
    for (const k of kinds) expect(["pattern-dollar", "format-uri"]).toContain(k);
    for (const k of report.fixtures.knownDifferences) expect([k.typescript, k.python]).toEqual([false, true]);
  });

  it("the `valid` of the extra fixtures is the TypeScript verdict", async () => {
    const ts = await typescriptVerdict();
    const extra = fixturesIn(join(ROOT, "test", "fixtures", "python-extra"));
    expect(extra.length).toBeGreaterThan(0);
    const wrong = extra.filter((f) => ts.validate(f.schema, f.data) !== f.valid).map((f) => `${f.name} (${ts.source})`);
    expect(wrong).toEqual([]);
  });

  it("agrees on every format fixture (URL, UUID, ISO date-time, Unix ms) with and without the optional format packages", async () => {
    // jsonschema checks `format: date-time` only with rfc3339-validator and `format: uri` only with rfc3987
    // or rfc3986-validator; every schema stating a format also carries a pattern, so the verdicts must not
    // depend on which of them is installed. Hidden here: all three.
    const formatFixtures = fixturesIn(join(ROOT, "test", "fixtures", "payloads")).filter((f) =>
      /website|document-url|idform-response|webhook-|envelope-timestamp/.test(f.name ?? ""),
    );
    expect(formatFixtures.filter((f) => f.valid).length).toBeGreaterThanOrEqual(10);
    expect(formatFixtures.filter((f) => !f.valid).length).toBeGreaterThanOrEqual(20);
    for (const name of ["rfc3339_validator", "rfc3987", "rfc3986_validator"]) {
      mkdirSync(join(temp, "no-formats", name), { recursive: true });
      writeFileSync(join(temp, "no-formats", name, "__init__.py"), `raise ImportError('simulated: ${name} is not installed')\n`);
    }
    const r = await run("python3", [SCRIPT, "--json"], { env: { PYTHONPATH: join(temp, "no-formats") } });
    const bare = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Report;
    expect(bare.fixtures.disagreed).toEqual([]);
    expect(bare.fixtures.agreed).toBe(report.fixtures.agreed);
    for (const f of formatFixtures) expect(report.fixtures.disagreed.join("\n")).not.toContain(f.name);
  }, 60_000);

  it("fails loudly, naming the package, when openapi_spec_validator is missing", async () => {
    // A module of that name that cannot be imported, found before the real one.
    const shadow = join(temp, "shadow", "openapi_spec_validator");
    mkdirSync(shadow, { recursive: true });
    writeFileSync(join(shadow, "__init__.py"), "raise ImportError('simulated: openapi_spec_validator is not installed')\n");
    const r = await run("python3", [SCRIPT], { env: { PYTHONPATH: join(temp, "shadow") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("MISSING PYTHON PACKAGE 'openapi-spec-validator'");
  }, 60_000);

  it("reports a disagreement as a failure", async () => {
    const root = join(temp, "root");
    mkdirSync(join(root, "test", "fixtures", "python-extra"), { recursive: true });
    mkdirSync(join(root, "generated"), { recursive: true });
    const { cpSync } = await import("node:fs");
    cpSync(join(ROOT, "generated", "openapi.json"), join(root, "generated", "openapi.json"));
    cpSync(join(ROOT, "generated", "schemas"), join(root, "generated", "schemas"), { recursive: true });
    writeFileSync(
      join(root, "test", "fixtures", "python-extra", "wrong.json"),
      JSON.stringify({
        name: "claims a 10-digit ABN is valid",
        schema: "v5.Identifiers",
        data: { abn: "1234567890" },
        valid: true,
        errors: [],
        jsonSchemaExpressible: true,
      }),
    );
    const r = await run("python3", [SCRIPT, "--root", root]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("claims a 10-digit ABN is valid: TypeScript validators say valid, jsonschema says invalid");
  }, 60_000);
});
