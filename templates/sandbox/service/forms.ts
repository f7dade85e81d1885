// The hosted form's life cycle (the service's specification, sections 4.2, 8): created by /idform, opened within
// its lifetime and its opens without saving, saved as verification attempts up to the form's limit; each
// refusal's status, code and text from the binding (spec/sandbox.yaml hostedForm, limits.yaml).
import { choice } from "../binding.js";
import type { HostedFormRow } from "../store/forms.js";
import type { StoreOps } from "../store/port.js";
import type { Verification } from "../store/verifications.js";
import { type Body, type ServiceCore, ServiceError, subjectOf } from "./core.js";
import type { OlderOperations } from "./older.js";
import type { Writes } from "./writes.js";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export class FormOperations {
  constructor(
    private readonly core: ServiceCore,
    private readonly writes: Writes,
    private readonly older: OlderOperations,
  ) {}

  async create(body: Body): Promise<string> {
    const id = this.core.newId();
    await this.core.db.insertForm(id, this.core.storable(body), this.core.clock.now());
    return id;
  }

  /** A refusal of the hosted form: its status and code (hostedForm.refusals) and message (hostedForm.messages, `{name}` filled). */
  private refusal(key: string, values: Readonly<Record<string, string | number>>): ServiceError {
    const { spec } = this.core.binding;
    const refusal = choice<Record<string, { httpStatus: number; code: string }>>(spec, "hostedForm", "refusals")[key];
    const text = choice<Record<string, string>>(spec, "hostedForm", "messages")[key];
    if (refusal === undefined || text === undefined)
      throw new Error(`sandbox binding: choices.hostedForm refusals or messages lack ${key} (regenerate with 'verispec generate')`);
    const message = text.replace(/\{([a-z]+)\}/g, (all, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : all));
    return new ServiceError(refusal.httpStatus, refusal.code, message);
  }

  /** Whether the form's prefill is reduced by now (limits.yaml formLifetime.prefilledDataReducedAfterMinutes). */
  private reduced(age: number): boolean {
    return age > this.core.binding.spec.limits.prefilledDataReducedAfterMinutes * MINUTE_MS;
  }

  /** Opening the form: lifetime, opens without saving, attempts (limits.yaml). */
  async open(id: string): Promise<{ request: Body; reduced: boolean; trace: string | null }> {
    const { limits } = this.core.binding.spec;
    return this.core.db.transaction(async (tx) => {
      const { form, age } = await this.usable(tx, id);
      if (form.opensSinceSave >= limits.formOpens) throw this.refusal("openLimit", { count: limits.formOpens });
      await tx.countFormOpening(id);
      return { request: form.request, reduced: this.reduced(age), trace: form.trace };
    });
  }

  /** The form, locked for this transaction, when it is within its lifetime and has attempts left (limits.yaml). */
  private async usable(tx: StoreOps, id: string): Promise<{ form: HostedFormRow; age: number }> {
    const { core } = this;
    const { limits } = core.binding.spec;
    const form = await tx.lockForm(id);
    if (!form) throw core.notFound("form");
    const age = core.clock.now() - form.createdAt;
    if (age > limits.formLifetimeDays * DAY_MS) throw this.refusal("expired", { days: limits.formLifetimeDays });
    if (form.attempts >= limits.formAttempts) throw this.refusal("attemptsUsed", { count: limits.formAttempts });
    return { form, age };
  }

  /** The form as a submission reads it (no opening counted): its request and whether the prefill is reduced; refused past its lifetime or attempts. */
  async read(id: string): Promise<{ request: Body; reduced: boolean }> {
    return this.core.db.transaction(async (tx) => {
      const { form, age } = await this.usable(tx, id);
      return { request: form.request, reduced: this.reduced(age) };
    });
  }

  /**
   * Saving the form with a request the validators accepted (form.ts): an attempt; the first creates the
   * verification (trace = verificationUuid), a later one is the retry row of the table. Either sends the
   * webhooks /verify sends for the same data (the entity's and one per individual stakeholder). The form keeps
   * the saved request, so reopening it shows what was saved. One transaction: a refused submission (409)
   * counts no attempt and keeps the open count.
   */
  async submit(id: string, request: Body): Promise<string> {
    const { core, writes } = this;
    await core.db.transaction(async (tx) => {
      await this.usable(tx, id);
      const existing = await tx.lockVerification(id);
      // A further attempt on the form: the retry row of the table (conditions evaluated), else refused.
      if (existing && !core.applies(core.row("retry"), existing)) throw this.refusal("notRetryable", { status: existing.verificationStatus });
      await tx.saveFormAttempt(id, id, request);
      const entity = existing ? await this.retry(tx, existing, request) : await this.first(tx, id, request);
      const children = this.older.stakeholders(entity, request);
      if (children.length) await writes.insert(tx, children);
    });
    core.hooks.onChange();
    return id;
  }

  /** The form's first saved attempt: a new older verification with the form's id as its trace. */
  private async first(tx: StoreOps, id: string, request: Body): Promise<Verification> {
    const entity = this.older.newVerification(request, { id, maxAttempts: this.core.binding.spec.limits.formAttempts });
    await this.writes.insert(tx, [{ v: entity, trigger: this.core.row("submit").trigger }]);
    return entity;
  }

  /** A later attempt: the retry row applied to the form's verification, with the request saved. */
  private async retry(tx: StoreOps, existing: Verification, request: Body): Promise<Verification> {
    const { core } = this;
    const retry = core.row("retry");
    const { name, testText } = this.older.nameOf(request);
    const patch = {
      ...core.effects(retry, existing),
      verificationStatus: retry.to[0]!,
      request: core.storable(request),
      name,
      dueAt: core.dueAt(core.clock.now()),
      outcome: core.pickOutcome(testText, subjectOf(existing)),
    };
    return (await this.writes.change(tx, existing, patch, retry.trigger)).v;
  }
}
