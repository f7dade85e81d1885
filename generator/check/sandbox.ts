// Check: sandbox.yaml: the test values pick real statuses; every transition id, error role and choice the sandbox reads
// by name (SANDBOX_NEEDS of templates/sandbox/binding.ts) is there (VS433). (A choice's `answers` quotes the "not shown" it
// fills; a spec version that drops that gap stays valid, so the quote is documentation, not a reference.)
import { nameList } from "../diagnostics.js";
import { SANDBOX_NEEDS } from "../../templates/sandbox/binding.js";
import { at, rawAt, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";

export function checkSandbox(c: Checks): void {
  const root = c.root("sandbox.yaml");
  const sb = rawAt(root);
  const statuses = Object.keys(rawAt(c.root("statuses.yaml")).verificationStatuses);
  const status = (path: (string | number)[], v: unknown) => {
    if (typeof v !== "string" || !statuses.includes(v))
      c.report("VS306", at(root, ...path), { value: JSON.stringify(v), allowed: "", choices: nameList(statuses) });
  };
  (sb.testValues.rules as Raw[]).forEach((r, i) => status(["testValues", "rules", i, "outcome"], r.outcome));
  status(["testValues", "default"], sb.testValues.default);

  const statusesRoot = c.root("statuses.yaml");
  const ids = new Set((rawAt(statusesRoot).transitions as Raw[]).map((t) => t.id));
  for (const [id, why] of Object.entries(SANDBOX_NEEDS.transitions)) {
    if (!ids.has(id)) c.report("VS433", at(statusesRoot, "transitions"), { what: "transition", name: id, why }, true);
  }
  const errorsRoot = c.root("errors.yaml");
  const roles = new Set(Object.values(rawAt(errorsRoot).errorTypes as Record<string, Raw>).map((e) => e.role));
  for (const [role, why] of Object.entries(SANDBOX_NEEDS.errorRoles)) {
    if (!roles.has(role)) c.report("VS433", at(errorsRoot, "errorTypes"), { what: "error role", name: role, why }, true);
  }
  for (const [name, keys] of Object.entries(SANDBOX_NEEDS.choices)) {
    const choice = sb.choices?.[name] as Raw | undefined;
    if (!choice) c.report("VS433", at(root, "choices"), { what: "choice", name, why: `reads its ${keys.join(", ")}` }, true);
    else
      for (const key of keys)
        if (choice[key] === undefined) c.report("VS433", at(root, "choices", name), { what: "key", name: key, why: `reads choices.${name}.${key}` }, true);
  }
}
