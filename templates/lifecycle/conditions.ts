/**
 * Conditions of the life cycle as data (spec/statuses.yaml `conditions`), and their evaluation over the
 * fields of a verification or a webhook payload (the service's specification, sections 3, 6.2).
 */

/**
 * A condition as data, over the fields of a payload or verification: `all`/`any`/`not`, `ref` to a named
 * condition, or a test of one field. An absent (or null) field passes only `present: false` and
 * `notEquals`; `below`/`atLeast` compare two finite numbers.
 */
export type ConditionExpr =
  | { readonly all: readonly ConditionExpr[] }
  | { readonly any: readonly ConditionExpr[] }
  | { readonly not: ConditionExpr }
  | { readonly ref: string }
  | { readonly field: string; readonly equals: string | number | boolean }
  | { readonly field: string; readonly notEquals: string | number | boolean }
  | { readonly field: string; readonly below: string }
  | { readonly field: string; readonly atLeast: string }
  | { readonly field: string; readonly present: boolean };

/** The named conditions a `ref` may name (spec/statuses.yaml `conditions`). */
export interface NamedConditions {
  readonly conditions: Readonly<Record<string, ConditionExpr>>;
}

/**
 * Evaluates a condition over `fields`. Unknown `ref` names throw: the generator checks them, so one here
 * means hand-made rules with a typo, which must not read as "condition false".
 */
export function evaluateCondition(rules: NamedConditions, expr: ConditionExpr, fields: Readonly<Record<string, unknown>>): boolean {
  if ("all" in expr) return expr.all.every((e) => evaluateCondition(rules, e, fields));
  if ("any" in expr) return expr.any.some((e) => evaluateCondition(rules, e, fields));
  if ("not" in expr) return !evaluateCondition(rules, expr.not, fields);
  if ("ref" in expr) {
    if (!Object.hasOwn(rules.conditions, expr.ref)) throw new RangeError(`unknown condition ${JSON.stringify(expr.ref)}`);
    return evaluateCondition(rules, rules.conditions[expr.ref]!, fields);
  }
  const value = Object.hasOwn(fields, expr.field) ? fields[expr.field] : undefined;
  const present = value !== undefined && value !== null;
  if ("present" in expr) return present === expr.present;
  if ("notEquals" in expr) return !present || value !== expr.notEquals;
  if (!present) return false;
  if ("equals" in expr) return value === expr.equals;
  const other = Object.hasOwn(fields, "below" in expr ? expr.below : expr.atLeast) ? fields["below" in expr ? expr.below : expr.atLeast] : undefined;
  if (typeof value !== "number" || typeof other !== "number" || !Number.isFinite(value) || !Number.isFinite(other)) return false;
  return "below" in expr ? value < other : value >= other;
}
