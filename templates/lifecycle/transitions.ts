/**
 * The transition table of the life cycle (the service's specification, section 3) as data, and which of
 * its rows allow a change of verification status.
 */
import { evaluateCondition, type ConditionExpr } from "./conditions.js";
import type { StatusRule, VerificationStatus } from "./statuses.js";

/** One row of the transition table (the service's specification, section 3). */
export interface TransitionRule {
  readonly id?: string;
  /** null = no prior state, "any" = any state */
  readonly from: VerificationStatus | null;
  readonly to: readonly VerificationStatus[];
  readonly trigger: string;
  /** The specification's words for the condition. */
  readonly condition?: string;
  /** The condition as data; absent: always. */
  readonly when?: ConditionExpr;
  readonly effects?: { readonly increment?: string; readonly set?: Readonly<Record<string, string | number | boolean>> };
  readonly error?: string;
}

/** The table's word for "any state" in `from` and `to` (the format of statuses.yaml transitions, not a status). */
export const ANY_STATUS = "any";

/** Whether a row names its target statuses (not the `to: [any]` row, which may change any status). */
export function namesItsTarget(row: TransitionRule): boolean {
  return !row.to.includes(ANY_STATUS);
}

/** What the table is read with: the statuses (for `onlyWhen` and "any"), the named conditions and the rows. */
export interface TransitionTable {
  readonly statuses: Readonly<Record<VerificationStatus, Pick<StatusRule, "onlyWhen">>>;
  readonly conditions: Readonly<Record<string, ConditionExpr>>;
  readonly transitions: readonly TransitionRule[];
}

/**
 * Whether the transition table allows `from` → `to` (the service's specification, section 3). `from` null is "no prior state";
 * a row with `from: "any"` applies to every status the rules know (not to null: "no state" is not a state).
 * With `fields` (the verification's or payload's fields) each row's condition and the target status's
 * `onlyWhen` are evaluated; without, the answer is whether any row could allow it.
 */
export function canTransition(
  rules: TransitionTable,
  from: VerificationStatus | null,
  to: VerificationStatus,
  fields?: Readonly<Record<string, unknown>>,
): boolean {
  return findTransitions(rules, from, to, fields).length > 0;
}

/** The rows of the table that allow `from` → `to` (conditions evaluated when `fields` is given), in table order. */
export function findTransitions(
  rules: TransitionTable,
  from: VerificationStatus | null,
  to: VerificationStatus,
  fields?: Readonly<Record<string, unknown>>,
): TransitionRule[] {
  if (!Object.hasOwn(rules.statuses, to)) return [];
  const target = rules.statuses[to]!;
  if (fields && target.onlyWhen !== undefined && !evaluateCondition(rules, { ref: target.onlyWhen }, fields)) return [];
  return rules.transitions.filter(
    (row) =>
      fromMatches(rules, row.from, from) &&
      (row.to.includes(to) || (!namesItsTarget(row) && to !== from)) &&
      (!fields || row.when === undefined || evaluateCondition(rules, row.when, fields)),
  );
}

function fromMatches(rules: TransitionTable, rowFrom: VerificationStatus | null, from: VerificationStatus | null): boolean {
  if (rowFrom === from) return true;
  return rowFrom === ANY_STATUS && from !== null && Object.hasOwn(rules.statuses, from);
}
