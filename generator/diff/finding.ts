// A finding: one change between the two models, with where it stands on both sides.
import type { SourcePos } from "../diagnostics.js";
import { CHECKS, SEVERITIES, AUDIENCES, type Audience, type CheckId, type Severity } from "./catalog.js";

/** Where a change is: spec positions on both sides and what it belongs to in the outputs. */
export interface Location {
  /** The spec file position on the base side (absent: the thing is new). */
  readonly base?: SourcePos;
  /** The spec file position on the head side (absent: the thing is gone). */
  readonly head?: SourcePos;
  /** Schema id (generated/schemas/<id>.json) and JSON Pointer inside it. */
  readonly schema?: string;
  readonly path?: string;
  /** Operation id (generated/openapi.json) or webhook name. */
  readonly operation?: string;
  readonly webhook?: string;
}

export interface Finding extends Location {
  readonly id: CheckId;
  readonly severity: Severity;
  readonly audience: Audience;
  readonly message: string;
}

export type Emit = (id: CheckId, message: string, where: Location) => void;

/** A sink that collects findings with their catalog severity and audience. */
export function collector(): { emit: Emit; findings: Finding[] } {
  const findings: Finding[] = [];
  const emit: Emit = (id, message, where) => {
    const check = CHECKS[id];
    findings.push({ id, severity: check.severity, audience: check.audience, message, ...where });
  };
  return { emit, findings };
}

const rank = <T>(list: readonly T[], v: T) => list.indexOf(v);
const text = (f: Finding) => `${f.schema ?? ""}\u0000${f.path ?? ""}\u0000${f.operation ?? ""}\u0000${f.webhook ?? ""}\u0000${f.message}`;

/** Breaking first, then by audience, check id and place: the same findings always print in one order. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (left, right) =>
      rank(SEVERITIES, left.severity) - rank(SEVERITIES, right.severity) ||
      rank(AUDIENCES, left.audience) - rank(AUDIENCES, right.audience) ||
      (left.id < right.id ? -1 : left.id > right.id ? 1 : 0) ||
      (text(left) < text(right) ? -1 : text(left) > text(right) ? 1 : 0),
  );
}

/** The same change reached twice (a shape used by two bodies is compared once per body): keep one. */
export function dedupe(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = `${finding.id}\u0000${text(finding)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
