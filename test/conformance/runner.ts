// A small TypeScript runner of the conformance vectors, as another team would write it: issues compared as
// a set, and the life cycle vectors applied with the generated transition rules (findTransitions).
import type { findTransitions as FindTransitions } from "../../generated/runtime/webhooks/index.js";
import type { WebhookRules } from "../../generated/webhooks.js";

export interface Issue {
  readonly message: string;
  readonly code: string;
  readonly path: readonly (string | number)[];
}

/** The vectors' order: by path, code, message (the service's order is not specified). */
export function sortIssues(issues: readonly Issue[]): Issue[] {
  const key = (i: Issue) => `${JSON.stringify(i.path)}\u0000${i.code}\u0000${i.message}`;
  return issues.map((i) => ({ message: i.message, code: i.code, path: i.path })).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export interface WebhookVector {
  readonly secrets: string[];
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly now: number;
  readonly allowBodySignature?: boolean;
  readonly expect: { verdict: string; reason?: string };
}

interface State {
  verificationStatus: string | null;
  submissionStatus: string | null;
  attempt: number | null;
}

export interface LifecycleVector {
  readonly given: State & { maxAttempts: number | null; type: string; subType: string | null; stakeholder: boolean };
  readonly event: string;
  readonly expect: { outcome: string; transition?: string; error?: string; httpStatus?: number; state?: State; targets?: string[]; why?: string };
}

const ERRORS: Readonly<Record<string, number>> = { too_many_attempts: 474, submission_conflict: 475 };

/** Applies one event with the transition table; the result in the vectors' shape (a refusal without its `why`, which is prose). */
export function lifecycleOutcome(rules: WebhookRules, find: typeof FindTransitions, v: LifecycleVector): LifecycleVector["expect"] {
  const g = v.given;
  const fields: Record<string, unknown> = { ...g, ...(g.stakeholder ? { parentTrace: "entity" } : {}) };
  const keep = { verificationStatus: g.verificationStatus, submissionStatus: g.submissionStatus, attempt: g.attempt };
  const refused = () => ({ outcome: "refused" });
  const [event, target] = v.event.split(":");
  const byId = (id: string) => rules.transitions.find((t) => t.id === id)!;
  if (event === "submit") {
    const row = find(rules, null, byId("submit").to[0]!, fields).find((r) => r.id === "submit");
    return row
      ? { outcome: "transition", transition: row.id!, state: { verificationStatus: row.to[0]!, submissionStatus: "submitted", attempt: 1 } }
      : refused();
  }
  if (event === "complete") {
    const row = find(rules, g.verificationStatus, target!, fields).find((r) => r.id === "complete");
    return row ? { outcome: "transition", transition: row.id!, state: { ...keep, verificationStatus: target! } } : refused();
  }
  if (event === "resubmit") {
    // In flight (still being processed): 475, nothing stored.
    if (g.verificationStatus === byId("complete").from)
      return { outcome: "error", error: "submission_conflict", httpStatus: ERRORS["submission_conflict"]!, state: keep };
    const retry = find(rules, g.verificationStatus, "pending", fields).find((r) => r.id === "retry");
    if (retry) return { outcome: "transition", transition: retry.id!, state: { ...keep, verificationStatus: "pending", attempt: g.attempt! + 1 } };
    const lock = find(rules, g.verificationStatus, "rejected", fields).find((r) => r.id === "lock");
    if (lock)
      return {
        outcome: "error",
        transition: lock.id!,
        error: lock.error!,
        httpStatus: ERRORS[lock.error!]!,
        state: { ...keep, verificationStatus: lock.to[0]!, submissionStatus: String(lock.effects?.set?.["submissionStatus"]) },
      };
    return refused();
  }
  if (event === "remove") {
    const row = find(rules, g.verificationStatus, "removed", fields).find((r) => r.id === "remove");
    return row ? { outcome: "transition", transition: row.id!, state: { ...keep, verificationStatus: "removed" } } : refused();
  }
  if (event === "followUp") {
    const row = rules.transitions.find((r) => r.id === "followUp" && r.from === g.verificationStatus);
    return row ? { outcome: "transition", transition: row.id!, state: { ...keep, verificationStatus: null }, targets: [...row.to] } : refused();
  }
  return refused();
}
