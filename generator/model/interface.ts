// Model: the interface around the requests: limits.yaml, webhooks.yaml (delivery, signatures, payloads),
// endpoints.yaml (servers, authentication, endpoints), versions.yaml and sandbox.yaml.
import { at, rawAt, type At, type Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { FieldBuilder } from "./fields.js";
import type { Endpoint, Limit, Model, SandboxSpec, SignatureHeader, SignatureScheme, WebhookPayloadDef } from "./types.js";

export function buildLimits(ctx: ModelContext): Record<string, Limit> {
  const limits: Record<string, Limit> = {};
  for (const [name, l] of Object.entries(rawAt({ file: ctx.file("limits.yaml"), path: ["limits"] }) as Record<string, Raw>)) {
    const numbers = Object.fromEntries(Object.entries(l).filter(([, v]) => typeof v === "number")) as Record<string, number>;
    limits[name] = { name, source: l.source, value: l.value, appliesTo: l.appliesTo, rule: l.rule, numbers };
  }
  return limits;
}

export function buildWebhooks(
  ctx: ModelContext,
  limits: Readonly<Record<string, Limit>>,
): Pick<Model, "delivery" | "signatures" | "webhookToleranceMs" | "webhookPayloads"> {
  const wh = ctx.root("webhooks.yaml");
  const signatures: SignatureScheme[] = Object.entries(wh.signatures as Record<string, Raw>).map(([version, s]) => {
    const headers: SignatureHeader[] = Object.entries(s.headers as Record<string, Raw>).map(([name, h]) => ({ name, ...h }));
    const named = headers.find((h) => h.value !== undefined)!;
    return {
      version,
      source: s.source,
      description: s.description,
      headers,
      versionHeader: { name: named.name, value: named.value! },
      receiverMust: s.receiverMust ?? [],
      bodyVariant: s.bodyVariant,
    };
  });
  const webhookPayloads: WebhookPayloadDef[] = Object.entries(wh.payloads as Record<string, Raw>).map(([name, p]) => ({
    name,
    format: name === "v5" ? "v5" : "older",
    source: p.source,
    schema: p.schema,
    signatureVersion: p.signatureVersion,
    operationId: p.operationId,
    summary: p.summary,
  }));
  return {
    delivery: { source: wh.delivery.source, rules: wh.delivery.rules },
    signatures,
    webhookToleranceMs: limits[wh.signatures["2"].toleranceLimit]!.numbers.ms!,
    webhookPayloads,
  };
}

/** The media type of every body (section 4); a spec written before endpoints.yaml `bodies` means JSON, as section 4 says. */
const SECTION_4_MEDIA_TYPE = "application/json";

export function buildEndpoints(ctx: ModelContext, fields: FieldBuilder): Pick<Model, "servers" | "auth" | "endpoints" | "bodyMediaType"> {
  const file = ctx.file("endpoints.yaml");
  const ep = ctx.root("endpoints.yaml");
  const endpoints: Endpoint[] = Object.entries(ep.endpoints as Record<string, Raw>).map(([operationId, e]) => {
    const a: At = { file, path: ["endpoints", operationId] };
    const declared = Object.keys(e.pathParams ?? {});
    return {
      operationId,
      source: e.source,
      method: e.method,
      path: e.path,
      auth: e.auth,
      client: e.client,
      summary: e.summary,
      description: e.description,
      unknown: e.unknown,
      request: e.request,
      pathParams: Object.fromEntries(declared.map((n) => [n, fields.field(at(a, "pathParams", n), "yes")])),
      responses: e.responses,
      errors: e.errors ?? [],
      errorBody: e.errorBody,
      limits: e.limits ?? [],
    };
  });
  return { servers: ep.servers, auth: ep.auth, endpoints, bodyMediaType: (ep.bodies?.mediaType as string | undefined) ?? SECTION_4_MEDIA_TYPE };
}

export function buildVersions(ctx: ModelContext): Model["versions"] {
  const versions = ctx.root("versions.yaml");
  return {
    ...(versions.specVersion !== undefined ? { specVersion: versions.specVersion } : {}),
    metadataVersion: versions.olderInterface.metadataVersion,
    olderPaths: versions.olderInterface.paths,
    pathPrefix: versions.currentInterface.pathPrefix,
    webhookVersion: versions.currentInterface.webhookVersion,
    signatureVersions: versions.signatureVersions,
    deprecations: versions.deprecations,
  };
}

export function buildSandbox(ctx: ModelContext): SandboxSpec {
  const sb = ctx.root("sandbox.yaml");
  return { choices: sb.choices, testValues: sb.testValues };
}
