// Emits generated/webhooks.js and webhooks.d.ts: the webhook runtime (templates/webhooks) bound to the spec's statuses,
// outcomes, transitions and timestamp tolerance. Only data comes from here; the logic is the template's.
import { SIGNATURE_DIGESTS } from "../load/spec-access.js";
import type { Model, SignatureHeader } from "../model/types.js";
import type { OutputFile } from "./output.js";
import { moduleFiles } from "./print.js";
import { validatorName } from "./names.js";

/** One digest header of a signature version, found by its digest (spec/webhooks.yaml signatures; there and with a prefix: VS441). */
function digestHeader(model: Model, version: string, digest: SignatureHeader["digest"]): { name: string; prefix: string } {
  const header = model.signatures.find((s) => s.version === version)?.headers.find((h) => h.digest === digest);
  if (!header?.prefix) throw new Error(`webhooks.yaml: signature version ${version} needs a ${digest} header with a prefix`);
  return { name: header.name, prefix: header.prefix };
}

/** The version header of signature `version`: its name and the value that names the version (one per version, VS439). */
function versionHeader(model: Model, version: string): { name: string; value: string } {
  const scheme = model.signatures.find((s) => s.version === version);
  if (!scheme) throw new Error(`webhooks.yaml: signature version ${version} is needed`);
  return scheme.versionHeader;
}

/** The signature headers' names, prefixes and version values the runtime reads and writes (the service's specification, section 6.4). */
export function signatureScheme(model: Model) {
  const [current, older] = [versionHeader(model, "2"), versionHeader(model, "1")];
  const [hmac] = SIGNATURE_DIGESTS["2"];
  const [sha, keccak] = SIGNATURE_DIGESTS["1"];
  return {
    versionHeader: current.name,
    v2: { ...digestHeader(model, "2", hmac), version: current.value },
    v1: { version: older.value, sha: digestHeader(model, "1", sha), keccak: digestHeader(model, "1", keccak) },
  };
}

/** The outcomes a `by_attempts` status reads as (statuses.yaml attempts.rejectionOutcomes). */
function rejectionOutcomes(model: Model): { retry: string; final: string } {
  const outcomes = model.attempts.rejectionOutcomes;
  if (!outcomes) throw new Error("statuses.yaml: attempts.rejectionOutcomes (retry, final) is needed to read a status decided by attempts");
  return { retry: outcomes.retry, final: outcomes.final };
}

export function webhookRules(model: Model) {
  return {
    toleranceMs: model.webhookToleranceMs,
    signatures: signatureScheme(model),
    statuses: Object.fromEntries(
      model.verificationStatuses.map((s) => [
        s.value,
        {
          meaning: s.meaning,
          outcome: s.outcome,
          guidance: s.outcome === "by_attempts" ? "" : model.outcomes[s.outcome]!.guidance,
          ...(s.onlyWhen ? { onlyWhen: s.onlyWhen } : {}),
        },
      ]),
    ),
    outcomes: Object.fromEntries(Object.entries(model.outcomes).map(([k, o]) => [k, o.guidance])),
    conditions: Object.fromEntries(Object.values(model.conditions).map((c) => [c.name, c.expr])),
    transitions: model.transitions.map((t) => ({
      ...(t.id ? { id: t.id } : {}),
      from: t.from,
      to: t.to,
      trigger: t.trigger,
      ...(t.condition ? { condition: t.condition } : {}),
      ...(t.when ? { when: t.when } : {}),
      ...(t.effects ? { effects: t.effects } : {}),
      ...(t.error ? { error: t.error } : {}),
    })),
    retryCondition: model.attempts.retryCondition,
    rejectionOutcomes: rejectionOutcomes(model),
  };
}

/** The payload schema of each format: "v5" is the current payload, "v4" the older one (the service's specification, sections 6.2, 6.3). */
function payloadSchemas(model: Model): { v5: string; v4: string } {
  const current = model.webhookPayloads.find((p) => p.schema.startsWith("v5."));
  const older = model.webhookPayloads.find((p) => p.schema.startsWith("v4."));
  if (!current || !older) throw new Error("webhooks.yaml: a v5 and an older payload are both needed");
  return { v5: current.schema, v4: older.schema };
}

/** What the webhooks entry passes on from the runtime unchanged. */
const RUNTIME_REEXPORTS = `export {
  createOrderingGuard, isWebhookVerificationError, MemoryOrderingState, MemoryReplayStore,
  ReplayStoreUnavailableError, WEBHOOK_VERIFICATION_REASONS, WebhookBodyTooLargeError, webhookRefusal, webhookRefusalResponse,
  WebhookVerificationError,
} from "./runtime/webhooks/index.js";`;

/** The kit's functions, bound to the spec's rules: name and JSDoc. */
const KIT_FUNCTIONS: readonly (readonly [string, string])[] = [
  ["verifyWebhook", "/** Verifies a received webhook (signature version 1 or 2, timestamp, replay) and returns its payload. */"],
  [
    "verifyWebhookRequest",
    "/** Verifies a Fetch API Request (Hono, Next.js route handlers, Workers, Deno, Bun): its raw bytes within a size limit, then verifyWebhook. */",
  ],
  ["signWebhook", "/** Signs a payload as the service does, for tests and local tools. */"],
  ["interpretWebhook", "/** What a payload's status means for the receiver (the service's specification, section 6.2). */"],
  [
    "canTransition",
    "/** Whether the transition table of section 3 of the service's specification allows going from one status to another (conditions evaluated on the fields given). */",
  ],
];

export function emitWebhooks(model: Model): OutputFile[] {
  const rules = JSON.stringify(webhookRules(model), null, 2);
  const schemas = payloadSchemas(model);
  const kitType = `WebhookKit<${schemas.v5}, ${schemas.v4}, WebhookOutcome>`;
  const outcomes = Object.keys(model.outcomes).map((o) => JSON.stringify(o));
  const kit = `// Each format's validator is loaded on its first delivery: a receiver of one format never loads the other,
// and importing this module stays cheap (a CLI run verifies one delivery).
const payloadValidators = {};
async function payloadValidator(version) {
  return version === "v5"
    ? (payloadValidators.v5 ??= (await import("./validators/${schemas.v5}.js")).${validatorName(schemas.v5)})
    : (payloadValidators.v4 ??= (await import("./validators/${schemas.v4}.js")).${validatorName(schemas.v4)});
}

const kit = createWebhookKit({
  rules: webhookRules,
  // A signed payload that does not match its schema is refused as invalid_payload, with the issues.
  validatePayload: (version, payload) => {
    const loaded = payloadValidators[version];
    return loaded ? loaded(payload) : payloadValidator(version).then((validate) => validate(payload));
  },
});`;
  return moduleFiles(
    "webhooks",
    {
      js: [
        "// Webhook verification bound to the spec (the service's specification, sections 3, 6, 8). The logic is in runtime/webhooks/.",
        `import { createWebhookKit } from "./runtime/webhooks/index.js";`,
      ],
      dts: [
        "// Webhook verification bound to the spec (the service's specification, sections 3, 6, 8). The logic is in runtime/webhooks/.",
        `import type { WebhookInterpretation as Interpretation, WebhookKit, WebhookRules } from "./runtime/webhooks/index.js";`,
        `import type { v4, v5 } from "./types.js";`,
      ],
    },
    [
      {
        doc: ["/** Statuses, receiver outcomes, transitions and the timestamp tolerance, from the spec YAML. */"],
        js: `export const webhookRules = ${rules};`,
        dts: "export declare const webhookRules: WebhookRules;",
      },
      {
        js: kit,
        dts: [
          "/** A verified payload, typed by its format. */",
          `export type WebhookPayload = ${schemas.v5} | ${schemas.v4};`,
          "/** How a receiver reads a status (the service's specification, section 6.2): the outcomes of statuses.yaml. */",
          `export type WebhookOutcome = ${outcomes.join(" | ")};`,
          "/** What a verified payload's status means for the receiver, its outcome one of the spec's. */",
          "export type WebhookInterpretation = Interpretation<WebhookOutcome>;",
        ].join("\n"),
      },
      ...KIT_FUNCTIONS.map(([name, doc]) => ({
        doc: [doc],
        js: `export const ${name} = kit.${name};`,
        dts: `export declare const ${name}: ${kitType}["${name}"];`,
      })),
      { js: RUNTIME_REEXPORTS, dts: `${RUNTIME_REEXPORTS}\nexport type * from "./runtime/webhooks/index.js";` },
    ],
  );
}
