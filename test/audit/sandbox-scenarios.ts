// The scenario checks of sandbox-statements.ts (section 3's notes and transitions, and the receiver rules of
// 6.2): each reads the steps sandbox-drive.ts recorded and returns its failures (empty: the statement holds).
import type { Json, Step, World } from "./sandbox-drive.js";

type Scenario = (w: World) => string[];

const step = (w: World, label: string): Step => {
  const s = w.steps[label];
  if (!s) throw new Error(`sandbox audit: the run recorded no step ${label}`);
  return s;
};
const last = (s: Step): Json | undefined => s.hooks.at(-1);
const expectThat = (ok: boolean, failure: string): string[] => (ok ? [] : [failure]);
const statuses = (s: Step) => s.hooks.map((h) => `${h.verificationStatus}/${h.submissionStatus}/${h.attempt}`);

/** The webhooks of a trace sent after one step and up to another (both recorded on that trace). */
const between = (before: Step, after: Step) => after.hooks.slice(before.hooks.length);

const SCENARIOS: Readonly<Record<string, Scenario>> = {
  newSendsNoWebhook: (w) => {
    const [before, into, after] = [step(w, "v5.ada.compliance"), step(w, "v5.ada.new"), step(w, "v5.ada.error")];
    return [
      ...expectThat(
        into.status === 200 && into.body?.verificationStatus === "new",
        `the control API did not move the verification to new (${into.status} ${into.text})`,
      ),
      ...expectThat(
        between(before, into).length === 0,
        `the transition into new sent ${JSON.stringify(between(before, into).map((h) => h.verificationStatus))}`,
      ),
      ...expectThat(between(into, after).length === 1 && last(after)?.verificationStatus === "error", "the next change (error) sent no webhook"),
    ];
  },
  pendingAfterRetry: (w) =>
    expectThat(
      last(step(w, "v5.bo.retry2"))?.verificationStatus === "pending",
      `after a retry of a rejected individual: ${statuses(step(w, "v5.bo.retry2")).join(", ")}`,
    ),
  verifiedReachable: (w) =>
    expectThat(
      step(w, "v5.ada.verified").hooks.some((h) => h.verificationStatus === "verified"),
      "no verified webhook after processing",
    ),
  rejectedReachable: (w) =>
    expectThat(
      step(w, "v5.bo.beforeLock").hooks.some((h) => h.verificationStatus === "rejected"),
      "no rejected webhook after processing",
    ),
  infoEntitiesOnly: (w) => [
    ...expectThat(
      last(step(w, "v5.ivy.done"))?.verificationStatus === "verified",
      `an individual named with the info test value ended ${last(step(w, "v5.ivy.done"))?.verificationStatus}`,
    ),
    ...expectThat(step(w, "v5.ivy.toInfo").status === 409, `the control API moved an individual to info (${step(w, "v5.ivy.toInfo").status})`),
    ...expectThat(step(w, "v5.club.info").body?.data?.verificationStatus === "info", "an entity named with the info test value is not in info"),
  ],
  lockedOlderFormat: (w) =>
    expectThat(
      last(step(w, "older.ada.locked"))?.verificationStatus === "locked" && last(step(w, "older.ada.locked"))?.version === undefined,
      "no older webhook with status locked",
    ),
  errorDetailsCall: (w) =>
    expectThat(
      step(w, "v5.ada.getError").status === 200 && step(w, "v5.ada.getError").body?.data?.verificationStatus === "error",
      "the details call of a verification in error does not answer it",
    ),
  removedStakeholdersOnly: (w) => [
    ...expectThat(step(w, "v5.club.removeEntity").status === 409, `an entity was marked removed (${step(w, "v5.club.removeEntity").status})`),
    ...expectThat(
      w.webhooks.every((h) => h.body.verificationStatus !== "removed" || h.body.parentTrace !== undefined),
      "a webhook without parentTrace carries removed",
    ),
  ],
  submissionLockedRefuses: (w) => {
    const [lock, again] = [step(w, "v5.bo.lock"), step(w, "v5.bo.lockAgain")];
    return [
      ...expectThat(again.status === 474, `a resubmission after the lock answered ${again.status}`),
      ...expectThat(between(lock, again).length === 0, "a refused resubmission sent a webhook"),
    ];
  },
  submitInitialWebhook: (w) => {
    const v5 = step(w, "v5.ada.create");
    const first = v5.hooks[0];
    return expectThat(
      first?.verificationStatus === "pending" && first?.trace === v5.trace && first?.attempt === 1,
      `the initial v5 webhook is ${JSON.stringify(first)}`,
    ).concat(SCENARIOS.verifyIsInitialWebhook!(w));
  },
  verifyIsInitialWebhook: (w) =>
    ["older.ada.verify", "older.corp.verify", "older.wes.verify"].flatMap((label) => {
      const s = step(w, label);
      const initial = s.hooks.find((h) => h.verificationStatus === "pending");
      return expectThat(
        initial !== undefined && JSON.stringify(initial) === JSON.stringify(s.body),
        `${label}: the response is not the initial webhook's content`,
      );
    }),
  completeSendsWebhook: (w) =>
    [
      ["v5.ada.verified", "verified"],
      ["v5.bo.beforeLock", "rejected"],
      ["v5.club.info", "info"],
    ].flatMap(([label, to]) => {
      const hooks = statuses(step(w, label!));
      const i = hooks.findIndex((h) => h.startsWith(`${to}/`));
      return expectThat(i > 0 && hooks[i - 1]!.startsWith("pending/"), `${label}: no webhook for pending → ${to} (${hooks.join(", ")})`);
    }),
  retryIncrementsAttempt: (w) => {
    const [before, retry] = [step(w, "v5.bo.create"), step(w, "v5.bo.retry2")];
    const rejected = retry.hooks.at(-2);
    return expectThat(
      rejected?.verificationStatus === "rejected" && last(retry)?.attempt === rejected.attempt + 1 && retry.trace === before.trace,
      `retry: ${statuses(retry).join(", ")}`,
    );
  },
  lockAt474: (w) => {
    const [lock, after] = [step(w, "v5.bo.lock"), step(w, "v5.bo.afterLock")];
    const hook = last(lock);
    return [
      ...expectThat(lock.status === 474 && lock.body?.error?.type === "too_many_attempts", `the resubmission past the cap answered ${lock.status}`),
      ...expectThat(
        hook?.verificationStatus === "rejected" && hook?.submissionStatus === "locked",
        `after the lock: ${JSON.stringify(hook && statuses(lock).at(-1))}`,
      ),
      ...expectThat(after.body?.data?.name === "Bo Rejected" && !after.hooks.some((h, i) => i > 0 && h.attempt > 5), "the data was re-verified after the lock"),
    ];
  },
  complianceSendsWebhook: (w) => {
    const [before, after] = [step(w, "v5.ada.verified"), step(w, "v5.ada.compliance")];
    return expectThat(
      between(before, after)
        .map((h) => h.verificationStatus)
        .join() === "rejected",
      `a compliance change verified → rejected sent ${JSON.stringify(between(before, after).map((h) => h.verificationStatus))}`,
    );
  },
  removedStakeholderWebhook: (w) => {
    const removed = step(w, "v5.club.remove");
    return expectThat(
      removed.status === 200 && last(removed)?.verificationStatus === "removed" && last(removed)?.parentTrace === step(w, "v5.club.create").trace,
      `marking a stakeholder removed sent ${JSON.stringify(last(removed))}`,
    );
  },
  attemptStartsAtOne: (w) =>
    expectThat(
      w.webhooks.filter((h) => h.body.version === "v5").every((h) => h.body.attempt >= 1) && step(w, "v5.bo.create").hooks[0]?.attempt === 1,
      "a first webhook's attempt is not 1",
    ),
  capRaisable: (w) => {
    const raised = step(w, "v5.di.raised");
    const [at5] = step(w, "v5.di.retry5").hooks.slice(-1);
    return [
      ...expectThat(step(w, "v5.bo.create").hooks[0]?.maxAttempts === 5, `the default cap is ${step(w, "v5.bo.create").hooks[0]?.maxAttempts}, 5 observed`),
      ...expectThat(
        at5?.attempt === 5 && raised.status === 200 && last(raised)?.attempt === 6 && last(raised)?.maxAttempts === 6,
        `raising the cap to 6 at attempt 5: ${raised.status} ${JSON.stringify(last(raised))}`,
      ),
    ];
  },
  finalWithoutCap: (w) => {
    const retry = step(w, "v5.lone.retry");
    const rejected = step(w, "v5.lone.create");
    return expectThat(
      retry.status === 409 && retry.hooks.every((h) => h.maxAttempts === undefined),
      `a rejected entity without maxAttempts was retried (${retry.status}, ${statuses(rejected).join(", ")})`,
    );
  },
  lockedIsFinal: (w) => SCENARIOS.submissionLockedRefuses!(w),
  retryWhenBelowCap: (w) => {
    const hooks = step(w, "v5.bo.retry5").hooks;
    const i = hooks.findIndex((h) => h.attempt === 5 && h.verificationStatus === "pending");
    return expectThat(
      i > 0 && hooks[i - 1]!.verificationStatus === "rejected" && hooks[i - 1]!.attempt === 4 && hooks[i - 1]!.maxAttempts === 5,
      `a rejected webhook with attempt 4 of 5 was not followed by a retry (${statuses(step(w, "v5.bo.retry5")).join(", ")})`,
    );
  },
  infoAndErrorDetails: (w) => [
    ...SCENARIOS.errorDetailsCall!(w),
    ...expectThat(
      step(w, "v5.club.info").status === 200 && step(w, "v5.club.info").body?.data?.verificationStatus === "info",
      "the details call of an entity in info",
    ),
  ],
  stakeholderWebhookPerIndividual: (w) => {
    const club = step(w, "v5.club.create");
    const traces = new Set(w.webhooks.filter((h) => h.body.parentTrace === club.trace).map((h) => h.body.trace));
    const older = step(w, "older.corp.verify");
    const olderTraces = new Set(w.webhooks.filter((h) => h.body.parentVerificationTrace === older.trace).map((h) => h.body.trace));
    return [
      ...expectThat(traces.size === 2 && club.hooks.length > 0, `v5: ${traces.size} stakeholder traces for 2 individuals (and a company)`),
      ...expectThat(olderTraces.size === 2, `older: ${olderTraces.size} individual webhooks for 2 individual stakeholders`),
    ];
  },
  statusIsLatestWebhook: (w) =>
    ["older.ada.byTrace", "older.ada.byUserId", "older.corp.status"].flatMap((label) => {
      const s = step(w, label);
      return expectThat(s.status === 200 && JSON.stringify(s.body) === JSON.stringify(s.hooks.at(-1)), `${label}: not the latest webhook's content`);
    }),
  createTraceIdentifies: (w) => {
    const s = step(w, "v5.ada.create");
    return expectThat(
      s.hooks[0]?.trace === s.trace && step(w, "v5.ada.verified").body?.data?.trace === s.trace,
      "the create's trace does not name the verification",
    );
  },
  emptyArraysAccepted: (w) =>
    expectThat(step(w, "v5.empty.create").status === 200, `empty documents and stakeholders answered ${step(w, "v5.empty.create").status}`),
  conflictStoresNothing: (w) => {
    const [retry, conflict] = [step(w, "v5.bo.retry2"), step(w, "v5.bo.conflict")];
    return expectThat(
      conflict.status === 475 && between(retry, conflict).length === 0,
      `the 475 answered ${conflict.status} and sent ${between(retry, conflict).length} webhooks`,
    );
  },
  timestampIncreases: (w) => {
    const byTrace = new Map<string, number[]>();
    for (const h of w.webhooks) byTrace.set(h.body.trace, [...(byTrace.get(h.body.trace) ?? []), h.body.timestamp]);
    const bad = [...byTrace].filter(([, ts]) => new Set(ts).size !== ts.length);
    return expectThat(bad.length === 0, `traces with two changes at one timestamp: ${bad.map(([t]) => t).join(", ")}`);
  },
};

export function scenarioOf(name: string): Scenario {
  const f = SCENARIOS[name];
  if (!f) throw new Error(`sandbox audit: no scenario ${name}`);
  return f;
}
