// generated/conformance/lifecycle.json: what an event does to a verification (the service's specification,
// sections 3 and 7), from the transition table of spec/statuses.yaml: (state, attempt, maxAttempts,
// submissionStatus, event) -> the new state, an error (474 too_many_attempts, 475 submission_conflict),
// or refused (the table has no row for it). Conditions are evaluated by the one evaluator of conditions.
import { evaluateCondition } from "../../../templates/lifecycle/index.js";
import type { Model, Transition } from "../../model/types.js";

export interface LifecycleState {
  readonly verificationStatus: string | null;
  readonly submissionStatus: string | null;
  readonly attempt: number | null;
  /** null: absent (a rejection is then final). */
  readonly maxAttempts: number | null;
  /** The subject: an individual (subType data) or an entity, a stakeholder or not. */
  readonly type: string;
  readonly subType: string | null;
  readonly stakeholder: boolean;
}

export type LifecycleExpect =
  | {
      readonly outcome: "transition";
      readonly transition: string;
      readonly state: Pick<LifecycleState, "verificationStatus" | "submissionStatus" | "attempt">;
      readonly targets?: readonly string[];
    }
  | {
      readonly outcome: "error";
      readonly transition?: string;
      readonly error: string;
      readonly httpStatus: number;
      readonly state: Pick<LifecycleState, "verificationStatus" | "submissionStatus" | "attempt">;
    }
  | { readonly outcome: "refused"; readonly why: string };

export interface LifecycleCase {
  readonly id: string;
  readonly title: string;
  readonly source: string;
  readonly given: LifecycleState;
  /** A transition's trigger, named by its row id (submit, complete, resubmit, remove, followUp). */
  readonly event: string;
  readonly expect: LifecycleExpect;
}

/** The payload-shaped fields the conditions read. */
const fieldsOf = (s: LifecycleState): Record<string, unknown> => ({
  verificationStatus: s.verificationStatus,
  submissionStatus: s.submissionStatus,
  attempt: s.attempt,
  maxAttempts: s.maxAttempts,
  type: s.type,
  subType: s.subType,
  ...(s.stakeholder ? { parentTrace: "entity" } : {}),
});

export function lifecycleCases(model: Model): LifecycleCase[] {
  const rules = { conditions: Object.fromEntries(Object.entries(model.conditions).map(([k, c]) => [k, c.expr])) };
  const row = (id: string) => model.transitions.find((t) => t.id === id)!;
  const holds = (t: Transition, s: LifecycleState) => t.when === undefined || evaluateCondition(rules, t.when, fieldsOf(s));
  const error = (type: string) => model.errorTypes.find((e) => e.type === type)!;
  const out: LifecycleCase[] = [];
  const cap = model.attempts.observedDefaultCap;
  const start = model.attempts.startsAt;
  const individual = (status: string | null, attempt: number | null, maxAttempts: number | null, submissionStatus: string | null): LifecycleState => ({
    verificationStatus: status,
    submissionStatus,
    attempt,
    maxAttempts,
    type: "individual",
    subType: "data",
    stakeholder: false,
  });
  const submitted = model.submissionStatuses[0]!.value;
  const locked = model.submissionStatuses.find((s) => s.locksResubmission)!.value;

  const submit = row("submit");
  out.push({
    id: "submit/new",
    title: "a submission starts pending at the first attempt",
    source: submit.source,
    given: individual(null, null, null, null),
    event: "submit",
    expect: { outcome: "transition", transition: submit.id!, state: { verificationStatus: submit.to[0]!, submissionStatus: submitted, attempt: start } },
  });

  // A status may be only for some subjects (`info`: legal entities only): tried with an individual and an entity.
  const allowedFor = (to: string, s: LifecycleState) => {
    const only = model.verificationStatuses.find((v) => v.value === to)?.onlyWhen;
    return only === undefined || evaluateCondition(rules, { ref: only }, fieldsOf(s));
  };
  const complete = row("complete");
  const entity = (status: string | null): LifecycleState => ({ ...individual(status, start, null, submitted), type: "trust", subType: null });
  for (const to of complete.to) {
    for (const [who, given] of [
      ["individual", individual(complete.from, start, cap, submitted)],
      ["entity", entity(complete.from)],
    ] as const) {
      const expect: LifecycleExpect = allowedFor(to, given)
        ? { outcome: "transition", transition: complete.id!, state: { verificationStatus: to, submissionStatus: submitted, attempt: start } }
        : { outcome: "refused", why: `${to} is not a status of an ${who}` };
      out.push({
        id: `complete/${to}/${who}`,
        title: `processing of an ${who} completes with ${to}`,
        source: complete.source,
        given,
        event: `complete:${to}`,
        expect,
      });
    }
  }
  for (const from of model.verificationStatuses.map((s) => s.value).filter((s) => s !== complete.from)) {
    out.push({
      id: `complete/from-${from}`,
      title: `processing cannot complete from ${from}`,
      source: complete.source,
      given: individual(from, start, cap, submitted),
      event: `complete:${complete.to[0]}`,
      expect: { outcome: "refused", why: `no row of the table leads from ${from} by "${complete.trigger}"` },
    });
  }

  // Resubmission of a rejected individual: retry while the condition holds, else the lock and its 474;
  // while the previous attempt is being processed, 475 (nothing stored, no attempt starts).
  const retry = row("retry");
  const lock = row("lock");
  const conflict = error("submission_conflict");
  const resubmit = (given: LifecycleState): LifecycleExpect => {
    if (given.verificationStatus === complete.from)
      return {
        outcome: "error",
        error: conflict.type,
        httpStatus: conflict.httpStatus,
        state: { verificationStatus: given.verificationStatus, submissionStatus: given.submissionStatus, attempt: given.attempt },
      };
    if (given.verificationStatus === retry.from && holds(retry, given))
      return {
        outcome: "transition",
        transition: retry.id!,
        state: { verificationStatus: retry.to[0]!, submissionStatus: given.submissionStatus, attempt: given.attempt! + 1 },
      };
    if (given.verificationStatus === lock.from && holds(lock, given)) {
      const e = error(lock.error!);
      return {
        outcome: "error",
        transition: lock.id!,
        error: e.type,
        httpStatus: e.httpStatus,
        state: {
          verificationStatus: lock.to[0]!,
          submissionStatus: String(lock.effects?.set?.["submissionStatus"] ?? given.submissionStatus),
          attempt: given.attempt,
        },
      };
    }
    return { outcome: "refused", why: `a resubmission applies only to ${retry.from} (or answers ${conflict.httpStatus} while ${complete.from})` };
  };
  const resubmissions: [string, LifecycleState][] = [];
  for (let attempt = start; attempt <= cap; attempt++)
    resubmissions.push([`rejected/attempt-${attempt}-of-${cap}`, individual(retry.from, attempt, cap, submitted)]);
  resubmissions.push([`rejected/attempt-${cap + 1}-of-${cap + 2}-raised-cap`, individual(retry.from, cap + 1, cap + 2, submitted)]);
  resubmissions.push(["rejected/no-max-attempts", individual(retry.from, start, null, submitted)]);
  resubmissions.push(["rejected/locked-below-cap", individual(retry.from, start, cap, locked)]);
  resubmissions.push([`rejected/already-locked-at-cap`, individual(retry.from, cap, cap, locked)]);
  resubmissions.push(["pending/in-flight", individual(complete.from, 2, cap, submitted)]);
  for (const s of model.verificationStatuses.map((v) => v.value).filter((v) => v !== retry.from && v !== complete.from && v !== "removed"))
    resubmissions.push([`${s}/not-rejected`, individual(s, start, cap, submitted)]);
  for (const [name, given] of resubmissions)
    out.push({
      id: `resubmit/${name}`,
      title: `a resubmission: ${name.replace(/[/-]/g, " ")}`,
      source: retry.source,
      given,
      event: "resubmit",
      expect: resubmit(given),
    });

  // Removal applies to an individual in an entity only; a spec without the row has no removal cases
  // (unlike the rows above, the sandbox does not need it, so verispec check lets a spec leave it out).
  const remove = model.transitions.find((t) => t.id === "remove");
  if (remove) {
    const stakeholder = { ...individual("verified", start, null, submitted), stakeholder: true };
    out.push({
      id: "remove/stakeholder",
      title: "an individual in an entity marked as removed",
      source: remove.source,
      given: stakeholder,
      event: "remove",
      expect: { outcome: "transition", transition: remove.id!, state: { verificationStatus: remove.to[0]!, submissionStatus: submitted, attempt: start } },
    });
    const alone = individual("verified", start, null, submitted);
    out.push({
      id: "remove/not-a-stakeholder",
      title: "removal of an individual who is not in an entity",
      source: remove.source,
      given: alone,
      event: "remove",
      expect: holds(remove, alone)
        ? { outcome: "transition", transition: remove.id!, state: { verificationStatus: remove.to[0]!, submissionStatus: submitted, attempt: start } }
        : { outcome: "refused", why: "only an individual in an entity can be removed" },
    });
  }

  const followUp = row("followUp");
  out.push({
    id: "followUp/info",
    title: "a follow-up answers the requested actions; its target state is not shown",
    source: followUp.source,
    given: { ...individual(followUp.from, start, null, submitted), type: "trust", subType: null },
    event: "followUp",
    expect: {
      outcome: "transition",
      transition: followUp.id!,
      state: { verificationStatus: null, submissionStatus: submitted, attempt: start },
      targets: followUp.to,
    },
  });
  return out;
}
