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
export function placeText(f: Finding): string {
  const [b, h] = [pos(f.base), pos(f.head)];
  if (b && h) return b === h ? b : `${b} -> ${h}`;
  if (b) return `was ${b}`;
  return h ? `new ${h}` : "";
}

/** Schema id and JSON Pointer, operation, webhook; `code` wraps names (markdown). */
function subjectText(f: Finding, code: (t: string) => string = (t) => t): string {
  return [
    f.schema && `${code(f.schema)}${f.path && f.path !== "/" ? ` ${code(f.path)}` : ""}`,
    f.operation && `operation ${code(f.operation)}`,
    f.webhook && `webhook ${code(f.webhook)}`,
  ]
    .filter(Boolean)
    .join(", ");
}

export function summaryLine(r: DiffResult): string {
  const n = r.findings.length;
  const counts = n === 0 ? "no changes" : SEVERITIES.map((s) => `${count(r, s)} ${s}`).join(", ");
  return `verispec diff ${sideText(r.base)} -> ${sideText(r.head)}: ${counts}`;
}

/** JSON: key order fixed, absent fields left out, positions as { file, line, col }. */
export function toJson(r: DiffResult): string {
  const side = (s: SideInfo) => ({ label: s.label, ...(s.commit ? { commit: s.commit } : {}), specVersion: s.specVersion ?? null });
  const finding = (f: Finding) => ({
    id: f.id,
    severity: f.severity,
    audience: f.audience,
    message: f.message,
    ...(f.schema ? { schema: f.schema } : {}),
    ...(f.path ? { path: f.path } : {}),
    ...(f.operation ? { operation: f.operation } : {}),
    ...(f.webhook ? { webhook: f.webhook } : {}),
    ...(f.base ? { base: { file: f.base.file, line: f.base.line, col: f.base.col } } : {}),
    ...(f.head ? { head: { file: f.head.file, line: f.head.line, col: f.head.col } } : {}),
  });
  const doc = {
    format: JSON_FORMAT_VERSION,
    base: side(r.base),
    head: side(r.head),
    summary: { breaking: count(r, "breaking"), warning: count(r, "warning"), info: count(r, "info") },
    findings: r.findings.map(finding),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const ANSI = { breaking: "\u001b[1;31m", warning: "\u001b[1;33m", info: "\u001b[1;36m", dim: "\u001b[2m", bold: "\u001b[1m", reset: "\u001b[0m" } as const;

/** The terminal summary: breaking first, grouped by audience; ANSI colours only when `color`. */
export function toText(r: DiffResult, color: boolean): string {
  const paint = (style: keyof typeof ANSI, t: string) => (color ? `${ANSI[style]}${t}${ANSI.reset}` : t);
  const lines = [paint("bold", summaryLine(r))];
  for (const severity of SEVERITIES) {
    const group = r.findings.filter((f) => f.severity === severity);
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
const md = (t: string) =>
  t
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replace(/([\\*_<|])/g, "\\$1")))
    .join("");

/** A changelog section, ready for release notes. */
export function toMarkdown(r: DiffResult): string {
  const version = r.head.specVersion ? ` ${r.head.specVersion}` : "";
  const out = [`## Specification${version}`, ""];
  const from = r.base.specVersion ? `${r.base.specVersion} (\`${r.base.label}\`)` : `\`${r.base.label}\``;
  out.push(`Compared with ${from}: ${r.findings.length === 0 ? "no changes." : `${SEVERITIES.map((s) => `${count(r, s)} ${s}`).join(", ")}.`}`);
  for (const severity of SEVERITIES) {
    const group = r.findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    out.push("", `### ${HEADINGS[severity]}`);
    for (const audience of AUDIENCES) {
      const mine = group.filter((f) => f.audience === audience);
      if (mine.length === 0) continue;
      out.push("", `#### ${AUDIENCE_TITLES[audience]}`, "");
      for (const f of mine) {
        const subject = subjectText(f, (t) => `\`${t}\``);
        const place = placeText(f);
        out.push(`- ${md(f.message)}${subject ? ` (${subject})` : ""}. \`${f.id}\`${place ? `, ${place}` : ""}`);
      }
    }
  }
  return `${out.join("\n")}\n`;
}
