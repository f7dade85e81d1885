// The older interface's behaviour (the service's specification, sections 4.1, 4.3, 4.4, 6.3): /verify and an
// entity's individual stakeholders, the latest status by trace or userId, and the follow-up request.
import { choice } from "../binding.js";
import type { Verification } from "../store/verifications.js";
import { type Body, obj, olderPersonName, olderStakeholderSubmissionId, olderStakeholderTrace, type ServiceCore, str } from "./core.js";
import type { Insert, Writes } from "./writes.js";

export class OlderOperations {
  constructor(
    private readonly core: ServiceCore,
    private readonly writes: Writes,
  ) {}

  /** The name of an older request and the text the test values read (testValues.fields.olderIndividual / olderEntity). */
  nameOf(body: Body): { name: string; testText: string | undefined } {
    const fields = obj(body.fields);
    const testFields = this.core.binding.spec.testValues.fields;
    if (body.type === this.core.individual) {
      return { name: olderPersonName(fields), testText: str(fields[testFields.olderIndividual]) };
    }
    return { name: str(fields.name) ?? String(body.type), testText: str(fields[testFields.olderEntity]) };
  }

  /**
   * POST /verify: the response is the initial webhook's content (the service's specification, section 4.1).
   * An entity's individual stakeholders get their own verifications and webhooks (6.2: one per individual).
   */
  async verify(body: Body): Promise<{ trace: string; text: string }> {
    const { core, writes } = this;
    const v = this.newVerification(body);
    const submit = core.row("submit").trigger;
    const children = this.stakeholders(v, body);
    if (!children.length) return { trace: v.trace, text: await writes.created.add({ v, trigger: submit }) };
    const text = await core.db.transaction(async (tx) => {
      const { texts } = await writes.insert(tx, [{ v, trigger: submit }]);
      await writes.insert(tx, children); // after the entity: their webhooks read its userId (parentUserId)
      return texts[0]!;
    });
    core.hooks.onChange();
    return { trace: v.trace, text };
  }

  /** The verifications of an older entity's individual stakeholders in the entity's current attempt (traces: olderStakeholderTrace). */
  stakeholders(entity: Verification, body: Body): Insert[] {
    const { core } = this;
    if (body.type === core.individual || !Array.isArray(body.stakeholders)) return [];
    const submit = core.row("submit").trigger;
    return body.stakeholders.flatMap((s, i) => {
      const shape = obj(s);
      if (shape.type !== core.individual) return [];
      const person = { type: core.individual, role: shape.role, fields: obj(shape.fields) };
      const { name, testText } = this.nameOf(person);
      const child = this.writes.newVerification(
        "older",
        {
          trace: olderStakeholderTrace(entity, i),
          submissionId: olderStakeholderSubmissionId(entity, i),
          parentTrace: entity.trace,
          roles: str(shape.role) ? [shape.role as string] : [],
          type: core.individual,
          name,
          country: str(person.fields.country) ?? null,
          request: person,
          outcome: testText ?? "",
        },
        core.clock.now(),
      );
      return [{ v: child, trigger: submit }];
    });
  }

  /** A new verification of the older interface (a hosted form's: its id as trace, the form's attempt limit). */
  newVerification(body: Body, form?: { id: string; maxAttempts: number }): Verification {
    const { core } = this;
    const { name, testText } = this.nameOf(body);
    const fields = obj(body.fields);
    const v = this.writes.newVerification(
      "older",
      {
        ...(form ? { trace: form.id, formId: form.id, maxAttempts: form.maxAttempts } : {}),
        userId: str(body.metadata_userId) ?? null,
        type: String(body.type),
        name,
        country: str(fields.country) ?? null,
        request: core.storable(body),
        outcome: testText ?? "",
      },
      core.clock.now(),
    );
    // Entities: submissionId is the trace (the service's specification, section 6.3).
    return body.type === core.individual ? v : { ...v, submissionId: v.trace };
  }

  /** POST /getVerificationStatus: the latest webhook content, by trace or userId (the service's specification, section 4.3). */
  async latest(key: { trace?: string; userId?: string }): Promise<string | undefined> {
    const trace = await this.core.db.olderTraceOf(key);
    return trace === undefined ? undefined : this.core.db.latestWebhookBody(trace);
  }

  /** The follow-up request (4.4): a verification in the followUp row's status moves to the documented target state. */
  async followUp(verificationUuid: string): Promise<string> {
    const { core, writes } = this;
    const target = choice<string>(core.binding.spec, "followUpTarget", "to");
    const row = core.row("followUp");
    const text = await core.db.transaction(async (tx) => {
      const v = await tx.lockVerification(verificationUuid, "older");
      if (!v) throw core.notFound("verificationUuid", { verificationUuid });
      if (v.verificationStatus !== row.from) throw core.conflict("followUpOnlyFrom", { status: v.verificationStatus, from: String(row.from) });
      return (
        await writes.change(
          tx,
          v,
          { verificationStatus: target, dueAt: core.dueAt(core.clock.now()), outcome: core.binding.spec.testValues.default },
          row.trigger,
        )
      ).text;
    });
    core.hooks.onChange();
    return text;
  }
}
