// The webhook payloads of a state change (the service's specification, sections 6.2, 6.3) and the older
// payload's body signature (6.4 body variant): built from a verification, checked against the payload
// schema of the binding, signed with the binding's signer and the scheme's header names.
import { choice, filled, validateWith } from "../binding.js";
import { olderResults, v5Results } from "../results.js";
import type { Api, Verification } from "../store/verifications.js";
import { type Body, obj, olderPersonName, olderStakeholderSubmissionId, olderStakeholderTrace, type ServiceCore, str } from "./core.js";

export class Payloads {
  constructor(private readonly core: ServiceCore) {}

  /** The exact text a webhook carries. Older payloads also carry the body signature (6.4 body variant). */
  text(v: Verification, parentUserId: string | null, children: readonly Verification[]): { format: Api; text: string } {
    const { binding } = this.core;
    if (v.api === "v5") {
      const payload = this.v5(v, parentUserId);
      this.check(binding.spec.payloadSchemas.v5, payload);
      return { format: "v5", text: JSON.stringify(payload) };
    }
    const unsigned = this.older(v, parentUserId, children);
    const version = binding.spec.payloadSignatureVersions.older;
    const headers = binding.signWebhook({ version, rawBody: JSON.stringify(unsigned), secret: this.core.options.signingSecret });
    const { sha, keccak } = binding.rules.signatures.v1;
    const payload = { ...unsigned, signature: { version, sha256: headers[sha.name] ?? "", keccak256: headers[keccak.name] ?? "" } };
    this.check(binding.spec.payloadSchemas.older, payload);
    return { format: "older", text: JSON.stringify(payload) };
  }

  private check(schemaId: string, payload: unknown): void {
    const result = validateWith(this.core.binding, schemaId, payload);
    if (!result.valid) throw new Error(`sandbox bug: a webhook payload fails ${schemaId}: ${JSON.stringify(result.errors)}`);
  }

  /** The current payload (6.2). */
  private v5(v: Verification, parentUserId: string | null): Body {
    const r = v.request;
    return {
      version: this.core.binding.spec.webhookVersion,
      userId: v.userId,
      ...(str(r.onBehalfUid) ? { onBehalfUid: r.onBehalfUid } : {}),
      tags: Array.isArray(r.tags) ? r.tags : [],
      trace: v.trace,
      submissionId: v.submissionId,
      name: v.name,
      ...(v.country ? { country: v.country } : {}),
      type: v.type,
      ...(v.subType ? { subType: v.subType } : {}),
      ...(str(r.inputRisk) ? { inputRisk: r.inputRisk } : {}),
      ...v5Results(this.core.binding, v),
      verificationStatus: v.verificationStatus,
      submissionStatus: v.submissionStatus,
      attempt: v.attempt,
      ...(v.maxAttempts !== null ? { maxAttempts: v.maxAttempts } : {}),
      timestamp: v.updatedAt,
      ...(v.parentTrace ? { parentTrace: v.parentTrace, ...(parentUserId ? { parentUserId } : {}), roles: v.roles ?? [] } : {}),
    };
  }

  /**
   * The older payload (6.3). An entity's stakeholder items: an individual's is its own verification (trace and
   * statuses of `children`, or, before they are stored, those it starts with); a company's has a derived trace
   * and the entity's statuses. An individual verified as part of an entity names its entity (parentVerification*).
   */
  private older(v: Verification, parentUserId: string | null, children: readonly Verification[]): Body {
    const stakeholders = Array.isArray(v.request.stakeholders) ? (v.request.stakeholders as unknown[]) : [];
    return {
      name: v.name,
      verificationStatus: v.verificationStatus,
      verificationUuid: v.trace,
      trace: v.trace,
      submissionId: v.submissionId,
      entityType: v.type,
      timestamp: v.updatedAt,
      ...(v.userId ? { userId: v.userId } : {}),
      // An individual verified as part of an entity (6.3): the entity's id, under both names, and its userId.
      ...(v.parentTrace ? { parentVerificationTrace: v.parentTrace, parentVerificationUuid: v.parentTrace, ...(parentUserId ? { parentUserId } : {}) } : {}),
      submissionStatus: v.submissionStatus,
      ...(stakeholders.length ? { stakeholders: stakeholders.map((s, i) => this.olderStakeholderItem(v, obj(s), i, children)) } : {}),
      ...olderResults(this.core.binding, v),
      // A verification awaiting the follow-up request (the followUp row's status) says what it asks for.
      ...(v.verificationStatus === this.core.row("followUp").from ? { requestedActions: this.requestedActions(v, stakeholders) } : {}),
    };
  }

  private olderStakeholderItem(v: Verification, s: Body, i: number, children: readonly Verification[]): Body {
    const { individual } = this.core;
    const trace = olderStakeholderTrace(v, i);
    const child = children.find((c) => c.trace === trace);
    const f = obj(s.fields);
    const name = olderPersonName(f) || str(f.name) || `stakeholder ${i + 1}`;
    const own = child ?? {
      trace,
      name,
      verificationStatus: v.verificationStatus,
      submissionStatus: v.submissionStatus,
      updatedAt: v.updatedAt,
      submissionId: s.type === individual ? olderStakeholderSubmissionId(v, i) : trace,
    };
    // Scored as an individual whatever the item's type (its own type is not read).
    const { inWatchLists, outOfWatchLists, idvRiskScore, verificationScore } = olderResults(this.core.binding, { ...own, type: individual });
    return {
      id: trace,
      submissionId: own.submissionId,
      trace,
      verificationUuid: trace,
      name,
      role: str(s.role) ?? "",
      submissionStatus: own.submissionStatus,
      timestamp: own.updatedAt,
      verificationScore,
      verificationStatus: own.verificationStatus,
      idvRiskScore,
      inWatchLists,
      outOfWatchLists,
    };
  }

  /** What an entity awaiting the follow-up is asked for (spec/sandbox.yaml choices.requestedActions): a document, and an individual of the first role sent. */
  private requestedActions(v: Verification, stakeholders: readonly unknown[]): Body[] {
    const ask = choice<{ extractType: string }>(this.core.binding.spec, "requestedActions", "document");
    const ids = choice<{ document: string; individual: string }>(this.core.binding.spec, "requestedActions", "ids");
    const role = stakeholders.map((s) => str(obj(s).role)).find((r) => r);
    return [
      { type: this.core.binding.spec.requestedDocumentType, id: filled(ids.document, { trace: v.trace }), extractType: ask.extractType },
      ...(role ? [{ type: this.core.individual, role, id: filled(ids.individual, { trace: v.trace }), fields: {} }] : []),
    ];
  }
}
