// What `verispec conform` reports: one result per check, as text (one line per failed check), JSON or
// JUnit XML. No result ever holds a credential: checks record statuses, codes, messages and paths.

export interface CheckResult {
  /** Stable id: `<area>:<what>`, e.g. `vector:v5.VerificationCreateRequest/name/over-max-length`. */
  readonly id: string;
  readonly operation: string;
  readonly outcome: "held" | "failed" | "skipped";
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
  readonly requests: number;
  readonly webhooks: number;
  readonly seconds: number;
}

export function summarise(baseUrl: string, results: readonly CheckResult[], requests: number, webhooks: number, seconds: number): Summary {
  const count = (o: CheckResult["outcome"]) => results.filter((r) => r.outcome === o).length;
  return { baseUrl, checks: results.length, held: count("held"), failed: count("failed"), skipped: count("skipped"), requests, webhooks, seconds };
}

const oneLine = (s: string | undefined, max = 400) => {
  const t = (s ?? "").replace(/\s+/g, " ");
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

export function textReport(s: Summary, results: readonly CheckResult[]): string {
  const lines = results.filter((r) => r.outcome === "failed").map((r) => `FAIL ${r.id} [${r.operation}] expected ${oneLine(r.expected)}; got ${oneLine(r.got)}`);
  const reasons = new Map<string, number>();
  for (const r of results) if (r.outcome === "skipped") reasons.set(r.reason ?? "", (reasons.get(r.reason ?? "") ?? 0) + 1);
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) lines.push(`skipped ${n}: ${reason}`);
  lines.push(`conform ${s.baseUrl}${s.specHash ? ` (specHash ${s.specHash})` : ""}: ${s.checks} checks, ${s.held} held, ${s.failed} failed, ${s.skipped} skipped; ${s.requests} requests, ${s.webhooks} webhooks received, ${s.seconds.toFixed(1)} s`);
  return `${lines.join("\n")}\n`;
}

export const jsonReport = (s: Summary, results: readonly CheckResult[]) => `${JSON.stringify({ summary: s, checks: results })}\n`;

const xml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

export function junitReport(s: Summary, results: readonly CheckResult[]): string {
  const cases = results.map((r) => {
    const open = `    <testcase classname="${xml(r.operation)}" name="${xml(r.id)}">`;
    if (r.outcome === "held") return `${open}</testcase>`;
    if (r.outcome === "skipped") return `${open}<skipped message="${xml(r.reason ?? "")}"/></testcase>`;
    return `${open}<failure message="${xml(`expected ${oneLine(r.expected)}; got ${oneLine(r.got)}`)}"/></testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="verispec conform" tests="${s.checks}" failures="${s.failed}" skipped="${s.skipped}" time="${s.seconds.toFixed(3)}">
  <testsuite name="${xml(s.baseUrl)}" tests="${s.checks}" failures="${s.failed}" skipped="${s.skipped}" time="${s.seconds.toFixed(3)}">
${s.specHash ? `    <properties><property name="specHash" value="${xml(s.specHash)}"/></properties>\n` : ""}${cases.join("\n")}
  </testsuite>
</testsuites>
`;
}
