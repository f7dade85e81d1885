// Check: sandbox.yaml. Each choice's `answers` quotes, exactly, an `unknown` ("not shown") of some spec
// file, so the choice and the gap it fills point at each other; the test values pick real statuses.
import { describeValue, nameList } from "../diagnostics.js";
import { at, rawAt, type Checks, type Raw } from "./context.js";

function unknownTexts(c: Checks): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "unknown" && typeof x === "string") out.add(x);
        else walk(x);
      }
    }
  };
  for (const file of c.spec.files) walk(file.data);
  return out;
}

export function checkSandbox(c: Checks): void {
  const root = c.root("sandbox.yaml");
  const sb = rawAt(root);
  const texts = unknownTexts(c);
  for (const [name, choice] of Object.entries(sb.choices as Record<string, Raw>)) {
    if (choice.answers !== undefined && !texts.has(choice.answers)) c.report("VS320", at(root, "choices", name, "answers"), { value: describeValue(choice.answers) });
  }
  const statuses = Object.keys(rawAt(c.root("statuses.yaml")).verificationStatuses);
  const status = (path: (string | number)[], v: unknown) => {
    if (typeof v !== "string" || !statuses.includes(v)) c.report("VS306", at(root, ...path), { value: JSON.stringify(v), allowed: "", choices: nameList(statuses) });
  };
  (sb.testValues.rules as Raw[]).forEach((r, i) => status(["testValues", "rules", i, "outcome"], r.outcome));
  status(["testValues", "default"], sb.testValues.default);
}
