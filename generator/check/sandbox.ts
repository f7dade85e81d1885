// Check: sandbox.yaml: the test values pick real statuses. (A choice's `answers` quotes the "not shown" it
// fills; a spec version that drops that gap stays valid, so the quote is documentation, not a reference.)
import { nameList } from "../diagnostics.js";
import { at, rawAt, type Checks, type Raw } from "./context.js";

export function checkSandbox(c: Checks): void {
  const root = c.root("sandbox.yaml");
  const sb = rawAt(root);
  const statuses = Object.keys(rawAt(c.root("statuses.yaml")).verificationStatuses);
  const status = (path: (string | number)[], v: unknown) => {
    if (typeof v !== "string" || !statuses.includes(v)) c.report("VS306", at(root, ...path), { value: JSON.stringify(v), allowed: "", choices: nameList(statuses) });
  };
  (sb.testValues.rules as Raw[]).forEach((r, i) => status(["testValues", "rules", i, "outcome"], r.outcome));
  status(["testValues", "default"], sb.testValues.default);
}
