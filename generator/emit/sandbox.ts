// Emits generated/sandbox.js and sandbox.d.ts: what `verispec sandbox` takes from the spec (specification sections 3, 4, 7, 8 and the
// sandbox's documented choices of spec/sandbox.yaml), bound to the generated validators and webhook kit.
// Only data comes from here; the behaviour is templates/sandbox/.
import { successStatuses } from "../load/spec-access.js";
import type { Field, Model, WebhookPayloadDef } from "../model/types.js";
import type { OutputFile } from "./output.js";
import { constType, moduleFiles } from "./print.js";

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`sandbox emitter: ${what} missing from the model`);
  return value;
}

/**
 * One input of the hosted form: the field's name, its label (its `title`; a field without one, such as a
 * branch's `country`, is labelled by spec/sandbox.yaml hostedForm.labels), its choices, and whether it is a
 * document (carried, not typed).
 */
function formField(model: Model, name: string, f: Field) {
  const options = f.enum ?? (f.ref ? model.shapes[f.ref]?.enum : undefined);
  return {
    name,
    ...(f.title ? { label: f.title } : {}),
    ...(options ? { options: options.map(String) } : {}),
    ...(f.rule?.name === "dataUri" ? { document: true } : {}),
  };
}

/**
 * What the hosted form of /idform shows (the forms call's entity kinds, 2.9): each kind's fields and the
 * roles of its stakeholders, and the fields of each stakeholder type (2.1), labelled by their titles.
 */
function hostedForms(model: Model) {
  const kinds = model.entityKinds
    .filter((k) => k.interface === "idform")
    .map((k) => {
      const fields = new Map<string, Field>();
      for (const b of k.branches) for (const [name, f] of Object.entries(b.fields)) if (!fields.has(name)) fields.set(name, f);
      return [
        k.kind,
        { title: k.title, fields: [...fields].map(([name, f]) => formField(model, name, f)), roles: (k.stakeholders?.roleSet.roles ?? []).map((r) => r.name) },
      ] as const;
    });
  const stakeholderFields = model.stakeholderTypes.map((t) => {
    const shape = need(model.shapes[t.fields], `stakeholders.yaml fields shape ${t.fields}`);
    return [t.name, Object.entries(shape.properties ?? {}).map(([name, f]) => formField(model, name, f))] as const;
  });
  return { kinds: Object.fromEntries(kinds), stakeholderFields: Object.fromEntries(stakeholderFields) };
}

/**
 * The kind of verification a v5 create may resubmit (statuses.yaml condition `resubmittable`), as the field
 * values it requires: the store selects the latest such verification by them.
 */
function resubmittableKind(model: Model): { type: string; subType: string } {
  const { expr } = need(model.conditions["resubmittable"], "statuses.yaml condition resubmittable");
  const parts = "all" in expr ? expr.all : [expr];
  const equal = (field: string) => {
    const test = parts.find((p) => "field" in p && p.field === field && "equals" in p);
    const value = test && "equals" in test ? test.equals : undefined;
    if (typeof value !== "string" || parts.length !== 2)
      throw new Error(
        "sandbox emitter: statuses.yaml condition resubmittable must be `all` of two `equals` tests, on type and subType (the store selects by them)",
      );
    return value;
  };
  return { type: equal("type"), subType: equal("subType") };
}

/** The `const` of a shape's property (a string): a value the sandbox writes as the spec fixes it. */
function constOf(model: Model, shape: string, property: string): string {
  return need(model.shapes[shape]?.properties?.[property]?.const as string | undefined, `${shape} ${property} const`);
}

/** The entity type of an individual: the value statuses.yaml condition `isEntity` excludes. */
function individualType(model: Model): string {
  const { expr } = need(model.conditions["isEntity"], "statuses.yaml condition isEntity");
  if (!("notEquals" in expr) || expr.field !== "type" || typeof expr.notEquals !== "string")
    throw new Error("sandbox emitter: statuses.yaml condition isEntity must be `type` notEquals the individual's type");
  return expr.notEquals;
}

/**
 * The HTTP status of an operation's answer: its one 2xx response (at most one, VS440). Where the specification
 * shows none (the follow-up request), the sandbox's choice (sandbox.yaml followUpPath.httpStatus).
 */
function successStatus(model: Model, responses: Readonly<Record<string, string>>): number {
  const [shown] = successStatuses(responses);
  if (shown !== undefined) return Number(shown);
  return need(model.sandbox.choices["followUpPath"]?.["httpStatus"] as number | undefined, "sandbox.yaml followUpPath.httpStatus");
}

/** The error type of each role (errors.yaml `role`); a role is one error's. */
export function errorRoles(model: Model): Record<string, string> {
  const roles: Record<string, string> = {};
  for (const e of model.errorTypes) {
    if (!e.role) continue;
    if (roles[e.role] !== undefined) throw new Error(`sandbox emitter: errors.yaml role ${e.role} is both ${roles[e.role]}'s and ${e.type}'s`);
    roles[e.role] = e.type;
  }
  return roles;
}

/** The spec facts the sandbox reads, as one plain JSON value. */
export function sandboxSpec(model: Model) {
  const limit = (name: string, key: string) => need(model.limits[name]?.numbers[key], `limits.yaml ${name}.${key}`);
  const payloadOf = (prefix: string) =>
    need(
      model.webhookPayloads.find((p) => p.schema.startsWith(prefix)),
      `webhooks.yaml ${prefix} payload`,
    );
  const payload = (prefix: string) => payloadOf(prefix).schema;
  const signedWith = (p: WebhookPayloadDef) =>
    need(model.signatures.find((s) => s.version === p.signatureVersion)?.versionHeader.value, `webhooks.yaml signatures.${p.signatureVersion}`);
  return {
    specVersion: model.versions.specVersion ?? null,
    specHash: model.specHash,
    choices: model.sandbox.choices,
    testValues: model.sandbox.testValues,
    limits: {
      formLifetimeDays: limit("formLifetime", "days"),
      prefilledDataReducedAfterMinutes: limit("formLifetime", "prefilledDataReducedAfterMinutes"),
      formOpens: limit("formOpens", "count"),
      formAttempts: limit("formAttempts", "count"),
    },
    attempts: { startsAt: model.attempts.startsAt, observedDefaultCap: model.attempts.observedDefaultCap },
    // The submission status after which no resubmission is accepted (statuses.yaml locksResubmission).
    lockingSubmissionStatus: need(model.submissionStatuses.find((s) => s.locksResubmission)?.value, "a submission status with locksResubmission"),
    errors: Object.fromEntries(model.errorTypes.map((e) => [e.type, { httpStatus: e.httpStatus, ...(e.message ? { message: e.message } : {}) }])),
    // The error type of each role (errors.yaml role): the runtime names an error by what it answers.
    errorRoles: errorRoles(model),
    endpoints: Object.fromEntries(
      model.endpoints.map((e) => [
        e.operationId,
        {
          method: e.method,
          path: e.path,
          auth: e.auth,
          ...(e.request ? { request: e.request } : {}),
          responses: e.responses,
          successStatus: successStatus(model, e.responses),
        },
      ]),
    ),
    metadataVersion: model.versions.metadataVersion,
    webhookVersion: model.versions.webhookVersion,
    payloadSchemas: { v5: payload("v5."), older: payload("v4.") },
    // The version header's value of the signature each payload format is signed with (webhooks.yaml payloads.*.signatureVersion).
    payloadSignatureVersions: { v5: signedWith(payloadOf("v5.")), older: signedWith(payloadOf("v4.")) },
    olderVerificationStatuses: model.olderVerificationStatuses,
    verificationStatuses: model.verificationStatuses.map((s) => s.value),
    forms: hostedForms(model),
    // Statuses a change into sends no webhook (statuses.yaml sendsWebhook: false).
    silentStatuses: model.verificationStatuses.filter((s) => s.sendsWebhook === false).map((s) => s.value),
    // Which verifications a v5 create with the same userId resubmits (statuses.yaml conditions.resubmittable).
    resubmittable: { condition: "resubmittable", fields: resubmittableKind(model) },
    individualType: individualType(model),
    // The `type` of a requested document in the older payload's requestedActions (webhooks.yaml v4.RequestedDocument).
    envelopeStatus: { success: constOf(model, "v5.SuccessEnvelope", "status"), error: constOf(model, "v5.ErrorEnvelope", "status") },
    formCreatedStatus: constOf(model, "v4.IdFormResponse", "status"),
    requestedDocumentType: need(
      model.shapes["v4.RequestedDocument"]?.properties?.["type"]?.const as string | undefined,
      "webhooks.yaml v4.RequestedDocument type const",
    ),
    // The media type of every body (the service's specification, section 4; endpoints.yaml bodies).
    bodyMediaType: model.bodyMediaType,
    createdMessage: need(
      model.shapes["v5.VerificationCreateResponse"]?.properties?.["message"]?.examples?.[0] as string | undefined,
      "v5.VerificationCreateResponse message example",
    ),
  };
}

export function emitSandbox(model: Model): OutputFile[] {
  const spec = sandboxSpec(model);
  const head = `// What \`verispec sandbox\` takes from the spec: statuses, transitions and conditions (through the webhook
// rules), limits, errors, endpoints, and the sandbox's documented choices where the service's
// specification is silent (spec/sandbox.yaml). The behaviour is the sandbox runtime's.`;
  return moduleFiles(
    "sandbox",
    {
      js: [head, `import { validate } from "./validators/index.js";`, `import { signWebhook, webhookRules } from "./webhooks.js";`],
      dts: [head, `import { validate } from "./validators/index.js";`, `import { signWebhook, webhookRules } from "./webhooks.js";`],
    },
    [
      {
        doc: ["/** Spec facts and documented choices the sandbox reads. */"],
        js: `export const sandboxSpec = ${JSON.stringify(spec, null, 2)};`,
        dts: `export declare const sandboxSpec: ${constType(spec)};`,
      },
      {
        doc: ["/** Everything the sandbox runtime is bound to: the spec data, the validators and the webhook kit. */"],
        js: "export const sandboxBinding = { spec: sandboxSpec, rules: webhookRules, validate, signWebhook };",
        dts: "export declare const sandboxBinding: { readonly spec: typeof sandboxSpec; readonly rules: typeof webhookRules; readonly validate: typeof validate; readonly signWebhook: typeof signWebhook };",
      },
    ],
  );
}
