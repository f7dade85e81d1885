// generated/conformance/lifecycle.json: what an event does to a verification (the service's specification,
// sections 3 and 7), from the transition table of spec/statuses.yaml: (state, attempt, maxAttempts,
// submissionStatus, event) -> the new state, an error (474 too_many_attempts, 475 submission_conflict),
// or refused (the table has no row for it). Conditions are evaluated by the one evaluator of conditions.
import { evaluateCondition } from "../../../templates/lifecycle/index.js";
import { errorTypeOfRole } from "../../model/messages.js";
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

/** What every group of cases reads: the model, its rows, the evaluator of conditions, the fixed numbers. */
interface Table {
  readonly model: Model;
  readonly rules: Parameters<typeof evaluateCondition>[0];
  readonly cap: number;
  readonly start: number;
  readonly submitted: string;
  readonly locked: string;
}

const rowOf = (t: Table, id: string) => t.model.transitions.find((r) => r.id === id)!;
const holds = (t: Table, r: Transition, s: LifecycleState) => r.when === undefined || evaluateCondition(t.rules, r.when, fieldsOf(s));
const errorOf = (t: Table, type: string) => t.model.errorTypes.find((e) => e.type === type)!;
const individual = (status: string | null, attempt: number | null, maxAttempts: number | null, submissionStatus: string | null): LifecycleState => ({
  verificationStatus: status,
  submissionStatus,
  attempt,
  maxAttempts,
  type: "individual",
  subType: "data",
  stakeholder: false,
});

export function lifecycleCases(model: Model): LifecycleCase[] {
  const table: Table = {
    model,
    rules: { conditions: Object.fromEntries(Object.entries(model.conditions).map(([k, c]) => [k, c.expr])) },
    cap: model.attempts.observedDefaultCap,
    start: model.attempts.startsAt,
    submitted: model.submissionStatuses[0]!.value,
    locked: model.submissionStatuses.find((s) => s.locksResubmission)!.value,
  };
  return [submitCase(table), ...completeCases(table), ...resubmitCases(table), ...removeCases(table), followUpCase(table)];
}

function submitCase(t: Table): LifecycleCase {
  const submit = rowOf(t, "submit");
  return {
    id: "submit/new",
    title: "a submission starts pending at the first attempt",
    source: submit.source,
    given: individual(null, null, null, null),
    event: "submit",
    expect: {
      outcome: "transition",
      transition: submit.id!,
      state: { verificationStatus: submit.to[0]!, submissionStatus: t.submitted, attempt: t.start },
    },
  };
}

/** Processing completes into each status, for an individual and an entity, and from no other status. */
function completeCases(t: Table): LifecycleCase[] {
  const out: LifecycleCase[] = [];
  // A status may be only for some subjects (`info`: legal entities only): tried with an individual and an entity.
  const allowedFor = (to: string, s: LifecycleState) => {
    const only = t.model.verificationStatuses.find((v) => v.value === to)?.onlyWhen;
    return only === undefined || evaluateCondition(t.rules, { ref: only }, fieldsOf(s));
  };
  const complete = rowOf(t, "complete");
  const entity = (status: string | null): LifecycleState => ({
    ...individual(status, t.start, null, t.submitted),
    type: "trust",
    subType: null,
  });
  for (const to of complete.to) {
    for (const [who, given] of [
      ["individual", individual(complete.from, t.start, t.cap, t.submitted)],
      ["entity", entity(complete.from)],
    ] as const) {
      const expect: LifecycleExpect = allowedFor(to, given)
        ? {
            outcome: "transition",
            transition: complete.id!,
            state: { verificationStatus: to, submissionStatus: t.submitted, attempt: t.start },
          }
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
  for (const from of t.model.verificationStatuses.map((s) => s.value).filter((s) => s !== complete.from)) {
    out.push({
      id: `complete/from-${from}`,
      title: `processing cannot complete from ${from}`,
      source: complete.source,
      given: individual(from, t.start, t.cap, t.submitted),
      event: `complete:${complete.to[0]}`,
      expect: { outcome: "refused", why: `no row of the table leads from ${from} by "${complete.trigger}"` },
    });
  }
  return out;
}

// Resubmission of a rejected individual: retry while the condition holds, else the lock and its 474;
// while the previous attempt is being processed, 475 (nothing stored, no attempt starts).
function resubmitExpect(t: Table, given: LifecycleState): LifecycleExpect {
  const complete = rowOf(t, "complete");
  const retry = rowOf(t, "retry");
  const lock = rowOf(t, "lock");
  const conflict = errorTypeOfRole(t.model, "resubmissionInFlight");
  if (given.verificationStatus === complete.from)
    return {
      outcome: "error",
      error: conflict.type,
      httpStatus: conflict.httpStatus,
      state: {
        verificationStatus: given.verificationStatus,
        submissionStatus: given.submissionStatus,
        attempt: given.attempt,
      },
    };
  if (given.verificationStatus === retry.from && holds(t, retry, given))
    return {
      outcome: "transition",
      transition: retry.id!,
      state: { verificationStatus: retry.to[0]!, submissionStatus: given.submissionStatus, attempt: given.attempt! + 1 },
    };
  if (given.verificationStatus === lock.from && holds(t, lock, given)) {
    const e = errorOf(t, lock.error!);
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
  return {
    outcome: "refused",
    why: `a resubmission applies only to ${retry.from} (or answers ${conflict.httpStatus} while ${complete.from})`,
  };
}

/** The states a resubmission is tried from: each attempt up to the cap, a raised cap, no cap, locked, in flight. */
function resubmissionStates(t: Table): [string, LifecycleState][] {
  const { cap, start, submitted, locked } = t;
  const retry = rowOf(t, "retry");
  const complete = rowOf(t, "complete");
  const out: [string, LifecycleState][] = [];
  for (let attempt = start; attempt <= cap; attempt++) out.push([`rejected/attempt-${attempt}-of-${cap}`, individual(retry.from, attempt, cap, submitted)]);
  out.push([`rejected/attempt-${cap + 1}-of-${cap + 2}-raised-cap`, individual(retry.from, cap + 1, cap + 2, submitted)]);
  out.push(["rejected/no-max-attempts", individual(retry.from, start, null, submitted)]);
  out.push(["rejected/locked-below-cap", individual(retry.from, start, cap, locked)]);
  out.push([`rejected/already-locked-at-cap`, individual(retry.from, cap, cap, locked)]);
  out.push(["pending/in-flight", individual(complete.from, 2, cap, submitted)]);
  for (const s of t.model.verificationStatuses.map((v) => v.value).filter((v) => v !== retry.from && v !== complete.from && v !== "removed"))
    out.push([`${s}/not-rejected`, individual(s, start, cap, submitted)]);
  return out;
}

function resubmitCases(t: Table): LifecycleCase[] {
  const retry = rowOf(t, "retry");
  return resubmissionStates(t).map(([name, given]) => ({
    id: `resubmit/${name}`,
    title: `a resubmission: ${name.replace(/[/-]/g, " ")}`,
    source: retry.source,
    given,
    event: "resubmit",
    expect: resubmitExpect(t, given),
  }));
}

// Removal applies to an individual in an entity only; a spec without the row has no removal cases
// (unlike the rows above, the sandbox does not need it, so verispec check lets a spec leave it out).
function removeCases(t: Table): LifecycleCase[] {
  const remove = t.model.transitions.find((r) => r.id === "remove");
  if (!remove) return [];
  const removed = {
    outcome: "transition",
    transition: remove.id!,
    state: { verificationStatus: remove.to[0]!, submissionStatus: t.submitted, attempt: t.start },
  } as const;
  const stakeholder = { ...individual("verified", t.start, null, t.submitted), stakeholder: true };
  const alone = individual("verified", t.start, null, t.submitted);
  return [
    {
      id: "remove/stakeholder",
      title: "an individual in an entity marked as removed",
      source: remove.source,
      given: stakeholder,
      event: "remove",
      expect: { ...removed, state: { ...removed.state } },
    },
    {
      id: "remove/not-a-stakeholder",
      title: "removal of an individual who is not in an entity",
      source: remove.source,
      given: alone,
      event: "remove",
      expect: holds(t, remove, alone)
        ? { ...removed, state: { ...removed.state } }
        : { outcome: "refused", why: "only an individual in an entity can be removed" },
    },
  ];
}

function followUpCase(t: Table): LifecycleCase {
  const followUp = rowOf(t, "followUp");
  return {
    id: "followUp/info",
    title: "a follow-up answers the requested actions; its target state is not shown",
    source: followUp.source,
    given: { ...individual(followUp.from, t.start, null, t.submitted), type: "trust", subType: null },
    event: "followUp",
    expect: {
      outcome: "transition",
      transition: followUp.id!,
      state: { verificationStatus: null, submissionStatus: t.submitted, attempt: t.start },
      targets: followUp.to,
    },
  };
}
