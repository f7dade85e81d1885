// `verispec diff` as one straight line: load both sides -> compare -> overrides -> version check -> result.
import { compareSides } from "./compare-model.js";
import { sortFindings } from "./finding.js";
import { applyOverrides, versionFinding, type Overrides } from "./policy.js";
import type { DiffResult } from "./report.js";
import { locate, type Side } from "./sides.js";

export function diffSides(base: Side, head: Side, overrides: Overrides = {}): DiffResult {
  const changes = applyOverrides(compareSides(base, head), overrides);
  const [baseVersion, headVersion] = [base.model.versions.specVersion, head.model.versions.specVersion];
  const bpos = locate(base, "versions.yaml", ["specVersion"]);
  const hpos = locate(head, "versions.yaml", ["specVersion"]);
  const version = versionFinding(changes, baseVersion, headVersion, { ...(bpos ? { base: bpos } : {}), ...(hpos ? { head: hpos } : {}) });
  const findings = version ? [...changes, ...applyOverrides([version], overrides)] : changes;
  const info = (side: Side) => ({
    label: side.label,
    ...(side.commit ? { commit: side.commit } : {}),
    ...(side.model.versions.specVersion ? { specVersion: side.model.versions.specVersion } : {}),
  });
  return { base: info(base), head: info(head), findings: sortFindings(findings) };
}
