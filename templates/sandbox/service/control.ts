// Processing and the sandbox's control API: completing pending verifications when their time has come, the
// transitions the control API applies (with the reason when none applies, in the binding's words), and the
// sandbox clock kept in the store.
import { evaluateCondition, findTransitions } from "../../lifecycle/index.js";
import { namesItsTarget } from "../../lifecycle/transitions.js";
import { choiceMessage } from "../binding.js";
import type { Verification } from "../store/verifications.js";
import { type ServiceCore, subjectOf } from "./core.js";
import type { Writes } from "./writes.js";

/** The most verifications one processDue completes (the rest wait for the next call). */
const PROCESS_AT_ONCE = 100;

/** A message key of spec/sandbox.yaml controlApi.messages and the values of its placeholders. */
type Reason = [key: string, values: Record<string, string | number>];

export class ControlOperations {
  constructor(
    private readonly core: ServiceCore,
    private readonly writes: Writes,
  ) {}

  /**
   * Completes every verification awaiting processing whose time has come (several instances: each row once),
   * at most PROCESS_AT_ONCE per call. Each in a transaction of its own: on PGlite's one connection another
   * client's statements run between two (a due 1 MiB verification held it for the whole batch before).
   */
  async processDue(): Promise<number> {
    const { core } = this;
    await this.refreshClock();
    let done = 0;
    while (done < PROCESS_AT_ONCE && (await this.processOneDue())) done++;
    if (done) core.hooks.onChange();
    return done;
  }

  /** Claims one due verification (skipping those another transaction holds) and completes it: false when none is due. */
  private processOneDue(): Promise<boolean> {
    const { core, writes } = this;
    const complete = core.row("complete");
    return core.db.transaction(async (tx) => {
      const [v] = await tx.claimDueVerifications(core.clock.now(), complete.from!, 1);
      if (!v) return false;
      const to = complete.to.includes(v.outcome) ? v.outcome : core.binding.spec.testValues.default;
      await writes.change(tx, v, { verificationStatus: to, dueAt: null }, complete.trigger);
      return true;
    });
  }

  /**
   * POST /_sandbox/verifications/:trace/status: applies a transition of the table. Without `trigger` only
   * rows that name their target are used (not the `to: [any]` row); `trigger: "compliance"` (or another
   * row id) picks a row, e.g. the automated compliance check that may change any status. A conflict with
   * the reason when none applies.
   */
  async applyStatus(trace: string, to: string, opts: { maxAttempts?: number; trigger?: string }): Promise<Verification> {
    const { core, writes } = this;
    const result = await core.db.transaction(async (tx) => {
      const found = await tx.lockVerification(trace);
      if (!found) throw core.notFound("trace", { trace });
      const v = opts.maxAttempts !== undefined ? { ...found, maxAttempts: opts.maxAttempts } : found;
      if (!Object.hasOwn(core.binding.rules.statuses, to))
        throw core.conflict("unknownStatus", { quoted: JSON.stringify(to), statuses: Object.keys(core.binding.rules.statuses).join(", ") });
      if (v.api === "older" && !core.binding.spec.olderVerificationStatuses.includes(to)) {
        throw core.conflict("notInOlderPayload", { to, statuses: core.binding.spec.olderVerificationStatuses.join(", ") });
      }
      const candidates = findTransitions(core.binding.rules, v.verificationStatus, to, subjectOf(v)).filter((r) =>
        opts.trigger ? r.id === opts.trigger : namesItsTarget(r),
      );
      const row = candidates.find((r) => !r.error) ?? candidates[0];
      if (!row) throw core.conflict(...this.whyNot(v, to, opts.trigger));
      const patch = { ...core.effects(row, v), verificationStatus: to, dueAt: to === core.pending ? core.dueAt(core.clock.now()) : null };
      return (await writes.change(tx, v, patch, row.trigger)).v;
    });
    core.hooks.onChange();
    return result;
  }

  /** Why no row of the table takes `v` to `to`: a message key of controlApi.messages and its values. */
  private whyNot(v: Verification, to: string, trigger: string | undefined): Reason {
    const { binding } = this.core;
    const onlyWhen = binding.rules.statuses[to]?.onlyWhen;
    if (onlyWhen && !evaluateCondition(binding.rules, { ref: onlyWhen }, subjectOf(v))) return ["onlyWhenFails", { to, condition: onlyWhen }];
    const unconditioned = findTransitions(binding.rules, v.verificationStatus, to).filter((r) => (trigger ? r.id === trigger : namesItsTarget(r)));
    const from = v.verificationStatus;
    if (unconditioned.length) {
      const transition = unconditioned[0]!;
      const words = (key: string) => choiceMessage(binding.spec, "controlApi", key);
      const values = { from, to, id: String(transition.id), condition: transition.condition ?? words("conditionUnnamed") };
      return [
        "conditionFails",
        { ...values, attempt: v.attempt, maxAttempts: v.maxAttempts ?? words("maxAttemptsAbsent"), submissionStatus: v.submissionStatus },
      ];
    }
    return trigger ? ["triggerElsewhere", { trigger, from, to }] : ["noRow", { from, to }];
  }

  // ---- the sandbox clock, kept in the store ----

  async setClockOffset(offset: number): Promise<void> {
    await this.core.db.saveClockOffset(offset);
  }

  async loadClockOffset(): Promise<number> {
    return this.core.db.loadClockOffset();
  }

  /** Sets the clock to the offset stored now (another instance on the same database may have moved it); an offset out of range is left as it was. */
  async refreshClock(): Promise<void> {
    const stored = await this.loadClockOffset();
    if (this.core.clock.allows(stored)) this.core.clock.set(stored);
  }

  /** Moves the stored offset forward by `ms` (atomically, beside other instances) and the clock with it; false when that would pass the clock's maximum. */
  async advanceClock(ms: number): Promise<boolean> {
    const offset = await this.core.db.advanceClockOffset(ms, this.core.clock.maxOffsetMs);
    if (offset === undefined) return false;
    this.core.clock.set(offset);
    return true;
  }
}
