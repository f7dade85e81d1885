// The v5 interface's behaviour (the service's specification, sections 2.10, 2.11, 3, 7): create, the
// resubmission of a verification of the resubmittable kind (retry, lock, or 475 while pending), and the detail.
import { evaluateCondition } from "../../lifecycle/index.js";
import { errorByRole } from "../binding.js";
import { resultsFor } from "../results.js";
import type { StoreOps } from "../store/port.js";
import type { Verification } from "../store/verifications.js";
import { type Body, obj, type ServiceCore, type ServiceError, str, subjectOf } from "./core.js";
import type { Insert, Writes } from "./writes.js";

type Created = { trace: string; error?: ServiceError; grouped?: true };

export class V5Operations {
  constructor(
    private readonly core: ServiceCore,
    private readonly writes: Writes,
  ) {}

  /** The text of a v5 request the test values read (spec/sandbox.yaml testValues.fields.v5). */
  private testText(body: Body): string | undefined {
    return str(body[this.core.binding.spec.testValues.fields.v5]);
  }

  /** POST /v5/verifications: a new verification, or a resubmission of one of the resubmittable kind (the binding's `resubmittable`). */
  async create(body: Body): Promise<{ trace: string }> {
    const result = await this.createInTransaction(body);
    if (!result.grouped) this.core.hooks.onChange();
    if (result.error) throw result.error;
    return { trace: result.trace };
  }

  private async createInTransaction(body: Body): Promise<Created> {
    const { core, writes } = this;
    const now = core.clock.now();
    const userId = str(body.userId) ?? null;
    const resubmittable = evaluateCondition(core.binding.rules, { ref: core.binding.spec.resubmittable.condition }, body);
    const stakeholders = Array.isArray(body.stakeholders) ? body.stakeholders : [];
    const submit = core.row("submit").trigger;
    const v = writes.newVerification(
      "v5",
      {
        userId,
        type: String(body.type),
        subType: str(body.subType) ?? null,
        name: str(body.name) ?? "",
        country: str(body.country) ?? null,
        request: body,
        outcome: this.testText(body) ?? "",
        maxAttempts: resubmittable ? core.binding.spec.attempts.observedDefaultCap : null,
      },
      now,
    );
    // One new verification needs no lookup: it joins the group commit. A possible resubmission or stakeholders take a transaction.
    if (!(resubmittable && userId !== null) && stakeholders.length === 0) {
      await writes.created.add({ v, trigger: submit });
      return { trace: v.trace, grouped: true };
    }
    return core.db.transaction(async (tx) => {
      if (resubmittable && userId !== null) {
        const existing = await tx.lockLatestResubmittable(userId, core.binding.spec.resubmittable.fields);
        const resubmitted = existing ? await this.resubmit(tx, existing, body) : undefined;
        if (resubmitted) return resubmitted;
      }
      await writes.insert(tx, [{ v, trigger: submit }]);
      const children = this.stakeholders(v, body, stakeholders, now);
      if (children.length) await writes.insert(tx, children);
      return { trace: v.trace };
    });
  }

  /** The verifications of an entity's individual stakeholders (6.2: each gets its own webhooks). */
  private stakeholders(v: Verification, body: Body, stakeholders: readonly unknown[], now: number): Insert[] {
    const { core } = this;
    const submit = core.row("submit").trigger;
    return stakeholders.flatMap((s) => {
      const shape = obj(s);
      const entity = shape.entity ? obj(shape.entity) : shape;
      if (entity.type !== core.individual) return [];
      const roles = Array.isArray(shape.roles) ? shape.roles.filter((r): r is string => typeof r === "string") : str(shape.role) ? [shape.role as string] : [];
      const child = this.writes.newVerification(
        "v5",
        {
          parentTrace: v.trace,
          roles,
          type: core.individual,
          subType: str(entity.subType) ?? null,
          name: str(entity.name) ?? "",
          country: str(entity.country) ?? null,
          outcome: str(entity[core.binding.spec.testValues.fields.stakeholder]) ?? "",
          request: { tags: body.tags ?? [], ...(str(body.onBehalfUid) ? { onBehalfUid: body.onBehalfUid } : {}) },
        },
        now,
      );
      return [{ v: child, trigger: submit }];
    });
  }

  /**
   * A resubmission of an existing verification (the service's specification, sections 3 and 7): while processing is
   * pending (the complete row's `from`) → 475 (nothing stored); rejected → the first row of the table from
   * `rejected` whose condition holds: `retry` (pending, attempt + 1) or `lock` (stays rejected, submission
   * locked, its error). Other statuses: not a resubmission (undefined).
   */
  private async resubmit(tx: StoreOps, v: Verification, body: Body): Promise<Created | undefined> {
    const { core, writes } = this;
    const awaitingProcessing = core.row("complete").from;
    if (v.verificationStatus === awaitingProcessing) throw core.refusal(errorByRole(core.binding.spec, "resubmissionInFlight").type, v.trace);
    const retry = core.row("retry");
    const lock = core.row("lock");
    // A locked submission accepts no resubmission (statuses.yaml locksResubmission): the lock's error, nothing changes.
    if (v.submissionStatus === core.binding.spec.lockingSubmissionStatus) return { trace: v.trace, error: core.refusal(lock.error!, v.trace) };
    if (core.applies(retry, v)) {
      const outcome = core.pickOutcome(this.testText(body), subjectOf(v));
      const patch = {
        ...core.effects(retry, v),
        verificationStatus: retry.to[0]!,
        request: body,
        name: str(body.name) ?? v.name,
        country: str(body.country) ?? v.country,
        dueAt: core.dueAt(core.clock.now()),
        outcome,
      };
      await writes.change(tx, v, patch, retry.trigger);
      return { trace: v.trace };
    }
    if (core.applies(lock, v)) {
      const patch = core.effects(lock, v);
      if (patch.submissionStatus !== v.submissionStatus) await writes.change(tx, v, { ...patch, dueAt: null }, lock.trigger);
      // The lock is a committed state change: the 474 is answered after the transaction commits.
      return { trace: v.trace, error: core.refusal(lock.error!, v.trace) };
    }
    return undefined;
  }

  /** The verification detail of 2.11 (GET /v5/verifications/:trace `data`). */
  detail(v: Verification): Body {
    const r = v.request;
    const { binding } = this.core;
    return {
      trace: v.trace,
      submissionId: v.submissionId,
      ...(v.country ? { country: v.country } : {}),
      type: v.type,
      ...(v.subType ? { subType: v.subType } : {}),
      name: v.name,
      ...(str(r.industry) ? { industry: r.industry } : {}),
      ...(str(r.website) ? { website: r.website } : {}),
      ...(r.identifiers ? { identifiers: r.identifiers } : {}),
      ...(r.addresses ? { addresses: r.addresses } : {}),
      ...(str(r.inputRisk) ? { inputRisk: r.inputRisk } : {}),
      other: [],
      submissionStatus: v.submissionStatus,
      verificationStatus: v.verificationStatus,
      message: binding.rules.statuses[v.verificationStatus]?.meaning ?? "",
      timestamp: v.updatedAt,
      idvRiskScore: resultsFor(binding.spec, v.name).idvRisk,
      attempt: v.attempt,
      ...(v.maxAttempts !== null ? { maxAttempts: v.maxAttempts } : {}),
      ...(v.parentTrace ? { parentTrace: v.parentTrace, roles: v.roles ?? [] } : {}),
    };
  }
}
