// Check: sandbox.yaml: the test values pick real statuses; every transition id, error role and choice the sandbox reads
// by name (SANDBOX_NEEDS of templates/sandbox/binding.ts) is there (VS433), each error role is one error's (VS442), and
// the conditions the sandbox reads as data have the form it reads (VS443). (A choice's `answers` quotes the "not shown" it
// fills; a spec version that drops that gap stays valid, so the quote is documentation, not a reference.)
import { nameList } from "../diagnostics.js";
import { SANDBOX_NEEDS } from "../../templates/sandbox/binding.js";
import { at, rawAt, type At, type Raw } from "../load/spec-access.js";
import type { PathSegment } from "../pointer.js";
import type { Checks } from "./context.js";
import { shapeSources } from "./shapes.js";

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
  checkRolesOnce(c);
  checkReadConditions(c);
  checkReadValues(c);
  for (const [name, keys] of Object.entries(SANDBOX_NEEDS.choices)) {
    const choice = sb.choices?.[name] as Raw | undefined;
    if (!choice) c.report("VS433", at(root, "choices"), { what: "choice", name, why: `reads its ${keys.join(", ")}` }, true);
    else
      for (const key of keys)
        if (choice[key] === undefined) c.report("VS433", at(root, "choices", name), { what: "key", name: key, why: `reads choices.${name}.${key}` }, true);
  }
}

/** A role names one error type: the runtime (the sandbox's refusals, the client's error classes) looks the error up by it. */
function checkRolesOnce(c: Checks): void {
  const root = c.root("errors.yaml");
  const owner = new Map<string, string>();
  for (const [type, e] of Object.entries(rawAt(root).errorTypes as Record<string, Raw>)) {
    if (typeof e.role !== "string") continue;
    const first = owner.get(e.role);
    if (first !== undefined) c.report("VS442", at(root, "errorTypes", type, "role"), { role: e.role, first, type });
    else owner.set(e.role, type);
  }
}

/** The conditions of statuses.yaml the sandbox reads as data (emit/sandbox.ts), and the form it reads each in. */
const READ_CONDITIONS: Readonly<Record<string, { readonly shape: string; readonly why: string; readonly fits: (e: Raw) => boolean }>> = {
  isEntity: {
    shape: "`field: type` with `notEquals` the individual's type",
    why: "tells an individual from an entity by it",
    fits: (e) => e.field === "type" && typeof e.notEquals === "string",
  },
  resubmittable: {
    shape: "`all` of two `equals` tests, on `type` and on `subType`",
    why: "selects what a create resubmits by these two values",
    fits: (e) =>
      Array.isArray(e.all) &&
      e.all.length === 2 &&
      ["type", "subType"].every((field) => (e.all as Raw[]).some((t) => t.field === field && typeof t.equals === "string")),
  },
};

function checkReadConditions(c: Checks): void {
  const root = c.root("statuses.yaml");
  const conditions = (rawAt(root).conditions ?? {}) as Record<string, Raw>;
  for (const [name, { shape, why, fits }] of Object.entries(READ_CONDITIONS)) {
    const e = conditions[name];
    if (e === undefined) c.report("VS433", at(root, "conditions"), { what: "condition", name, why }, true);
    else if (!fits(e)) c.report("VS443", at(root, "conditions", name), { name, shape, why });
  }
}

/** Values the sandbox copies from the spec (emit/sandbox.ts sandboxSpec): in a file, or in a shape wherever it is defined. */
const READ_VALUES: readonly { readonly file?: string; readonly shape?: string; readonly path: readonly PathSegment[]; readonly why: string }[] = [
  { file: "limits.yaml", path: ["limits", "formLifetime", "days"], why: "expires a hosted form after it" },
  { file: "limits.yaml", path: ["limits", "formLifetime", "prefilledDataReducedAfterMinutes"], why: "reduces a form's prefilled data after it" },
  { file: "limits.yaml", path: ["limits", "formOpens", "count"], why: "counts a form's opens against it" },
  { file: "limits.yaml", path: ["limits", "formAttempts", "count"], why: "counts a form's attempts against it" },
  { shape: "v5.VerificationCreateResponse", path: ["properties", "message", "examples", 0], why: "answers a create with it" },
  { shape: "v5.SuccessEnvelope", path: ["properties", "status", "const"], why: "writes it in every success envelope" },
  { shape: "v5.ErrorEnvelope", path: ["properties", "status", "const"], why: "writes it in every error envelope" },
  { shape: "v4.IdFormResponse", path: ["properties", "status", "const"], why: "answers a form's creation with it" },
  { shape: "v4.RequestedDocument", path: ["properties", "type", "const"], why: "names a requested document with it" },
];

/** Each value of READ_VALUES is written (VS433 at the deepest part of its path that is). */
function checkReadValues(c: Checks): void {
  const shapes = shapeSources(c);
  for (const { file, shape, path, why } of READ_VALUES) {
    const start: At | undefined = file !== undefined ? c.root(file) : shapes.get(shape!);
    const name = [...(shape !== undefined ? [shape] : []), ...path].join(".");
    if (start === undefined) {
      c.report("VS433", c.root("v5.yaml"), { what: "shape", name: shape!, why: `reads ${name}: it ${why}` }, true);
      continue;
    }
    let reached = start;
    for (const segment of path) {
      const here = rawAt(reached) as unknown;
      if (here === null || typeof here !== "object" || (here as Raw)[segment as string] === undefined) break;
      reached = at(reached, segment);
    }
    if (reached.path.length !== start.path.length + path.length) c.report("VS433", reached, { what: "value", name, why }, true);
  }
}
