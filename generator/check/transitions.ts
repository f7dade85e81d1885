// Check: the conditions and transitions of statuses.yaml as data. Every `ref` and `onlyWhen` names a
// condition (no cycles); every tested or changed field is a field of the current webhook payload, so the
// webhook runtime can evaluate a condition on a payload; a condition has exactly one form; transition
// ids are unique; `error` names an error type; `attempts.retryCondition` names a condition.
import { nameList } from "../diagnostics.js";
import { at, rawAt, type At, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";
import { shapeSources } from "./shapes.js";

const FORMS = ["all", "any", "not", "ref", "field"] as const;
const TESTS = ["equals", "notEquals", "below", "atLeast", "present"] as const;

/** The property names of the current (v5) webhook payload shape. */
function payloadFields(c: Checks): string[] {
  const payloads = rawAt(c.root("webhooks.yaml")).payloads as Record<string, { schema: string }>;
  const source = payloads.v5 ? shapeSources(c).get(payloads.v5.schema) : undefined;
  return source ? Object.keys(rawAt(source).properties ?? {}) : [];
}

export function checkTransitions(c: Checks): void {
  const root = c.root("statuses.yaml");
  const s = rawAt(root);
  const names = Object.keys(s.conditions ?? {});
  const fields = payloadFields(c);
  const refTo = (a: At, name: unknown) => {
    if (typeof name !== "string" || !names.includes(name)) c.report("VS318", a, { value: JSON.stringify(name), choices: nameList(names) });
  };
  const field = (a: At, name: unknown) => {
    if (typeof name !== "string" || !fields.includes(name)) c.report("VS319", a, { value: JSON.stringify(name), choices: nameList(fields) });
  };
  const condition = (a: At, e: Raw): void => {
    const forms = FORMS.filter((k) => e[k] !== undefined);
    const tests = TESTS.filter((k) => e[k] !== undefined);
    if (forms.length !== 1 || (forms[0] === "field") !== (tests.length === 1) || tests.length > 1) {
      c.report("VS430", a, { keys: [...forms, ...tests].join(", ") || "no test" });
      return;
    }
    if (e.all) (e.all as Raw[]).forEach((x, i) => condition(at(a, "all", i), x));
    if (e.any) (e.any as Raw[]).forEach((x, i) => condition(at(a, "any", i), x));
    if (e.not) condition(at(a, "not"), e.not);
    if (e.ref !== undefined) refTo(at(a, "ref"), e.ref);
    if (e.field !== undefined) field(at(a, "field"), e.field);
    for (const k of ["below", "atLeast"] as const) if (e[k] !== undefined) field(at(a, k), e[k]);
  };
  for (const [name, e] of Object.entries((s.conditions ?? {}) as Record<string, Raw>)) condition(at(root, "conditions", name), e);

  const refs = (e: Raw): string[] => (e.ref ? [e.ref] : [...(e.all ?? []), ...(e.any ?? []), ...(e.not ? [e.not] : [])].flatMap(refs));
  const cyclic = (name: string, path: readonly string[]): boolean =>
    path.includes(name) || refs((s.conditions?.[name] ?? {}) as Raw).some((r) => cyclic(r, [...path, name]));
  for (const name of names) if (cyclic(name, [])) c.report("VS432", at(root, "conditions", name), { value: name }, true);

  for (const [value, st] of Object.entries(s.verificationStatuses as Record<string, Raw>)) {
    if (st.onlyWhen !== undefined) refTo(at(root, "verificationStatuses", value, "onlyWhen"), st.onlyWhen);
  }
  refTo(at(root, "attempts", "retryCondition"), s.attempts.retryCondition);

  const errorTypes = Object.keys(rawAt(c.root("errors.yaml")).errorTypes);
  const ids = new Set<string>();
  (s.transitions as Raw[]).forEach((t, i) => {
    const a = at(root, "transitions", i);
    if (t.id !== undefined && ids.has(t.id)) c.report("VS431", at(a, "id"), { value: JSON.stringify(t.id) });
    if (t.id !== undefined) ids.add(t.id);
    if (t.when) condition(at(a, "when"), t.when);
    if (t.error !== undefined && !errorTypes.includes(t.error))
      c.report("VS311", at(a, "error"), { value: JSON.stringify(t.error), choices: nameList(errorTypes) });
    if (t.effects?.increment !== undefined) field(at(a, "effects", "increment"), t.effects.increment);
    for (const k of Object.keys(t.effects?.set ?? {})) field(at(a, "effects", "set", k), k);
  });
}
