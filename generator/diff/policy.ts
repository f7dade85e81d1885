// What the findings mean for the run: severity overrides (.verispec-diff.yaml), the spec-version check
// and the exit code.
import { existsSync, readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import { UsageError } from "../diagnostics.js";
import { CHECKS, SEVERITIES, isCheckId, type CheckId, type Severity } from "./catalog.js";
import type { Finding, Location } from "./finding.js";

/** Check id -> the severity it is reported with, or "none" to drop it. */
export type Overrides = Readonly<Partial<Record<CheckId, Severity | "none">>>;

export const CONFIG_FILE = ".verispec-diff.yaml";

/**
 * Reads an override file:
 *   severities:
 *     response-property-added: warning
 *     request-pattern-changed: none
 * An unknown check id or severity is a usage error (a typo must not silently change a gate).
 */
export function readOverrides(file: string, required: boolean): Overrides {
  if (!existsSync(file)) {
    if (required) throw new UsageError(`no override file at ${file}`);
    return {};
  }
  const doc = parseDocument(readFileSync(file, "utf8"));
  if (doc.errors.length > 0) throw new UsageError(`${file}: invalid YAML (${doc.errors[0]!.message.split("\n")[0]})`);
  const data = doc.toJS() as unknown;
  if (data === null || data === undefined) return {};
  const severities = (data as { severities?: unknown }).severities;
  if (
    typeof data !== "object" ||
    Array.isArray(data) ||
    Object.keys(data).some((k) => k !== "severities") ||
    (severities !== undefined && (typeof severities !== "object" || severities === null || Array.isArray(severities)))
  ) {
    throw new UsageError(`${file}: expected a mapping with one key, severities: { <check id>: breaking|warning|info|none }`);
  }
  const out: Partial<Record<CheckId, Severity | "none">> = {};
  for (const [id, value] of Object.entries((severities ?? {}) as Record<string, unknown>)) {
    if (!isCheckId(id)) throw new UsageError(`${file}: unknown check id ${JSON.stringify(id)} (list them with 'verispec diff --checks')`);
    if (value !== "none" && !SEVERITIES.includes(value as Severity))
      throw new UsageError(`${file}: ${id}: expected breaking, warning, info or none, found ${JSON.stringify(value)}`);
    out[id] = value as Severity | "none";
  }
  return out;
}

export function applyOverrides(findings: readonly Finding[], overrides: Overrides): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    const override = overrides[f.id];
    if (override === "none") continue;
    out.push(override ? { ...f, severity: override } : f);
  }
  return out;
}

type Semver = readonly [number, number, number];

function parseSemver(version: string | undefined): Semver | undefined {
  const match = version === undefined ? null : /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/**
 * The bump the changes call for, semantic-versioning style: breaking -> major (minor while the major
 * is 0); any other finding -> minor. Returns the finding when the head's specVersion is short of it.
 * No finding when there are no changes, or when the base has no specVersion (specs before it).
 */
export function versionFinding(findings: readonly Finding[], base: string | undefined, head: string | undefined, where: Location): Finding | undefined {
  if (findings.length === 0) return undefined;
  const baseSemver = parseSemver(base);
  if (!baseSemver) return undefined;
  const headSemver = parseSemver(head);
  const breaking = findings.some((f) => f.severity === "breaking");
  const need = breaking ? (baseSemver[0] === 0 ? "minor" : "major") : "minor";
  const ok =
    headSemver !== undefined &&
    (need === "major" ? headSemver[0] > baseSemver[0] : headSemver[0] > baseSemver[0] || (headSemver[0] === baseSemver[0] && headSemver[1] > baseSemver[1]));
  if (ok) return undefined;
  // The other findings, named as such: the summary line counts this one too, so "N breaking" there is N+1 here's.
  const others = findings.length;
  const othersBreaking = findings.filter((f) => f.severity === "breaking").length;
  const counts =
    others === 1 ? `other change (${othersBreaking ? "breaking" : "not breaking"}) calls` : `${others} other changes (${othersBreaking} breaking) call`;
  return {
    id: "spec-version-not-bumped",
    severity: breaking ? "breaking" : "warning",
    audience: CHECKS["spec-version-not-bumped"].audience,
    message: `specVersion ${base} -> ${head ?? "none"}: the ${counts} for a ${need} bump`,
    ...where,
  };
}

export type FailOn = "breaking" | "warning";

export function exitCodeFor(findings: readonly Finding[], failOn: FailOn): number {
  const fails = findings.some((f) => f.severity === "breaking" || (failOn === "warning" && f.severity === "warning"));
  return fails ? 1 : 0;
}
