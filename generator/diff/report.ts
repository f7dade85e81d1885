// Report formats: the terminal summary, the JSON document (stable shape, documented in the README) and
// a markdown changelog section. Each is a pure function of the result.
import type { SourcePos } from "../diagnostics.js";
import { AUDIENCES, AUDIENCE_TITLES, SEVERITIES, type Severity } from "./catalog.js";
import type { Finding } from "./finding.js";

export interface SideInfo {
  readonly label: string;
  readonly commit?: string;
  readonly specVersion?: string;
}

export interface DiffResult {
  readonly base: SideInfo;
  readonly head: SideInfo;
  /** Sorted: breaking first, then by audience, check id and place. */
  readonly findings: readonly Finding[];
}

export const JSON_FORMAT_VERSION = "verispec-diff/1";

const count = (r: DiffResult, s: Severity) => r.findings.filter((f) => f.severity === s).length;
const pos = (p: SourcePos | undefined) => (p ? `${p.file}:${p.line}` : undefined);
const sideText = (s: SideInfo) => `${s.label}${s.specVersion ? ` (spec ${s.specVersion})` : ""}`;

/** `spec/a.yaml:3` (same place both sides), `spec/a.yaml:3 -> spec/a.yaml:5`, `was spec/a.yaml:3`, `new spec/a.yaml:5`. */
export function placeText(finding: Finding): string {
  const [basePlace, headPlace] = [pos(finding.base), pos(finding.head)];
  if (basePlace && headPlace) return basePlace === headPlace ? basePlace : `${basePlace} -> ${headPlace}`;
  if (basePlace) return `was ${basePlace}`;
  return headPlace ? `new ${headPlace}` : "";
}

/** Schema id and JSON Pointer, operation, webhook; `code` wraps names (markdown). */
function subjectText(finding: Finding, code: (t: string) => string = (t) => t): string {
  return [
    finding.schema && `${code(finding.schema)}${finding.path && finding.path !== "/" ? ` ${code(finding.path)}` : ""}`,
    finding.operation && `operation ${code(finding.operation)}`,
    finding.webhook && `webhook ${code(finding.webhook)}`,
  ]
    .filter(Boolean)
    .join(", ");
}

export function summaryLine(result: DiffResult): string {
  const total = result.findings.length;
  const counts = total === 0 ? "no changes" : SEVERITIES.map((s) => `${count(result, s)} ${s}`).join(", ");
  return `verispec diff ${sideText(result.base)} -> ${sideText(result.head)}: ${counts}`;
}

/** JSON: key order fixed, absent fields left out, positions as { file, line, col }. */
export function toJson(result: DiffResult): string {
  const side = (s: SideInfo) => ({ label: s.label, ...(s.commit ? { commit: s.commit } : {}), specVersion: s.specVersion ?? null });
  const finding = (item: Finding) => ({
    id: item.id,
    severity: item.severity,
    audience: item.audience,
    message: item.message,
    ...(item.schema ? { schema: item.schema } : {}),
    ...(item.path ? { path: item.path } : {}),
    ...(item.operation ? { operation: item.operation } : {}),
    ...(item.webhook ? { webhook: item.webhook } : {}),
    ...(item.base ? { base: { file: item.base.file, line: item.base.line, col: item.base.col } } : {}),
    ...(item.head ? { head: { file: item.head.file, line: item.head.line, col: item.head.col } } : {}),
  });
  const doc = {
    format: JSON_FORMAT_VERSION,
    base: side(result.base),
    head: side(result.head),
    summary: { breaking: count(result, "breaking"), warning: count(result, "warning"), info: count(result, "info") },
    findings: result.findings.map(finding),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const ANSI = { breaking: "\u001b[1;31m", warning: "\u001b[1;33m", info: "\u001b[1;36m", dim: "\u001b[2m", bold: "\u001b[1m", reset: "\u001b[0m" } as const;

/** The terminal summary: breaking first, grouped by audience; ANSI colours only when `color`. */
export function toText(result: DiffResult, color: boolean): string {
  const paint = (style: keyof typeof ANSI, t: string) => (color ? `${ANSI[style]}${t}${ANSI.reset}` : t);
  const lines = [paint("bold", summaryLine(result))];
  for (const severity of SEVERITIES) {
    const group = result.findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    lines.push("", paint(severity, `${severity.toUpperCase()} (${group.length})`));
    for (const audience of AUDIENCES) {
      const mine = group.filter((f) => f.audience === audience);
      if (mine.length === 0) continue;
      lines.push(`  ${AUDIENCE_TITLES[audience]}`);
      for (const f of mine) {
        lines.push(`    ${paint(severity, f.id)}  ${f.message}`);
        const where = [subjectText(f), placeText(f)].filter(Boolean).join("  ");
        if (where) lines.push(`      ${paint("dim", where)}`);
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

const HEADINGS: Readonly<Record<Severity, string>> = { breaking: "Breaking changes", warning: "Changes to review", info: "Other changes" };
/** Escapes markdown outside `code` spans (messages quote names in backticks). */
const escapeMarkdown = (text: string) =>
  text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replace(/([\\*_<|])/g, "\\$1")))
    .join("");

/** A changelog section, ready for release notes. */
export function toMarkdown(result: DiffResult): string {
  const version = result.head.specVersion ? ` ${result.head.specVersion}` : "";
  const out = [`## Specification${version}`, ""];
  const from = result.base.specVersion ? `${result.base.specVersion} (\`${result.base.label}\`)` : `\`${result.base.label}\``;
  out.push(`Compared with ${from}: ${result.findings.length === 0 ? "no changes." : `${SEVERITIES.map((s) => `${count(result, s)} ${s}`).join(", ")}.`}`);
  for (const severity of SEVERITIES) {
    const group = result.findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    out.push("", `### ${HEADINGS[severity]}`);
    for (const audience of AUDIENCES) {
      const mine = group.filter((f) => f.audience === audience);
      if (mine.length === 0) continue;
      out.push("", `#### ${AUDIENCE_TITLES[audience]}`, "");
      for (const f of mine) {
        const subject = subjectText(f, (t) => `\`${t}\``);
        const place = placeText(f);
        out.push(`- ${escapeMarkdown(f.message)}${subject ? ` (${subject})` : ""}. \`${f.id}\`${place ? `, ${place}` : ""}`);
      }
    }
  }
  return `${out.join("\n")}\n`;
}
