// Issue 25, item 1: the sandbox's outputs audited the way audit.test.ts audits the schemas. An in-process
// sandbox is driven through every path (sandbox-drive.ts); each statement of sandbox-statements.ts (drawn from
// the service's specification, sections 3, 4, 6.2, 6.3 and the 2.11 / 7 shapes) is checked on every response
// and webhook it applies to. Prints coverage (statements checked / listed); writes test/.artifacts/sandbox-audit.{json,md}.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../outputs/helpers.js";
import { SIGNING_SECRET } from "../sandbox/helpers.js";
import { checkField, formatError, samplesOf, typeError, type Finding } from "./sandbox-checks.js";
import { driveSandbox, type World } from "./sandbox-drive.js";
import { scenarioOf } from "./sandbox-scenarios.js";
import { STATEMENTS, type Statement } from "./sandbox-statements.js";
import { locateSeed, parseSeedTables, readSeed } from "./seed-tables.js";

/** Every statement on the run: a field row on its samples, a scenario once. */
function auditSandbox(world: World, statements: readonly Statement[] = STATEMENTS): Finding[] {
  const samples = samplesOf(world);
  return statements.map((st) => (st.scenario ? { statement: st, checkedOn: 1, failures: scenarioOf(st.scenario)(world) } : checkField(st, samples, world)));
}

const label = (st: Statement) => `section ${st.section}: ${st.says}${st.subjects ? ` [${st.subjects.join(", ")}]` : ""}`;

function report(findings: readonly Finding[]): { summary: string; failures: string[] } {
  const checked = findings.filter((f) => f.checkedOn > 0);
  const failures = findings.flatMap((f) => f.failures.map((x) => `${label(f.statement)}: ${x}`));
  const unchecked = findings.filter((f) => f.checkedOn === 0).map((f) => `${label(f.statement)}: not checked (no response or webhook of the run carries it)`);
  const summary = `sandbox output audit: ${checked.length}/${findings.length} statements checked (${Math.round((100 * checked.length) / findings.length)}%), ${findings.filter((f) => f.failures.length > 0).length} not holding`;
  const dir = join(ROOT, "test", ".artifacts");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "sandbox-audit.json"),
    `${JSON.stringify({ summary, findings: findings.map((f) => ({ ...f.statement, checkedOn: f.checkedOn, failures: f.failures })) }, null, 2)}\n`,
  );
  const rows = findings.map(
    (f) =>
      `| ${f.statement.section} | ${f.statement.says.replace(/\|/g, "\\|")} | ${f.checkedOn} | ${f.failures.length ? `FAIL ${f.failures[0]!.replace(/\|/g, "\\|")}` : f.checkedOn ? "holds" : "not checked"} |`,
  );
  writeFileSync(
    join(dir, "sandbox-audit.md"),
    ["# Audit of the sandbox's outputs", "", summary, "", "| Section | Statement | Checked on | Result |", "|---|---|---|---|", ...rows, ""].join("\n"),
  );
  return { summary, failures: [...failures, ...unchecked] };
}

describe("audit of the sandbox's outputs against the service's specification", () => {
  let world: World;
  beforeAll(async () => {
    world = await driveSandbox(SIGNING_SECRET);
  }, 180_000);

  it("every statement of sections 3, 4, 6.2 and 6.3 holds on every response and webhook it applies to, and each is checked", () => {
    const { summary, failures } = report(auditSandbox(world));
    process.stdout.write(`${summary} (table in test/.artifacts/sandbox-audit.md)\n`);
    expect(failures).toEqual([]);
  });

  it("a statement that does not hold is reported with its section, the item and what is wrong", () => {
    const broken: World = { ...world, webhooks: world.webhooks.map((w, i) => (i === 0 ? { ...w, body: { ...w.body, tags: undefined, attempt: 0 } } : w)) };
    const rows = STATEMENTS.filter((s) => s.section === "6.2" && (s.field === "tags" || s.field === "attempt"));
    const failures = auditSandbox(broken, rows).flatMap((f) => f.failures);
    expect(failures.some((f) => /^webhook 0 .*: tags is missing$/.test(f))).toBe(true);
    expect(failures.some((f) => /^webhook 0 .*: attempt 0 is below 1$/.test(f))).toBe(true);
  });

  it("a scenario that does not hold is reported: a webhook for the change into new, a second stakeholder item with another submissionId", () => {
    const into = world.steps["v5.ada.new"]!;
    const hook = { ...into.hooks.at(-1)!, verificationStatus: "new" };
    const steps = {
      ...world.steps,
      "v5.ada.new": { ...into, hooks: [...into.hooks, hook] },
      "v5.ada.error": {
        ...world.steps["v5.ada.error"]!,
        hooks: [...world.steps["v5.ada.error"]!.hooks.slice(0, -1), hook, world.steps["v5.ada.error"]!.hooks.at(-1)!],
      },
    };
    const [newRow] = STATEMENTS.filter((s) => s.scenario === "newSendsNoWebhook");
    expect(auditSandbox({ ...world, steps }, [newRow!])[0]!.failures).toEqual(['the transition into new sent ["new"]']);
    const itemRow = STATEMENTS.filter((s) => s.meaning === "stakeholderItemTrace");
    const otherId = world.webhooks.map((w) =>
      w.body.stakeholders
        ? { ...w, body: { ...w.body, stakeholders: w.body.stakeholders.map((i: Record<string, unknown>) => ({ ...i, submissionId: "other" })) } }
        : w,
    );
    expect(auditSandbox({ ...world, webhooks: otherId }, itemRow)[0]!.failures[0]).toMatch(/submissionId "other" is not its individual's/);
  });

  it("lists a statement for every field row of the 6.2 and 6.3 tables and every status of section 3", () => {
    const seed = locateSeed(ROOT);
    if (!seed) return void expect(seed).toBeUndefined();
    const tables = parseSeedTables(readSeed(seed.file));
    const fieldsOf = (section: string) =>
      tables
        .filter((t) => t.section === section && t.header[0] === "Field")
        .flatMap((t) => t.rows.flatMap((r) => r.cells[0]!.split(/,|\s\/\s/).map((c) => c.trim())));
    const stated = (section: string) => new Set(STATEMENTS.filter((s) => s.section === section && s.field).map((s) => s.field!.split(".")[0]!));
    for (const section of ["6.2", "6.3"])
      expect(
        fieldsOf(section).filter((f) => !stated(section).has(f)),
        `section ${section}`,
      ).toEqual([]);
    const statuses = tables.find((t) => t.section === "3" && t.header[0] === "Value")!.rows.map((r) => r.cells[0]!);
    const notes = STATEMENTS.filter((s) => s.section === "3").map((s) => s.says.split(":")[0]!);
    expect(statuses.filter((s) => !notes.includes(s))).toEqual([]);
  });
});

describe("the audit's field checks", () => {
  it("tell types and formats apart", () => {
    expect(typeError(1.5, "integer", false)).toBe("is 1.5, not integer");
    expect(typeError(null, "string", true)).toBeUndefined();
    expect(typeError(["a", 1], "array of string", false)).toBe('is ["a",1], not array of string');
    expect(formatError(1767225600, "unix-ms")).toBe("1767225600 is not unix-ms");
    expect(formatError(1767225600000, "unix-ms")).toBeUndefined();
    expect(formatError("2026-01-01T00:00:00.000Z", "date-time")).toBeUndefined();
    expect(formatError("abc-1", "uuid")).toBe('"abc-1" is not uuid');
  });
});
