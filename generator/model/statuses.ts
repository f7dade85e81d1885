// Model: statuses.yaml: the verification and submission statuses, outcomes, the named conditions, the
// transitions of the life cycle (section 3) and the attempt rules.
import type { Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { ConditionExpr, Model, NamedCondition, Transition } from "./types.js";

export type StatusModel = Pick<
  Model,
  "verificationStatuses" | "olderVerificationStatuses" | "submissionStatuses" | "outcomes" | "conditions" | "transitions" | "attempts"
>;

export function buildStatuses(ctx: ModelContext): StatusModel {
  const statuses = ctx.root("statuses.yaml");
  return {
    verificationStatuses: Object.entries(statuses.verificationStatuses as Record<string, Raw>).map(([value, s]) => ({
      value,
      source: s.source,
      meaning: s.meaning,
      outcome: s.outcome,
      ...(s.onlyWhen ? { onlyWhen: s.onlyWhen } : {}),
      ...(s.sendsWebhook === false ? { sendsWebhook: false as const } : {}),
    })),
    olderVerificationStatuses: [...statuses.olderVerificationStatuses.values],
    submissionStatuses: Object.entries(statuses.submissionStatuses as Record<string, Raw>).map(([value, s]) => ({
      value,
      source: s.source,
      meaning: s.meaning,
      unknown: s.unknown,
      locksResubmission: s.locksResubmission === true,
    })),
    outcomes: statuses.outcomes,
    conditions: buildConditions(statuses),
    transitions: buildTransitions(statuses),
    attempts: statuses.attempts,
  };
}

/** A condition as data, without the `source`/`text` of a named one (checked by check/transitions.ts). */
function conditionExpr(raw: Raw): ConditionExpr {
  const { source: _source, text: _text, ...expr } = raw;
  if (expr.all) return { all: (expr.all as Raw[]).map(conditionExpr) };
  if (expr.any) return { any: (expr.any as Raw[]).map(conditionExpr) };
  if (expr.not) return { not: conditionExpr(expr.not) };
  return expr as ConditionExpr;
}

function buildConditions(statuses: Raw): Record<string, NamedCondition> {
  return Object.fromEntries(
    Object.entries(statuses.conditions as Record<string, Raw>).map(([name, c]) => [name, { name, source: c.source, text: c.text, expr: conditionExpr(c) }]),
  );
}

function buildTransitions(statuses: Raw): Transition[] {
  return (statuses.transitions as Raw[]).map((t) => ({
    // The condition's text has one home: the named condition `when` refers to (check/prose.ts VS435).
    ...(t.id ? { id: t.id } : {}),
    source: t.source,
    from: t.from,
    trigger: t.trigger,
    condition: t.condition ?? statuses.conditions?.[t.when?.ref]?.text,
    to: [...t.to],
    ...(t.when ? { when: conditionExpr(t.when) } : {}),
    ...(t.effects ? { effects: t.effects } : {}),
    ...(t.error ? { error: t.error } : {}),
    alsoHappens: t.alsoHappens,
    unknown: t.unknown,
  }));
}
