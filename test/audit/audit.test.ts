// Issue 12: every row of the service's specification tables (sections 2-8) is found in spec/*.yaml (by
// the spec's own `source:` / `sourceTable:` references) and in the generated JSON Schema it belongs to, and
// what the row states (type, format, allowed values, lengths, required / optional / always present,
// constants, "not shown") holds there. Writes test/.artifacts/spec-audit.{json,md} and prints the counts.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../outputs/helpers.js";
import { type AuditReport, runAudit } from "./audit.js";
import { locateSeed, parseSeedTables, readSeed } from "./seed-tables.js";
import { fieldRows, notesChecks } from "./statements.js";

const seed = locateSeed(ROOT);
if (!seed)
  process.stderr.write(
    "skip: the service's specification was not found (VERISPEC_SPECIFICATION_DIR, shared/seed/ or test/fixtures/specification/); skipping the audit of its tables\n",
  );

const ARTIFACTS = join(ROOT, "test", ".artifacts");

function writeArtifacts(report: AuditReport): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, "spec-audit.json"), `${JSON.stringify(report, null, 2)}\n`);
  const c = report.counts;
  const summary = `specification table audit: ${c.rows} rows read, ${c.checked} checked and passing (${c.enforced} enforced by the schemas, ${c.unknown} mapped to an explicit unknown), ${c.statements} statements, ${report.failures.length} failures`;
  const lines = [
    "# Audit of the specification's tables",
    "",
    summary,
    "",
    "| Section | Row | Spec | Schema | Statements |",
    "|---|---|---|---|---|",
    ...report.rows.map((r) => {
      const statements = [...new Set(r.findings.map((f) => `${f.ok ? "" : "FAIL "}${f.statement}`))].join("; ");
      return `| ${r.section} | ${r.row.replace(/\|/g, "\\|")} | ${r.spec.join(", ")} | ${[...new Set(r.schema)].slice(0, 3).join(", ")} | ${statements.replace(/\|/g, "\\|")} |`;
    }),
    "",
  ];
  writeFileSync(join(ARTIFACTS, "spec-audit.md"), lines.join("\n"));
  return summary;
}

describe.skipIf(!seed)("audit of the specification's tables", () => {
  // Made here: a skipped suite runs no hook, so a folder made at load time would be left behind.
  let temp = "";
  beforeAll(() => void (temp = mkdtempSync(join(tmpdir(), "verispec-audit-"))));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  const text = seed ? readSeed(seed.file) : "";
  const report = seed ? runAudit(text, ROOT) : undefined;

  it("every row of the tables of sections 2.1-2.11, 3, 4, 6.2, 6.3, 7 and 8 holds in the spec and the generated schemas", () => {
    const summary = writeArtifacts(report!);
    process.stdout.write(`${summary} (specification read from ${seed!.origin}; table in test/.artifacts/spec-audit.md)\n`);
    expect(report!.failures).toEqual([]);
  });

  it("reads every table of those sections, and every field row of them", () => {
    const tables = parseSeedTables(text);
    const audited = tables.filter((t) => /^(2(\.\d+)?|3|4(\.\d+)?|6\.2|6\.3|7|8)$/.test(t.section));
    // Sections 2.2-2.9 and 2.11 each have one table (2.1 too); 3 two; 6.2, 6.3, 8 one; 7 two. Section 4 has none.
    expect(audited.map((t) => t.section)).toEqual([
      "2.1",
      "2.2",
      "2.3",
      "2.4",
      "2.5",
      "2.6",
      "2.7",
      "2.8",
      "2.9",
      "2.11",
      "3",
      "3",
      "6.2",
      "6.3",
      "7",
      "7",
      "8",
    ]);
    const tableRows = (section: string) => report!.rows.filter((r) => r.section === section && r.table !== "list").length;
    for (const section of new Set(audited.map((t) => t.section))) {
      // 2.5 has one row per country column.
      const expected = audited.filter((t) => t.section === section).reduce((n, t) => n + t.rows.length * (t.section === "2.5" ? t.header.length - 1 : 1), 0);
      expect(tableRows(section), `section ${section}`).toBe(expected);
    }
    expect(report!.rows.filter((r) => r.table !== "list")).toHaveLength(160);
    expect(report!.counts.checked).toBe(report!.counts.rows);
  });

  it("also reads the field lists written as prose that the spec marks with sourceList (sections 2.9, 2.11, 4)", () => {
    const lists = report!.rows.filter((r) => r.table === "list");
    const labels = [...new Set(lists.map((r) => `${r.section} ${r.row.split(":")[0]}`))].sort();
    expect(labels).toEqual([
      "2.11 Document",
      "2.11 Response envelope",
      "2.11 Stakeholder",
      "2.11 Verification detail",
      "2.9 Forms response",
      "4.2 Response",
      "4.3 Request",
      "4.3 Response",
      "4.4 Body",
    ]);
    expect(lists).toHaveLength(70);
    const timestamp = lists.find((r) => r.row === "Response envelope: timestamp")!;
    expect(timestamp.findings.map((f) => f.statement)).toContain("timestamp: format date-time");
  });

  it("has a valid and an invalid payload fixture for every format the audit found (Python agreement: test/outputs/python.test.ts)", () => {
    const found = new Set(report!.rows.flatMap((r) => r.findings.map((f) => /: format ([a-z0-9-]+)/.exec(f.statement)?.[1]).filter((f): f is string => !!f)));
    expect([...found].sort()).toEqual(["data-uri", "date-time", "ddmmyyyy", "iso3", "seconds-or-ms", "unix-ms", "url", "us-state", "uuid"]);
    const dir = join(ROOT, "test", "fixtures", "payloads");
    const fixtures = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as { formats?: string[]; valid: boolean });
    for (const format of found) {
      const tagged = fixtures.filter((f) => f.formats?.includes(format));
      expect(
        tagged.some((f) => f.valid),
        `a valid fixture for ${format}`,
      ).toBe(true);
      expect(
        tagged.some((f) => !f.valid),
        `an invalid fixture for ${format}`,
      ).toBe(true);
    }
  });

  it("when both the shared specification and the test-only copy exist, they are the same text", () => {
    const copy = join(ROOT, "test", "fixtures", "specification", "000_c6ecb7e3d7e23e71.txt");
    expect(readFileSync(copy, "utf8")).toBe(text);
  });

  it("fails naming section, row and what is missing when a schema loses a format", () => {
    const root = join(temp, "format");
    cpSync(join(ROOT, "spec"), join(root, "spec"), { recursive: true });
    cpSync(join(ROOT, "generated", "schemas"), join(root, "generated", "schemas"), { recursive: true });
    cpSync(join(ROOT, "generated", "validators"), join(root, "generated", "validators"), { recursive: true });
    const file = join(root, "generated", "schemas", "v5.VerificationCreateRequest.json");
    const schema = JSON.parse(readFileSync(file, "utf8"));
    delete schema.$defs["rules.v5Website"].pattern;
    const webhook = join(root, "generated", "schemas", "v5.WebhookPayload.json");
    const payload = JSON.parse(readFileSync(webhook, "utf8"));
    payload.properties.timestamp = { type: "number" };
    payload.required = payload.required.filter((k: string) => k !== "tags");
    writeFileSync(file, JSON.stringify(schema));
    writeFileSync(webhook, JSON.stringify(payload));
    const failures = runAudit(text, root).failures;
    expect(
      failures.some((f) => f.startsWith('section 2.11, row "website"') && f.includes("format url") && f.includes('"www.example.com" should be rejected')),
    ).toBe(true);
    expect(
      failures.some((f) => f.startsWith('section 6.2, row "timestamp"') && f.includes("format unix-ms") && f.includes("1767225600 should be rejected")),
    ).toBe(true);
    expect(failures.some((f) => f.startsWith('section 6.2, row "tags"') && f.includes("tags: required"))).toBe(true);
    expect(failures).toHaveLength(3);
  });

  it("fails when the spec loses the field or the explicit unknown a row maps to", () => {
    const root = join(temp, "spec");
    cpSync(join(ROOT, "spec"), join(root, "spec"), { recursive: true });
    cpSync(join(ROOT, "generated"), join(root, "generated"), { recursive: true });
    const individual = join(root, "spec", "entities", "individual.yaml");
    writeFileSync(individual, readFileSync(individual, "utf8").replace(/^\s+unknown: "List of street type abbreviations: not shown."\n/m, ""));
    const schema = join(root, "generated", "schemas", "v4.entities.Individual.json");
    writeFileSync(
      schema,
      readFileSync(schema, "utf8")
        .replace(/"x-not-shown": "List of street type abbreviations: not shown\."/g, '"x-removed": ""')
        .replace(/Not shown in the service's specification: List of street type abbreviations: not shown\./g, ""),
    );
    const webhooks = join(root, "spec", "webhooks.yaml");
    writeFileSync(webhooks, readFileSync(webhooks, "utf8").replace('sourceTable: "6.3"', ""));
    const failures = runAudit(text, root).failures;
    expect(failures.some((f) => f.startsWith('section 2.2, row "streetType (required if present)"') && f.includes("explicit unknown"))).toBe(true);
    expect(failures.some((f) => f.startsWith('section 6.3, row "trace"') && f.includes('sourceTable: "6.3"'))).toBe(true);
  });
});

describe("finding the specification", () => {
  it("takes VERISPEC_SPECIFICATION_DIR, then shared/seed/ above the repository, then the test-only copy, else nothing", () => {
    const base = mkdtempSync(join(tmpdir(), "verispec-locate-"));
    try {
      const repo = join(base, "clone", "verispec");
      mkdirSync(join(repo, "test", "fixtures", "specification"), { recursive: true });
      expect(locateSeed(repo, {})).toBeUndefined();
      writeFileSync(join(repo, "test", "fixtures", "specification", "spec.txt"), "copy");
      expect(locateSeed(repo, {})?.origin).toBe("test/fixtures/specification (test-only copy)");
      mkdirSync(join(base, "shared", "seed"), { recursive: true });
      writeFileSync(join(base, "shared", "seed", "spec.txt"), "shared");
      expect(locateSeed(repo, {})).toEqual({ file: join(base, "shared", "seed", "spec.txt"), origin: "shared/seed" });
      mkdirSync(join(base, "elsewhere"));
      writeFileSync(join(base, "elsewhere", "spec.txt"), "env");
      expect(locateSeed(repo, { VERISPEC_SPECIFICATION_DIR: join(base, "elsewhere") })?.origin).toBe("VERISPEC_SPECIFICATION_DIR");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("reading the tables", () => {
  const sample = [
    "## 9. Sample",
    "### 9.1 Things (`type` = `thing`)",
    "",
    "| Field | Type | Rules |",
    "|---|---|---|",
    "| code (required) | string | exactly 4 digits |",
    "| label (required if present) | string or null | fewer than 10 characters |",
    "| kind | string | `a`, `b` |",
    "| link | string | URL; optional |",
    "| at | number | Unix milliseconds |",
    "",
    "After the table.",
  ].join("\n");
  const lists = { verificationStatuses: [], submissionStatuses: [] };

  it("finds sections, headers, rows with their lines, and the text around a table", () => {
    const [t] = parseSeedTables(sample);
    expect(t!.section).toBe("9.1");
    expect(t!.header).toEqual(["Field", "Type", "Rules"]);
    expect(t!.rows.map((r) => r.line)).toEqual([6, 7, 8, 9, 10]);
    expect(t!.trail).toBe("After the table.");
  });

  it("turns each row into the checks it states", () => {
    const [t] = parseSeedTables(sample);
    const rows = fieldRows(t!, lists, () => undefined, "Things (`type` = `thing`)");
    expect(rows[0]!.kind).toBe("thing");
    expect(rows.map((r) => r.fields[0]!.checks.map((c) => c.kind))).toEqual([
      ["type", "digits", "required"],
      ["type", "maxLength", "optional", "nonEmpty"],
      ["type", "enum", "optional"],
      ["type", "format", "optional"],
      ["type", "format", "optional"],
    ]);
    expect(rows[1]!.fields[0]!.checks[0]).toEqual({ kind: "type", type: "string", nullable: true });
    expect(rows[1]!.fields[0]!.checks[1]).toEqual({ kind: "maxLength", max: 9 });
  });

  it("reads the readings the seed's words imply", () => {
    expect(notesChecks("always `v5`", lists)).toEqual([{ kind: "required" }, { kind: "const", value: "v5" }]);
    expect(notesChecks("6 to 13 digits", lists)).toEqual([{ kind: "digits", min: 6, max: 13 }]);
    expect(notesChecks("street type abbreviation (list: not shown)", lists)[0]!.kind).toBe("unknown");
    expect(notesChecks("when sent (examples show seconds and milliseconds)", lists)).toEqual([{ kind: "format", format: "seconds-or-ms" }]);
  });
});
