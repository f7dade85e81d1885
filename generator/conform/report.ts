// What `verispec conform` reports: one result per check, as text (one line per failed check, one per kind of
// warning), JSON
// or JUnit XML. No result ever holds a credential: checks record statuses, codes, messages and paths, answers
// are redacted as they arrive (http.ts), and the whole report passes the redaction once more (`redactReport`).

export interface CheckResult {
  /** Stable id: `<area>:<what>`, e.g. `vector:v5.VerificationCreateRequest/name/over-max-length`. */
  readonly id: string;
  readonly operation: string;
  /** `warned`: something the specification lists but does not promise (its presence is not shown); never a failure. */
  readonly outcome: "held" | "failed" | "skipped" | "warned";
  readonly expected?: string;
  readonly got?: string;
  /** Why a check was skipped. */
  readonly reason?: string;
}

export interface Summary {
  readonly baseUrl: string;
  /** The content hash of the spec checked against (the generator's load/spec-hash.ts). */
  readonly specHash?: string;
  readonly checks: number;
  readonly held: number;
  readonly failed: number;
  readonly skipped: number;
  readonly warned: number;
  readonly requests: number;
  readonly webhooks: number;
  readonly seconds: number;
  /** Why the run stopped before its end (its checks so far are all reported). */
  readonly stopped?: string;
}

/** What the report's header says beside the counts (the run's own facts; more may join, e.g. the spec's identity). */
export interface RunFacts {
  readonly baseUrl: string;
  readonly specHash?: string;
  readonly requests: number;
  readonly webhooks: number;
  readonly seconds: number;
  readonly stopped?: string | undefined;
}

export function summarise(facts: RunFacts, results: readonly CheckResult[]): Summary {
  const count = (o: CheckResult["outcome"]) => results.filter((r) => r.outcome === o).length;
  const { stopped, ...rest } = facts;
  return {
    ...rest,
    checks: results.length,
    held: count("held"),
    failed: count("failed"),
    skipped: count("skipped"),
    warned: count("warned"),
    ...(stopped === undefined ? {} : { stopped }),
  };
}

const oneLine = (s: string | undefined, max = 400) => {
  const t = (s ?? "").replace(/\s+/g, " ");
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

/** One line for a failed or warned check (also the proxy's line per finding). */
export const findingLine = (r: CheckResult) =>
  `${r.outcome === "warned" ? "WARN" : "FAIL"} ${r.id} [${r.operation}] expected ${oneLine(r.expected)}; got ${oneLine(r.got)}`;

export const summaryLine = (s: Summary) =>
  `conform ${s.baseUrl}${s.specHash ? ` (specHash ${s.specHash})` : ""}: ${s.checks} checks, ${s.held} held, ${s.failed} failed, ${s.warned} warned, ${s.skipped} skipped; ${s.requests} requests, ${s.webhooks} webhooks received, ${s.seconds.toFixed(1)} s`;

export function textReport(s: Summary, results: readonly CheckResult[]): string {
  const lines = results.filter((r) => r.outcome === "failed").map(findingLine);
  // Warnings repeat per answer: one line per kind, counted.
  const warnings = new Map<string, number>();
  for (const r of results)
    if (r.outcome === "warned")
      warnings.set(
        `[${r.operation}] expected ${oneLine(r.expected)}; got ${oneLine(r.got)}`,
        (warnings.get(`[${r.operation}] expected ${oneLine(r.expected)}; got ${oneLine(r.got)}`) ?? 0) + 1,
      );
  for (const [what, n] of warnings) lines.push(`WARN ${n}× ${what}`);
  const reasons = new Map<string, number>();
  for (const r of results) if (r.outcome === "skipped") reasons.set(r.reason ?? "", (reasons.get(r.reason ?? "") ?? 0) + 1);
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) lines.push(`skipped ${n}: ${reason}`);
  if (s.stopped !== undefined) lines.push(`stopped early: ${s.stopped}`);
  lines.push(summaryLine(s));
  return `${lines.join("\n")}\n`;
}

export const jsonReport = (s: Summary, results: readonly CheckResult[]) => `${JSON.stringify({ summary: s, checks: results })}\n`;

const xml = (s: string) =>
  s
    .replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

/** A warned check is a passing test case with its warning in system-out (JUnit has no warning outcome). */
function junitCase(r: CheckResult): string {
  const open = `    <testcase classname="${xml(r.operation)}" name="${xml(r.id)}">`;
  if (r.outcome === "held") return `${open}</testcase>`;
  if (r.outcome === "skipped") return `${open}<skipped message="${xml(r.reason ?? "")}"/></testcase>`;
  if (r.outcome === "warned") return `${open}<system-out>${xml(`warning: expected ${oneLine(r.expected)}; got ${oneLine(r.got)}`)}</system-out></testcase>`;
  return `${open}<failure message="${xml(`expected ${oneLine(r.expected)}; got ${oneLine(r.got)}`)}"/></testcase>`;
}

export function junitReport(s: Summary, results: readonly CheckResult[]): string {
  const stopped = s.stopped === undefined ? "" : `\n    <system-err>${xml(`stopped early: ${s.stopped}`)}</system-err>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="verispec conform" tests="${s.checks}" failures="${s.failed}" skipped="${s.skipped}" time="${s.seconds.toFixed(3)}">
  <testsuite name="${xml(s.baseUrl)}" tests="${s.checks}" failures="${s.failed}" skipped="${s.skipped}" time="${s.seconds.toFixed(3)}">
    <properties><property name="warned" value="${s.warned}"/>${s.specHash ? `<property name="specHash" value="${xml(s.specHash)}"/>` : ""}</properties>
${results.map(junitCase).join("\n")}${stopped}
  </testsuite>
</testsuites>
`;
}

export type Format = "text" | "json" | "junit";

/** The report in its format, redacted as a whole (a last guard: a secret is never printed, in any encoding). */
export function renderReport(format: Format, s: Summary, results: readonly CheckResult[], redact: <T>(v: T) => T): string {
  const [rs, rr] = [redact(s), redact(results)];
  return format === "json" ? jsonReport(rs, rr) : format === "junit" ? junitReport(rs, rr) : textReport(rs, rr);
}
