// Check: statuses.yaml: the older statuses, outcomes and transitions name declared statuses; one
// submission status locks resubmission, and the locking transition sets it.
import { nameList } from "../diagnostics.js";
import { at, rawAt } from "../load/spec-access.js";
import type { Checks } from "./context.js";

export function checkStatuses(c: Checks): void {
  const root = c.root("statuses.yaml");
  const s = rawAt(root);
  const names = Object.keys(s.verificationStatuses);
  const choices = nameList(names);
  (s.olderVerificationStatuses.values as string[]).forEach((v, i) => {
    if (!names.includes(v)) c.report("VS306", at(root, "olderVerificationStatuses", "values", i), { value: JSON.stringify(v), allowed: "", choices });
  });
  for (const [value, st] of Object.entries(s.verificationStatuses as Record<string, { outcome: string }>)) {
    if (st.outcome !== "by_attempts" && !(st.outcome in s.outcomes))
      c.report("VS307", at(root, "verificationStatuses", value, "outcome"), { value: JSON.stringify(st.outcome), choices: nameList(Object.keys(s.outcomes)) });
  }
  for (const key of ["retry", "final"] as const) {
    const outcome = (s.attempts?.rejectionOutcomes as Record<string, string> | undefined)?.[key];
    if (outcome !== undefined && !(outcome in s.outcomes))
      c.report("VS307", at(root, "attempts", "rejectionOutcomes", key), { value: JSON.stringify(outcome), choices: nameList(Object.keys(s.outcomes)) });
  }
  const ok = (v: string | null) => v === null || v === "any" || names.includes(v);
  (s.transitions as { from: string | null; to: string[] }[]).forEach((t, i) => {
    if (!ok(t.from)) c.report("VS306", at(root, "transitions", i, "from"), { value: JSON.stringify(t.from), allowed: 'null, "any" or ', choices });
    t.to.forEach((v, j) => {
      if (!ok(v)) c.report("VS306", at(root, "transitions", i, "to", j), { value: JSON.stringify(v), allowed: '"any" or ', choices });
    });
  });
  const locking = Object.entries(s.submissionStatuses as Record<string, { locksResubmission?: boolean }>).find(([, x]) => x.locksResubmission === true)?.[0];
  if (locking === undefined) c.report("VS418", at(root, "submissionStatuses"));
  // The transition that locks (the one with an error) sets the locking status: one fact, read by the sandbox and the diff.
  (s.transitions as { id?: string; error?: string; effects?: { set?: Record<string, unknown> } }[]).forEach((t, i) => {
    const set = t.effects?.set?.submissionStatus;
    if (locking !== undefined && t.error !== undefined && set !== undefined && set !== locking) {
      c.report("VS436", at(root, "transitions", i, "effects", "set", "submissionStatus"), { value: JSON.stringify(set), locking: `\`${locking}\`` });
    }
  });
}
