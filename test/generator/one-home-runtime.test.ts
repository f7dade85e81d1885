// One home per fact, up to the runtime (issue 40): every fact of spec/ that the runtime acts on reaches it
// through the generator, never re-typed in templates/. Each case edits one fact in a copy of the real spec,
// builds what the generator builds from it (the webhook rules, the sandbox binding, the OpenAPI document,
// the client's constants) and sees the runtime follow. RUNTIME_FACTS lists what is checked; the last case
// scans templates/ for the literal of each.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getResponse } from "msw";
import { ExchangeJudge } from "../../generator/conform/proxy.js";
import { loadRuntime } from "../../generator/cli/commands/conform.js";
import { messageTemplates } from "../../generator/emit/validators/error-table.js";
import { TABLE } from "../../generated/validators/errors.js";
import { rawV4GetVerificationStatusRequest } from "../../generated/validators/ajv.js";
import { afterEach, describe, expect, it } from "vitest";
import { loadServedSpec } from "../../generator/cli/commands/sandbox-binding.js";
import { knownVersion, withVersions } from "../../generator/cli/commands/sandbox-tenants.js";
import { clientFiles, errorClassTable } from "../../generator/emit/client.js";
import { buildOpenApi } from "../../generator/emit/openapi.js";
import { sandboxSpec } from "../../generator/emit/sandbox.js";
import { emitWebhooks, webhookRules } from "../../generator/emit/webhooks.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { toError } from "../../templates/client/core.js";
import * as clientErrors from "../../templates/client/errors.js";
import type { SpecConstants } from "../../templates/client/types.js";
import { createMockHandlers } from "../../templates/msw/handlers.js";
import { type SandboxBinding, successStatus } from "../../templates/sandbox/binding.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import { processed } from "../../templates/sandbox/results.js";
import { startSandbox } from "../../templates/sandbox/index.js";
import { SandboxService, type ServiceError } from "../../templates/sandbox/service.js";
import { memoryStore } from "../../templates/sandbox/store/memory.js";
import { createValidator } from "../../templates/validators/validator.js";
import { createWebhookKit } from "../../templates/webhooks/index.js";
import { olderIndividual } from "../sandbox/helpers.js";
import { ROOT, scratchSpec, type ScratchSpec } from "./helpers.js";

/** What this file checks: the fact, where spec/ holds it, and the literal that must not appear in templates/. */
const RUNTIME_FACTS = [
  { fact: "the v2 digest prefix", home: "webhooks.yaml signatures.2 X-Svc-Signature.prefix", literal: "sha256=" },
  { fact: "the v1 SHA3-256 digest prefix", home: "webhooks.yaml signatures.1 X-Svc-Signature-SHA.prefix", literal: "svc_sec_sha256_" },
  { fact: "the v1 Keccak-256 digest prefix", home: "webhooks.yaml signatures.1 X-Svc-Signature-KECCAK.prefix", literal: "svc_sec_keccak256_" },
  { fact: "the signature header names", home: "webhooks.yaml signatures.*.headers", literal: "x-svc-signature" },
  { fact: "the resubmittable kind (an individual with subType data)", home: "statuses.yaml conditions.resubmittable", literal: "sub_type = 'data'" },
  { fact: "the status a follow-up answers from (info)", home: "statuses.yaml transitions followUp.from", literal: '=== "info"' },
  { fact: "the control API's conflict texts", home: "sandbox.yaml choices.controlApi.messages", literal: "applies only when" },
  { fact: "the control API's conflict status and code", home: "sandbox.yaml choices.controlApi.conflict", literal: "ServiceError(409" },
  { fact: "the hosted form's refusal statuses and codes", home: "sandbox.yaml choices.hostedForm.refusals", literal: '"form_expired"' },
  { fact: "the bodies' media type", home: "endpoints.yaml bodies.mediaType", literal: "application/json" },
  { fact: "the requested document's id (a sandbox choice)", home: "sandbox.yaml choices.requestedActions.ids.document", literal: "-document-1" },
  { fact: "the requested individual's id (a sandbox choice)", home: "sandbox.yaml choices.requestedActions.ids.individual", literal: "-individual-1" },
  { fact: "the outcome names (status unions typed by hand)", home: "statuses.yaml outcomes", literal: '"retry_possible"' },
  { fact: "the outcome of a rejection that cannot be retried", home: "statuses.yaml attempts.rejectionOutcomes.final", literal: '"final_rejection"' },
  { fact: "the outcome of a status awaiting processing", home: "statuses.yaml outcomes (the complete row's from)", literal: '"processing"' },
  { fact: "the v5 envelope's success status", home: "v5.yaml v5.SuccessEnvelope status const", literal: '"success"' },
  { fact: "the older error body's status (a sandbox choice)", home: "sandbox.yaml choices.olderErrorShape.status", literal: 'status: "error"' },
  { fact: "the validation error's code", home: "errors.yaml errorTypes (role validation)", literal: "validation_error" },
  { fact: "the code of a resubmission past the cap", home: "errors.yaml errorTypes (role attemptsExhausted)", literal: "too_many_attempts" },
  { fact: "the code of a resubmission in flight", home: "errors.yaml errorTypes (role resubmissionInFlight)", literal: "submission_conflict" },
  { fact: "the sandbox's refusal of an unreadable body", home: "sandbox.yaml choices.refusals.badRequest", literal: '"bad_request"' },
  { fact: "the sandbox's refusal of a body over the limit", home: "sandbox.yaml choices.refusals.payloadTooLarge", literal: '"payload_too_large"' },
  { fact: "the sandbox's refusal of another media type", home: "sandbox.yaml choices.refusals.unsupportedMediaType", literal: '"unsupported_media_type"' },
  { fact: "the validation error's message", home: "errors.yaml errorTypes.validation_error.message", literal: '"Validation error"' },
  {
    fact: "the code of unknown keys (grouped per object by the validators)",
    home: "errors.yaml validationMessages.defaults.additionalProperties.code",
    literal: "unrecognized_keys",
  },
  { fact: "the status of refused credentials (the operator page tells it)", home: "sandbox.yaml choices.authFailure.httpStatus", literal: "=== 401" },
  { fact: "the challenge of refused credentials (a sandbox choice)", home: "sandbox.yaml choices.authFailure.challenge", literal: "realm=" },
  {
    fact: "the status of a v5 answer (its envelope's statusCode too)",
    home: "endpoints.yaml createVerification/getVerification responses",
    literal: ".path, 200",
  },
  { fact: "the status of an older answer", home: "endpoints.yaml verify/idForm/getVerificationStatus responses", literal: "kit.text(200" },
  { fact: "the older body signature's version", home: "webhooks.yaml payloads.older.signatureVersion", literal: 'signature: { version: "1"' },
  {
    fact: "the current signature's version (the version header's value)",
    home: "webhooks.yaml signatures.2 X-Svc-Signature-version.value",
    literal: '=== "2"',
  },
  { fact: "the older signature's version (the version header's value)", home: "webhooks.yaml signatures.1 X-Svc-Signature-version.value", literal: '=== "1"' },
  { fact: "the default signature version of a tenant", home: "webhooks.yaml payloads.v5.signatureVersion", literal: 'signatureVersion: "2"' },
] as const;

/**
 * Files that may hold a literal, and why: the sandbox's operator endpoints (/healthz, /readyz, /metrics)
 * and the webhook receiver's own refusal are verispec's answers, not the service's, and answer JSON by
 * verispec's choice; a comment may name the value it stands for. The sandbox's last-resort answer to an
 * internal error whose envelope itself failed (server.ts) needs nothing of the binding, so that it cannot fail too.
 */
const LITERAL_EXEMPT: Readonly<Record<string, readonly string[]>> = {
  "application/json": ["templates/sandbox/ops.ts", "templates/webhooks/request.ts"],
  'status: "error"': ["templates/sandbox/ops.ts", "templates/sandbox/server.ts"],
};

let scratch: ScratchSpec | undefined;
afterEach(() => {
  scratch?.remove();
  scratch = undefined;
});

function edited(edits: readonly [file: string, from: string, to: string][]): string {
  scratch = scratchSpec();
  for (const [file, from, to] of edits) scratch.edit(file, from, to);
  return scratch.spec;
}

const kitOf = (spec: string) => createWebhookKit({ rules: webhookRules(modelFromSpec(spec)) as never });
const body = JSON.stringify({ version: "v5", tags: [], attempt: 1, timestamp: 1767225600000 });
const now = 1767225600000;

describe("the webhook runtime follows webhooks.yaml signatures", () => {
  it("a v2 prefix changed: the kit signs with it and verifies only it", async () => {
    const kit = kitOf(edited([["webhooks.yaml", 'prefix: "sha256="', 'prefix: "hmac-sha256="']]));
    const headers = kit.signWebhook({ version: "2", rawBody: body, secret: "k" });
    expect(headers["X-Svc-Signature"]).toMatch(/^hmac-sha256=[0-9a-f]{64}$/);
    await expect(kit.verifyWebhook({ rawBody: body, headers, secret: "k", now })).resolves.toMatchObject({ version: "2" });
    const old = { ...headers, "X-Svc-Signature": headers["X-Svc-Signature"]!.replace("hmac-sha256=", "sha256=") };
    await expect(kit.verifyWebhook({ rawBody: body, headers: old, secret: "k", now })).rejects.toThrow(
      "X-Svc-Signature must be hmac-sha256= followed by 64 hex digits",
    );
  });

  it("the v1 prefixes changed: both digest headers carry them", async () => {
    const kit = kitOf(
      edited([
        ["webhooks.yaml", 'prefix: "svc_sec_sha256_"', 'prefix: "acme_sha3_"'],
        ["webhooks.yaml", 'prefix: "svc_sec_keccak256_"', 'prefix: "acme_keccak_"'],
      ]),
    );
    const headers = kit.signWebhook({ version: "1", rawBody: body, secret: "k" });
    expect(headers["X-Svc-Signature-SHA"]).toMatch(/^acme_sha3_[0-9a-f]{64}$/);
    expect(headers["X-Svc-Signature-KECCAK"]).toMatch(/^acme_keccak_[0-9a-f]{64}$/);
    await expect(kit.verifyWebhook({ rawBody: body, headers, secret: "k", now })).resolves.toMatchObject({ version: "1" });
  });

  it("a header renamed: the kit writes and reads the new name, and names it in its refusals", async () => {
    const kit = kitOf(edited([["webhooks.yaml", "X-Svc-Signature: { prefix", "X-Acme-Signature: { prefix"]]));
    const headers = kit.signWebhook({ version: "2", rawBody: body, secret: "k" });
    expect(Object.keys(headers).sort()).toEqual(["X-Acme-Signature", "X-Svc-Signature-version"]);
    await expect(kit.verifyWebhook({ rawBody: body, headers: { "x-acme-signature": headers["X-Acme-Signature"]! }, secret: "k", now })).resolves.toMatchObject({
      version: "2",
    });
    await expect(kit.verifyWebhook({ rawBody: body, headers: {}, secret: "k", now })).rejects.toThrow(
      "no X-Acme-Signature or X-Svc-Signature-SHA/-KECCAK header",
    );
  });
});

/** The spec with the outcomes `retry_possible` and `processing` renamed (statuses.yaml and the format's outcome list). */
function renamedOutcomes(): string {
  const spec = edited([]);
  const rename = (text: string) => text.replace(/\bretry_possible\b/g, "may_retry").replace(/(outcome: |enum: \[|^ {2})processing\b/gm, "$1in_progress");
  for (const file of ["statuses.yaml", "meta/spec.schema.yaml"]) scratch!.write(file, rename(readFileSync(join(spec, file), "utf8")));
  return spec;
}

describe("the signature versions follow the version header's values", () => {
  const renamed = () =>
    edited([
      ["webhooks.yaml", 'X-Svc-Signature-version: { value: "2" }', 'X-Svc-Signature-version: { value: "hmac" }'],
      ["webhooks.yaml", 'X-Svc-Signature-version: { value: "1" }', 'X-Svc-Signature-version: { value: "digest" }'],
    ]);

  it("renamed hmac and digest: the kit signs with them, infers them, verifies them and names them in its refusals", async () => {
    const kit = kitOf(renamed());
    const current = kit.signWebhook({ version: "hmac", rawBody: body, secret: "k" });
    expect(current["X-Svc-Signature-version"]).toBe("hmac");
    await expect(kit.verifyWebhook({ rawBody: body, headers: current, secret: "k", now })).resolves.toMatchObject({ version: "hmac" });
    const another = body.replace('"attempt":1', '"attempt":2');
    const older = kit.signWebhook({ version: "digest", rawBody: another, secret: "k" });
    const { "X-Svc-Signature-version": _declared, ...inferred } = older;
    await expect(kit.verifyWebhook({ rawBody: another, headers: inferred, secret: "k", now })).resolves.toMatchObject({ version: "digest" });
    expect(() => kit.signWebhook({ version: "2", rawBody: body, secret: "k" })).toThrow('signWebhook: version must be "digest" or "hmac"');
    await expect(kit.verifyWebhook({ rawBody: body, headers: { ...current, "X-Svc-Signature-version": "2" }, secret: "k", now })).rejects.toThrow(
      "X-Svc-Signature-version is not digest or hmac",
    );
  });

  it("renamed: the body variant's signature.version is the older one's, and the sandbox signs older payloads with it", async () => {
    const spec = renamed();
    const kit = kitOf(spec);
    const unsigned = JSON.stringify({ verificationStatus: "verified", trace: "t-1", timestamp: now });
    const headers = kit.signWebhook({ version: "digest", rawBody: unsigned, secret: "k" });
    const signature = { version: "digest", sha256: headers["X-Svc-Signature-SHA"], keccak256: headers["X-Svc-Signature-KECCAK"] };
    const withBody = JSON.stringify({ ...JSON.parse(unsigned), signature });
    await expect(kit.verifyWebhook({ rawBody: withBody, headers: {}, secret: "k", now, allowBodySignature: true })).resolves.toMatchObject({
      version: "digest",
    });
    const asOne = JSON.stringify({ ...JSON.parse(unsigned), signature: { ...signature, version: 1 } });
    await expect(kit.verifyWebhook({ rawBody: asOne, headers: {}, secret: "k", now, allowBodySignature: true })).rejects.toThrow(
      "the body's signature.version is not digest",
    );
    const { binding } = await loadServedSpec(spec);
    expect((binding as SandboxBinding).spec.payloadSignatureVersions).toEqual({ v5: "hmac", older: "digest" });
  });

  it("renamed: `verispec sandbox` takes hmac and digest where a version is written, refuses 2 there, and fills in hmac", async () => {
    const { binding } = await loadServedSpec(renamed());
    const { rules, spec } = binding as SandboxBinding;
    const flag = (value: string) => ({ value, where: "--signature-version" });
    expect(knownVersion(flag("digest"), rules.signatures)).toBe("digest");
    expect(() => knownVersion(flag("2"), rules.signatures)).toThrow(/^--signature-version must be hmac or digest$/);
    const tenant = { name: "team-a", credentials: { serviceUid: "u", secret: "s" }, signingSecret: "k", webhookUrls: [] };
    const written = (value: string) => ({ ...tenant, signatureVersion: { value, where: "tenants.yaml:12:23: tenant team-a: signatureVersion" } });
    expect(
      withVersions([{ ...tenant, signatureVersion: undefined }, written("digest")], rules.signatures, spec.payloadSignatureVersions.v5).map(
        (t) => t.signatureVersion,
      ),
    ).toEqual(["hmac", "digest"]);
    expect(() => withVersions([written("1")], rules.signatures, "hmac")).toThrow(
      /^tenants\.yaml:12:23: tenant team-a: signatureVersion must be hmac or digest$/,
    );
  });
});

describe("the life cycle's outcomes follow statuses.yaml", () => {
  it("outcomes renamed: interpretWebhook answers the new names, the generated types list them, the sandbox tells processed from awaiting by them", async () => {
    const spec = renamedOutcomes();
    const model = modelFromSpec(spec);
    const kit = kitOf(spec);
    const rejected = { verificationStatus: "rejected", attempt: 1, maxAttempts: 5, submissionStatus: "submitted" };
    expect(kit.interpretWebhook(rejected).outcome).toBe("may_retry");
    expect(kit.interpretWebhook({ ...rejected, attempt: 5 }).outcome).toBe("final_rejection");
    expect(kit.interpretWebhook({ verificationStatus: "pending" }).outcome).toBe("in_progress");
    const dts = emitWebhooks(model).find((f) => f.path === "webhooks.d.ts")!.contents;
    expect(dts).toMatch(/export type WebhookOutcome = "in_progress" \| "verified" \| "may_retry" \| "final_rejection" \|/);
    const { binding } = await loadServedSpec(spec);
    expect([processed(binding, "new"), processed(binding, "pending"), processed(binding, "verified"), processed(binding, "rejected")]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it("the rejection's outcomes swapped in attempts.rejectionOutcomes: interpretWebhook reads them from there", () => {
    const kit = kitOf(
      edited([
        [
          "statuses.yaml",
          "rejectionOutcomes: { retry: retry_possible, final: final_rejection }",
          "rejectionOutcomes: { retry: final_rejection, final: retry_possible }",
        ],
      ]),
    );
    expect(kit.interpretWebhook({ verificationStatus: "rejected", attempt: 1, maxAttempts: 5, submissionStatus: "submitted" }).outcome).toBe("final_rejection");
  });
});

/** A sandbox service over the binding built from `spec`, in memory, processing by hand. */
async function serviceOf(spec: string): Promise<SandboxService> {
  const { binding } = await loadServedSpec(spec);
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  return new SandboxService({
    binding,
    store: memoryStore(),
    newId,
    clock: new SandboxClock(0, 1e12),
    webhookUrls: [],
    signatureVersion: "2",
    processingMs: "manual",
    signingSecret: "s",
  });
}

describe("the sandbox follows the binding", () => {
  it("the resubmittable kind changed to subType biometric: a second create of that userId is a resubmission (475 while pending); of subType data, a new verification", async () => {
    const service = await serviceOf(edited([["statuses.yaml", "      - { field: subType, equals: data }", "      - { field: subType, equals: biometric }"]]));
    const create = (subType: string) => service.createV5({ type: "individual", subType, userId: `u-${subType}`, name: "A Person", country: "AUS" });
    const first = await create("biometric");
    await expect(create("biometric")).rejects.toMatchObject({ httpStatus: 475, type: "submission_conflict", trace: first.trace });
    const data = await create("data");
    expect((await create("data")).trace).not.toBe(data.trace);
  });

  it("the follow-up's status moved from info to pending: a pending older verification's webhook carries requestedActions", async () => {
    const spec = edited([["statuses.yaml", '  - id: followUp\n    source: "3"\n    from: info', '  - id: followUp\n    source: "3"\n    from: pending']]);
    const service = await serviceOf(spec);
    const { text } = await service.verifyOlder({
      type: "company",
      fields: { name: "Acme", country: "AUS" },
      stakeholders: [{ type: "individual", role: "director", fields: { firstName: "A", lastName: "B" } }],
    });
    expect(JSON.parse(text)).toMatchObject({
      verificationStatus: "pending",
      requestedActions: [expect.objectContaining({ type: "document" }), expect.objectContaining({ type: "individual", role: "director" })],
    });
  });

  it("the requested items' ids and the requested document's type changed: the follow-up's requestedActions carry them", async () => {
    const spec = edited([
      ["statuses.yaml", '  - id: followUp\n    source: "3"\n    from: info', '  - id: followUp\n    source: "3"\n    from: pending'],
      [
        "sandbox.yaml",
        'ids: { document: "{trace}-document-1", individual: "{trace}-individual-1" }',
        'ids: { document: "doc-{trace}", individual: "{trace}/person/1" }',
      ],
      ["webhooks.yaml", "type: { required: true, type: string, const: document }", "type: { required: true, type: string, const: file }"],
    ]);
    const service = await serviceOf(spec);
    const { text } = await service.verifyOlder({
      type: "company",
      fields: { name: "Acme", country: "AUS" },
      stakeholders: [{ type: "individual", role: "director", fields: { firstName: "A", lastName: "B" } }],
    });
    const { trace, requestedActions } = JSON.parse(text) as { trace: string; requestedActions: unknown[] };
    expect(trace).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestedActions).toEqual([
      expect.objectContaining({ type: "file", id: `doc-${trace}` }),
      expect.objectContaining({ type: "individual", id: `${trace}/person/1` }),
    ]);
  });

  it("a conflict text and the conflict's status and code changed: the control API answers them", async () => {
    const service = await serviceOf(
      edited([
        ["sandbox.yaml", 'onlyWhenFails: "The status {to} applies only when {condition} holds,', 'onlyWhenFails: "Only when {condition}: {to},'],
        ["sandbox.yaml", "conflict: { httpStatus: 409, code: conflict }", "conflict: { httpStatus: 412, code: refused_change }"],
      ]),
    );
    const { trace } = await service.createV5({ type: "individual", subType: "data", name: "A Person", country: "AUS" });
    const refused = (await service.applyStatus(trace, "removed", {}).catch((e: unknown) => e)) as ServiceError;
    expect({ status: refused.httpStatus, type: refused.type }).toEqual({ status: 412, type: "refused_change" });
    expect(refused.message).toMatch(/^Only when isStakeholder: removed, and it does not/);
  });

  it("the bodies' media type changed: the OpenAPI document, the client's constants and the sandbox binding carry it", () => {
    const model = modelFromSpec(edited([["endpoints.yaml", "  mediaType: application/json", "  mediaType: application/vnd.svc+json"]]));
    const openapi = buildOpenApi(model);
    const create = openapi.paths!["/v5/verifications"]!.post!;
    expect(Object.keys((create.requestBody as { content: object }).content)).toEqual(["application/vnd.svc+json"]);
    expect(sandboxSpec(model).bodyMediaType).toBe("application/vnd.svc+json");
  });
});

/** The generated client's constants for `spec`, with its error class table resolved to the runtime's classes (as client.js binds them). */
function clientConstants(spec: string): SpecConstants {
  const model = modelFromSpec(spec);
  const classes = clientErrors as unknown as Record<string, typeof clientErrors.VerispecError>;
  return {
    olderVersion: model.versions.metadataVersion,
    mediaType: model.bodyMediaType,
    errorTypesByStatus: Object.fromEntries(model.errorTypes.map((e) => [e.httpStatus, e.type])),
    errorClasses: new Map(errorClassTable(model).map(([type, cls]) => [type, classes[cls]!])),
  };
}

const renamedConflict = (): string =>
  edited([
    ["errors.yaml", "  submission_conflict:", "  resubmission_in_flight:"],
    ["endpoints.yaml", "too_many_attempts, submission_conflict]", "too_many_attempts, resubmission_in_flight]"],
    ["sandbox.yaml", '      submission_conflict: "Submission conflict:', '      resubmission_in_flight: "Submission conflict:'],
  ]);

const renamedValidation = (): string =>
  edited([
    ["errors.yaml", "  validation_error:", "  invalid_request:"],
    ["endpoints.yaml", "[validation_error, too_many_attempts", "[invalid_request, too_many_attempts"],
    ["v5.yaml", "type: validation_error", "type: invalid_request"],
  ]);

/** The spec with the envelopes' `status` values renamed: v5 success ok, v5 error failed, the forms call's created, the older errors' refused. */
function renamedEnvelopeStatuses(): string {
  const spec = edited([["sandbox.yaml", "    status: error\n", "    status: refused\n"]]);
  const rewrite = (file: string, edit: (text: string) => string) => scratch!.write(file, edit(readFileSync(join(spec, file), "utf8")));
  rewrite("v5.yaml", (t) =>
    t
      .replace("enum: [success, error]", "enum: [ok, failed]")
      .replace(/(const: |status: )success\b/g, "$1ok")
      .replace(/(const: |status: )error\b/g, "$1failed"),
  );
  rewrite("older.yaml", (t) => t.replace(/(const: |status: )success\b/g, "$1created"));
  return spec;
}

describe("the answers' status values follow the spec", () => {
  it("renamed: the msw handlers answer a v5 success ok and a v5 error failed, the forms call created, an older error refused", async () => {
    const { binding } = await loadServedSpec(renamedEnvelopeStatuses());
    const mock = createMockHandlers(binding as SandboxBinding, { processingMs: "manual" });
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const init = { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) };
      const response = await getResponse(mock.handlers, new Request(`https://api.example.com${path}`, init));
      return { status: response!.status, body: (await response!.json()) as Record<string, unknown> };
    };
    const basic = { Authorization: `Basic ${btoa(`${mock.serviceUid}:${mock.secret}`)}` };
    const credentials = { metadata_version: "4", metadata_serviceUid: mock.serviceUid, metadata_secretKey: mock.secret };
    const person = { type: "individual", subType: "data", name: "A Person", country: "AUS", website: "https://example.com" };
    expect(await post("/v5/verifications", person, basic)).toMatchObject({
      status: 200,
      body: { status: "ok", error: null },
    });
    expect(await post("/v5/verifications", { type: "individual" }, basic)).toMatchObject({ status: 422, body: { status: "failed" } });
    const form = await post("/idform", { ...credentials, serviceLink_dataAccessType: "idForm", type: "publicCompany", fields: { country: "AUS" } });
    expect(form).toMatchObject({ status: 200, body: { status: "created" } });
    expect(await post("/verify", { ...credentials, type: "individual" })).toMatchObject({ status: 422, body: { status: "refused", statusCode: 422 } });
  });
});

describe("the error codes follow errors.yaml, looked up by their role", () => {
  it("the code of a resubmission in flight renamed: the sandbox refuses with it and the client throws SubmissionConflictError for it", async () => {
    const spec = renamedConflict();
    const service = await serviceOf(spec);
    const create = () => service.createV5({ type: "individual", subType: "data", userId: "u-1", name: "A Person", country: "AUS" });
    const first = await create();
    await expect(create()).rejects.toMatchObject({
      httpStatus: 475,
      type: "resubmission_in_flight",
      trace: first.trace,
      message: expect.stringMatching(/^Submission conflict/),
    });
    const constants = clientConstants(spec);
    expect(toError(400, { error: { type: "resubmission_in_flight" } }, constants)).toBeInstanceOf(clientErrors.SubmissionConflictError);
    expect(toError(475, {}, constants)).toBeInstanceOf(clientErrors.SubmissionConflictError);
    expect(toError(400, { error: { type: "submission_conflict" } }, constants)).toBeInstanceOf(clientErrors.HttpError);
    const js = clientFiles(modelFromSpec(spec)).find((f) => f.path === "client.js")!.contents;
    expect(js).toContain('["resubmission_in_flight", SubmissionConflictError]');
  });

  it("the validation error's code renamed: the sandbox's HTTP layer and the msw handlers answer 422 with it, in the validation shape; the client throws ValidationError", async () => {
    const spec = renamedValidation();
    const { binding } = await loadServedSpec(spec);
    const body = JSON.stringify({ type: "individual" });
    const expected = { statusCode: 422, message: "Validation error", error: { type: "invalid_request", details: expect.arrayContaining([expect.anything()]) } };

    const mock = createMockHandlers(binding as SandboxBinding, { processingMs: "manual" });
    const headers = { Authorization: `Basic ${btoa(`${mock.serviceUid}:${mock.secret}`)}`, "Content-Type": "application/json" };
    const mocked = await getResponse(mock.handlers, new Request("https://api.example.com/v5/verifications", { method: "POST", headers, body }));
    expect(mocked?.status).toBe(422);
    expect(await mocked!.json()).toMatchObject(expected);

    const { running, credentials } = await sandboxOf(binding as SandboxBinding);
    try {
      const auth = `Basic ${btoa(`${credentials.serviceUid}:${credentials.secret}`)}`;
      const served = await fetch(`${running.url}/v5/verifications`, { method: "POST", headers: { ...headers, Authorization: auth }, body });
      expect(served.status).toBe(422);
      expect(await served.json()).toMatchObject(expected);
    } finally {
      await running.close();
    }
    expect(toError(422, { error: { type: "invalid_request", details: [] } }, clientConstants(spec))).toBeInstanceOf(clientErrors.ValidationError);
  });
});

describe("the generator's tools look the error codes up by their role", () => {
  it("the validation error's code renamed: the OpenAPI 422 example lists the observed issues, and the conform proxy expects the new code for an invalid payload", async () => {
    const model = modelFromSpec(renamedValidation());
    const answer = buildOpenApi(model).paths!["/v5/verifications"]!.post!.responses!["422"] as { content: Record<string, { example: { error: object } }> };
    const { error } = answer.content[model.bodyMediaType]!.example;
    expect(error).toMatchObject({
      type: "invalid_request",
      details: expect.arrayContaining([expect.objectContaining({ message: "ABN must be exactly 11 digits." })]),
    });
    const judge = new ExchangeJudge(model, await loadRuntime());
    const accepted = { status: 200, contentType: "application/json", text: "{}", json: {} };
    const results = judge.judge({ n: 1, method: "POST", path: "/v5/verifications", requestBody: Buffer.from('{"type":"individual"}'), answer: accepted }, 64);
    expect(results).toContainEqual(
      expect.objectContaining({ outcome: "warned", got: expect.stringMatching(/^the service should answer 422 invalid_request: /) }),
    );
    expect(results).toContainEqual(
      expect.objectContaining({ outcome: "failed", expected: "HTTP 422 invalid_request (or another refusal) for an invalid payload" }),
    );
  });

  it("the code of a resubmission in flight renamed: the conform proxy expects it for a resubmission of a pending verification", async () => {
    const judge = new ExchangeJudge(modelFromSpec(renamedConflict()), await loadRuntime());
    const trace = "00000000-0000-4000-8000-000000000001";
    const person = JSON.stringify({ type: "individual", subType: "data", userId: "u-1", name: "A Person", country: "AUS" });
    const answered = (status: number, json: object) => ({ status, contentType: "application/json", text: JSON.stringify(json), json });
    const post = (n: number, status: number, json: object) =>
      judge.judge({ n, method: "POST", path: "/v5/verifications", requestBody: Buffer.from(person), answer: answered(status, json) }, 64);
    post(1, 200, { trace });
    const data = { verificationStatus: "pending", submissionStatus: "submitted", attempt: 1, maxAttempts: 5, type: "individual", subType: "data" };
    judge.judge({ n: 2, method: "GET", path: `/v5/verifications/${trace}`, requestBody: undefined, answer: answered(200, { data }) }, 64);
    expect(post(3, 200, { trace })).toContainEqual(
      expect.objectContaining({
        id: "proxy:3:createVerification#resubmission",
        expected: expect.stringMatching(/^HTTP 475 resubmission_in_flight for a resubmission/),
      }),
    );
  });
});

/** The spec with the code of unknown keys renamed to `unknown_keys` (its list of codes and both of its templates). */
function renamedUnknownKeys(): string {
  const spec = edited([]);
  scratch!.write("errors.yaml", readFileSync(join(spec, "errors.yaml"), "utf8").replace(/\bunrecognized_keys\b/g, "unknown_keys"));
  return spec;
}

describe("the validators follow errors.yaml's code of unknown keys", () => {
  it("renamed: the unknown keys of one closed object are still one issue, with the new code and the plural message", () => {
    const validator = createValidator(rawV4GetVerificationStatusRequest, TABLE, messageTemplates(modelFromSpec(renamedUnknownKeys())));
    const older = { metadata_version: "4", metadata_serviceUid: "u", metadata_secretKey: "s", trace: "t", extra: 1, more: 2 };
    for (let call = 0; call < 2; call++) {
      // Twice: the second call meets the error locations already worked out (quick-map.ts's fast path).
      expect(validator(older)).toEqual({
        valid: false,
        errors: [{ code: "unknown_keys", message: 'Unrecognized keys: "extra", "more"', path: [] }],
      });
    }
  });
});

describe("the operator page follows sandbox.yaml choices.authFailure", () => {
  it("the status and challenge of refused credentials changed: the sandbox refuses with them and the page's script tells a refusal by the status", async () => {
    const { binding } = await loadServedSpec(
      edited([
        ["sandbox.yaml", "    httpStatus: 401\n    code: unauthorized", "    httpStatus: 403\n    code: unauthorized"],
        ["sandbox.yaml", `challenge: 'Basic realm="verispec sandbox"'`, `challenge: 'Basic realm="acme", charset="UTF-8"'`],
      ]),
    );
    const { running, credentials } = await sandboxOf(binding as SandboxBinding);
    try {
      const refused = await fetch(`${running.url}/_sandbox/state`);
      expect({ status: refused.status, challenge: refused.headers.get("www-authenticate") }).toEqual({
        status: 403,
        challenge: 'Basic realm="acme", charset="UTF-8"',
      });
      const page = await fetch(`${running.url}/_sandbox`, { headers: { Authorization: `Basic ${btoa(`${credentials.serviceUid}:${credentials.secret}`)}` } });
      const text = await page.text();
      expect(text).toContain('if (!r.ok) return fail(r.status === 403 ? "The sandbox refused the credentials (HTTP " + r.status + ")');
      expect(text).not.toContain("401");
    } finally {
      await running.close();
    }
  });
});

describe("the answers' HTTP statuses follow endpoints.yaml responses", () => {
  it("201 for the v5 create and /verify, 202 chosen for the follow-up: the sandbox answers them, the envelope's statusCode too", async () => {
    const { binding } = await loadServedSpec(
      edited([
        ["endpoints.yaml", '"200": v5.VerificationCreateResponse', '"201": v5.VerificationCreateResponse'],
        ["endpoints.yaml", '"200": v4.VerifyResponse', '"201": v4.VerifyResponse'],
        ["sandbox.yaml", "    path: /requestedActions\n    httpStatus: 200", "    path: /requestedActions\n    httpStatus: 202"],
      ]),
    );
    expect(successStatus((binding as SandboxBinding).spec, "submitRequestedActions")).toBe(202);
    expect(successStatus((binding as SandboxBinding).spec, "getVerification")).toBe(200);
    const { running, credentials } = await sandboxOf(binding as SandboxBinding);
    try {
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
        const answer = await fetch(`${running.url}${path}`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
          body: JSON.stringify(body),
        });
        return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
      };
      const basic = { Authorization: `Basic ${btoa(`${credentials.serviceUid}:${credentials.secret}`)}` };
      const created = await post(
        "/v5/verifications",
        { type: "individual", subType: "data", name: "A Person", country: "AUS", website: "https://example.com" },
        basic,
      );
      expect({ status: created.status, statusCode: created.body.statusCode }).toEqual({ status: 201, statusCode: 201 });
      const older = { metadata_version: "4", metadata_serviceUid: credentials.serviceUid, metadata_secretKey: credentials.secret };
      const verified = await post("/verify", { ...older, ...olderIndividual("Older") });
      expect(verified.status).toBe(201);
    } finally {
      await running.close();
    }
  });
});

describe("the sandbox's own refusals follow sandbox.yaml refusals", () => {
  it("their statuses and codes changed: the sandbox's HTTP layer and the msw handlers answer a body that is not JSON, another media type and a body over the limit with them", async () => {
    const spec = edited([
      ["sandbox.yaml", "badRequest: { httpStatus: 400, code: bad_request }", "badRequest: { httpStatus: 418, code: unreadable_body }"],
      ["sandbox.yaml", "payloadTooLarge: { httpStatus: 413, code: payload_too_large }", "payloadTooLarge: { httpStatus: 507, code: body_too_big }"],
      ["sandbox.yaml", "unsupportedMediaType: { httpStatus: 415, code: unsupported_media_type }", "unsupportedMediaType: { httpStatus: 406, code: not_json }"],
    ]);
    const { binding } = await loadServedSpec(spec);
    const maxBodyBytes = 1 << 20; // the sandbox's default; the msw handlers' only limit
    const cases = [
      { body: "{not json", type: "application/json", want: [418, "unreadable_body"] },
      { body: "{}", type: "text/plain", want: [406, "not_json"] },
      { body: JSON.stringify({ name: "x".repeat(2 * maxBodyBytes) }), type: "application/json", want: [507, "body_too_big"] },
    ] as const;
    const answersOf = async (send: (init: RequestInit) => Promise<Response | undefined>) => {
      const got: (readonly [number, unknown])[] = [];
      for (const c of cases) {
        const answer = (await send({ method: "POST", headers: { "Content-Type": c.type }, body: c.body }))!;
        got.push([answer.status, ((await answer.json()) as { error?: { code?: unknown } }).error?.code]);
      }
      return got;
    };
    const want = cases.map((c) => [c.want[0], c.want[1]]);

    const mock = createMockHandlers(binding as SandboxBinding, { processingMs: "manual" });
    const basic = `Basic ${btoa(`${mock.serviceUid}:${mock.secret}`)}`;
    const mocked = await answersOf((init) =>
      getResponse(
        mock.handlers,
        new Request("https://api.example.com/v5/verifications", { ...init, headers: { ...(init.headers as object), Authorization: basic } }),
      ),
    );
    expect(mocked).toEqual(want);

    const { running, credentials } = await sandboxOf(binding as SandboxBinding, maxBodyBytes);
    try {
      const auth = `Basic ${btoa(`${credentials.serviceUid}:${credentials.secret}`)}`;
      const served = await answersOf((init) =>
        fetch(`${running.url}/v5/verifications`, { ...init, headers: { ...(init.headers as object), Authorization: auth } }),
      );
      expect(served).toEqual(want);
    } finally {
      await running.close();
    }
  });
});

/** A sandbox on `binding` in memory, with processing by hand, and the credentials it takes. */
async function sandboxOf(binding: SandboxBinding, maxBodyBytes = 1 << 20) {
  const credentials = { serviceUid: "uid-1", secret: "secret-1" };
  const running = await startSandbox({
    binding,
    host: "127.0.0.1",
    port: 0,
    db: "memory",
    cwd: ROOT,
    processingMs: "manual",
    requestedActionsPath: "/requestedActions",
    maxBodyBytes,
    credentials,
    signingSecret: "s",
    deliveryTimeoutMs: 1000,
    retryDelaysMs: [],
    log: () => {},
    metrics: false,
  });
  return { running, credentials };
}

function templateFiles(dir = join(ROOT, "templates")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? templateFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** The code of a file without its comments (a comment may name the value a binding stands for). */
const codeOf = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

describe("no literal of these facts in templates/", () => {
  it.each(RUNTIME_FACTS.map((f) => [f.fact, f.literal] as const))("%s (%s)", (_fact, literal) => {
    const exempt = LITERAL_EXEMPT[literal] ?? [];
    const found = templateFiles()
      .filter((file) => !exempt.includes(file.slice(ROOT.length + 1)))
      .filter((file) => codeOf(readFileSync(file, "utf8")).toLowerCase().includes(literal.toLowerCase()))
      .map((file) => file.slice(ROOT.length + 1));
    expect(found).toEqual([]);
  });
});
