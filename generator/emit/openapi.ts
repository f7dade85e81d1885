// Emits generated/openapi.json and generated/openapi.yaml: OpenAPI 3.1.0 with paths, webhooks and
// components.schemas shared with the JSON Schemas (same builder, `$ref`s into components).
import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject, ResponseObject } from "openapi3-ts/oas31";
import { stringify } from "yaml";
import type { Endpoint, Model } from "../model/types.js";
import { BANNER, jsonText, sortedObject, type OutputFile } from "./output.js";
import { dashedNote, statusDiagramSvg, transitionLines, unplacedStatuses } from "./diagram.js";
import { withNamedConditionalCases } from "./conditional-names.js";
import { buildDefinitions, fieldSchema, type BuildOptions, type JsonSchema } from "./schema-builder.js";

const COMPONENTS = "#/components/schemas/";
const options: BuildOptions = { refTo: (id) => `${COMPONENTS}${id}`, target: "openapi" };
const ref = (id: string) => ({ $ref: `${COMPONENTS}${id}` });

type Schemas = Readonly<Record<string, JsonSchema>>;

const exampleOf = (schemas: Schemas, id: string): unknown => (schemas[id]?.examples as unknown[] | undefined)?.[0];

function errorResponses(model: Model, schemas: Schemas, e: Endpoint): Record<string, ResponseObject> {
  const out: Record<string, ResponseObject> = {};
  // The error body's own example gives the envelope fields every answer carries (timestamp, serviceUid,
  // trace, ...); each error type replaces what differs. A message the specification does not show is a placeholder.
  const base = Object(exampleOf(schemas, e.errorBody)) as JsonSchema;
  for (const type of e.errors) {
    const t = model.errorTypes.find((x) => x.type === type)!;
    const example: JsonSchema = {
      ...base,
      ...(e.path !== null && "path" in base ? { path: e.path } : {}),
      statusCode: t.httpStatus,
      status: "error",
      data: null,
      help: null,
      error: { type: t.type },
    };
    if (t.message) example.message = t.message;
    else if ("message" in base) example.message = "<message>";
    if (t.role === "validation") {
      (example.error as JsonSchema).details = model.messages.observed.map((m) => ({ message: m.message, code: m.code, path: m.paths[0] }));
    }
    out[String(t.httpStatus)] = {
      description: `\`${t.type}\`: ${t.condition}`,
      content: { [model.bodyMediaType]: { schema: ref(e.errorBody), example: sortedObject(Object.entries(example)) } },
    };
  }
  const shapeNote = e.errorBody.startsWith("v4.") ? " Its exact shape: not shown." : "";
  // Only explicit status codes and `default`: a range key (`4XX`) breaks generators that turn response
  // keys into identifiers (orval's fetch client), and the statuses it would stand for (failed
  // authentication) are not shown, so `default` says so instead.
  out.default = {
    description: `Any other error: a JSON error body. Errors for failed authentication and their HTTP statuses: not shown.${shapeNote}`,
    content: { [model.bodyMediaType]: { schema: ref(e.errorBody) } },
  };
  return out;
}

function operation(model: Model, schemas: Schemas, e: Endpoint): OperationObject {
  const responses: Record<string, ResponseObject> = {};
  for (const [status, id] of Object.entries(e.responses)) {
    const example = exampleOf(schemas, id);
    responses[status] = {
      description: `Success (the service's specification, section ${e.source}).`,
      content: { [model.bodyMediaType]: { schema: ref(id), ...(example ? { example } : {}) } },
    };
  }
  Object.assign(responses, errorResponses(model, schemas, e));
  const limits = e.limits.map((l) => model.limits[l]!).map((l) => `- ${l.name}: ${l.value} (the service's specification, section ${l.source})`);
  const description = [
    e.description,
    e.auth === "body"
      ? `Authentication: ${model.auth.body!.description} (the service's specification, section ${model.auth.body!.source})`
      : `Authentication: ${model.auth.basic!.description} (the service's specification, section ${model.auth.basic!.source})`,
    limits.length ? `Limits:\n${limits.join("\n")}` : undefined,
    e.unknown ? `Not shown in the service's specification: ${e.unknown}` : undefined,
    `The service's specification, section ${e.source}.`,
  ]
    .filter(Boolean)
    .join("\n\n");
  const op: OperationObject = {
    operationId: e.operationId,
    summary: e.summary,
    description,
    tags: [e.auth === "basic" ? "v5" : "older"],
    "x-spec-section": e.source,
    security: e.auth === "basic" ? [{ basicAuth: [] }] : [],
    responses,
  };
  if (e.request) {
    const example = exampleOf(schemas, e.request);
    op.requestBody = { required: true, content: { [model.bodyMediaType]: { schema: ref(e.request), ...(example ? { example } : {}) } } };
  }
  const params: ParameterObject[] = Object.entries(e.pathParams).map(([name, f]) => ({
    name,
    in: "path",
    required: true,
    description: f.description,
    schema: fieldSchema(f, options),
    example: "7f0c2a9e-3b8d-4c55-9d1e-2f4b6a8c0d12",
  }));
  if (params.length) op.parameters = params;
  return op;
}

function webhookItem(model: Model, schemas: Schemas, name: string): PathItemObject {
  const p = model.webhookPayloads.find((x) => x.name === name)!;
  const scheme = model.signatures.find((s) => s.version === p.signatureVersion)!;
  const parameters: ParameterObject[] = scheme.headers.map((h) => ({
    name: h.name,
    in: "header",
    required: h.value !== undefined || p.signatureVersion === "2",
    description: [h.description, h.prefix ? `Prefix \`${h.prefix}\`.` : undefined, h.value ? `Value \`${h.value}\`.` : undefined].filter(Boolean).join(" "),
    schema: h.value !== undefined ? { type: "string", const: h.value } : { type: "string", pattern: `^${h.prefix}[0-9a-f]{64}$` },
  }));
  const example = exampleOf(schemas, p.schema);
  const description = [
    scheme.description,
    scheme.receiverMust.length ? `Receivers must: ${scheme.receiverMust.join("; ")}.` : undefined,
    scheme.bodyVariant
      ? `${scheme.bodyVariant.description}${scheme.bodyVariant.unknown ? ` Not shown in the service's specification: ${scheme.bodyVariant.unknown}` : ""}`
      : undefined,
    `Delivery (the service's specification, section ${model.delivery.source}):\n${model.delivery.rules.map((r) => `- ${r}`).join("\n")}`,
    `The service's specification, section ${p.source}.`,
  ]
    .filter(Boolean)
    .join("\n\n");
  return {
    post: {
      operationId: p.operationId,
      summary: p.summary,
      description,
      tags: ["webhooks"],
      "x-spec-section": p.source,
      parameters,
      security: [],
      requestBody: { required: true, content: { [model.bodyMediaType]: { schema: ref(p.schema), ...(example ? { example } : {}) } } },
      responses: { "200": { description: "Answer `200 OK` promptly and process the payload asynchronously (the service's specification, section 6.1)." } },
    },
  };
}

function statusTable(model: Model): string {
  const rows = model.verificationStatuses.map((s) => `| \`${s.value}\` | ${s.meaning} | ${s.outcome.replace("_", " ")} |`);
  const sub = model.submissionStatuses.map((s) => `| \`${s.value}\` | ${s.meaning ?? `Not shown in the service's specification: ${s.unknown}`} |`);
  // A numbered list, not a table: it reads at any width, and its numbers are the picture's arrows.
  const transitions = transitionLines(model).map((line, i) => `${i + 1}. ${line}`);
  const dashed = dashedNote(unplacedStatuses(model));
  return [
    "## Verification statuses (the service's specification, section 3)",
    "| Value | Meaning | Receiver outcome |",
    "|---|---|---|",
    ...rows,
    "",
    "## Submission statuses (the service's specification, section 3)",
    "| Value | Meaning |",
    "|---|---|",
    ...sub,
    "",
    "## Transitions (the service's specification, section 3)",
    ...transitions,
    "",
    ...model.attempts.rules.map((r) => `- ${r}`),
    "",
    // generated/statuses.svg without its legend (the list above is the legend), inline: the reference page
    // loads nothing from elsewhere. An HTML <img>: Redoc's Markdown leaves a `data:` image link as text.
    `<img alt="Status life cycle" src="data:image/svg+xml;base64,${Buffer.from(statusDiagramSvg(model, { legend: false })).toString("base64")}">`,
    "",
    `The numbers on the arrows are the transitions listed above.${dashed ? ` ${dashed}` : ""}`,
  ].join("\n");
}

function infoDescription(model: Model): string {
  const notShown = model.unknowns.map((u) => `- (the service's specification, section ${u.source}) ${u.text}`);
  return [
    "Verification service for individuals (KYC) and entities with their stakeholders (KYB): the older form-based interface (`/verify`, `/idform`, `/getVerificationStatus`, the follow-up request; envelope fields prefixed `metadata_`, version `4`) and the current one (`/v5/verifications`, HTTP Basic, JSON envelope), with signed webhooks (signature versions 1 and 2).",
    `All paths are appended to \`{base_url}\`. Interface version: \`${model.versions.webhookVersion}\` (\`x-interface-version\`); \`info.version\` is the version of this document, the spec's \`specVersion\`. This document is ${BANNER}.`,
    `## Stakeholders (the service's specification, section 2.1)\n${model.stakeholderGuidance}`,
    statusTable(model),
    `## Not shown in the service's specification\nThese facts are not shown in the service's specification; verispec models them as unknown instead of guessing.\n\n${notShown.join("\n")}`,
  ].join("\n\n");
}

/**
 * OpenAPI tools read a discriminator without `mapping` as "the value is the schema's name" (openapi-
 * typescript types `type` as "v4.RequestedIndividualAnswer"). Every discriminator over `$ref`s gets the
 * mapping from each target's `const` (or one-value `enum`)
 * of the discriminator property. Returns new objects; the definitions are not changed.
 */
export function withDiscriminatorMappings(schemas: Readonly<Record<string, JsonSchema>>): Record<string, JsonSchema> {
  const discriminatorValueOf = (ref: unknown, property: string): string | undefined => {
    if (typeof ref !== "string" || !ref.startsWith(COMPONENTS)) return undefined;
    const target = schemas[ref.slice(COMPONENTS.length)];
    const p = (target?.properties as Record<string, JsonSchema> | undefined)?.[property];
    if (typeof p?.const === "string") return p.const;
    const values = p?.enum as unknown[] | undefined;
    return values?.length === 1 && typeof values[0] === "string" ? values[0] : undefined;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== "object") return v;
    const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)])) as JsonSchema;
    const d = out.discriminator as JsonSchema | undefined;
    const members = out.oneOf as JsonSchema[] | undefined;
    if (d && !d.mapping && typeof d.propertyName === "string" && members?.length) {
      const pairs = members.map((m) => [discriminatorValueOf(m.$ref, d.propertyName as string), m.$ref] as const);
      if (pairs.every(([value]) => value !== undefined)) out.discriminator = { ...d, mapping: Object.fromEntries(pairs) };
    }
    return out;
  };
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, walk(schema) as JsonSchema]));
}

/** Values that are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(["examples", "example", "enum", "const", "default", "x-verispec-errors"]);

/**
 * Every `then` branch that names properties says `additionalProperties: true`, the JSON Schema default
 * written out. Redocly's `recommended` rule set checks examples as if every object were closed, and a
 * conditional branch only adds rules to the object it sits in: without this, Redocly reads the branch
 * as the whole object and calls every valid example invalid (32 warnings of its default rule set).
 */
export function withOpenConditionalBranches(schemas: Readonly<Record<string, JsonSchema>>): Record<string, JsonSchema> {
  const walk = (v: unknown, key?: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (!v || typeof v !== "object" || DATA_KEYWORDS.has(key ?? "")) return v;
    const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)])) as JsonSchema;
    if (key === "then" && out.properties && out.additionalProperties === undefined) out.additionalProperties = true;
    return out;
  };
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, walk(schema) as JsonSchema]));
}

export function buildOpenApi(model: Model): OpenAPIObject {
  const schemas = withNamedConditionalCases(
    withOpenConditionalBranches(withDiscriminatorMappings(sortedObject(buildDefinitions(model, options).map((d) => [d.id, d.schema])))),
  );
  const paths: Record<string, PathItemObject> = {};
  for (const e of model.endpoints) {
    if (e.path === null) continue; // section 4.4 of the service's specification: the follow-up request's path is not shown
    (paths[e.path] ??= {})[e.method.toLowerCase() as "get" | "post"] = operation(model, schemas, e);
  }
  return {
    openapi: "3.1.0",
    info: {
      // `version` is the document's own version (OpenAPI tools compare it across releases): the spec's
      // specVersion. The service's interface version (`v5`) is in the title and `x-interface-version`.
      title: `Verification service (KYC and KYB), interface ${model.versions.webhookVersion}`,
      version: model.versions.specVersion ?? "0.0.0",
      "x-interface-version": model.versions.webhookVersion,
      summary: "Identity verification of individuals and business verification of entities and their stakeholders.",
      description: infoDescription(model),
      license: { name: "MIT", identifier: "MIT" },
    },
    // No `jsonSchemaDialect`: its default is the OAS 3.1 base dialect already, and Prism 5.14 skips all
    // request validation when the field is present (see README, For other languages).
    // The variable carries only its `default`: orval 7's document check refuses a server variable's
    // `description` (valid OpenAPI 3.1), so the placeholder is explained in the server's description.
    servers: model.servers.map((s) => ({
      url: "{base_url}",
      description: `${s.description} \`base_url\` defaults to a placeholder under the reserved .invalid domain.`,
      variables: { base_url: { default: `https://${s.name}.base-url.invalid` } },
    })),
    tags: [
      { name: "older", description: "Older form-based interface: credentials in the JSON body, `metadata_version` `4`." },
      { name: "v5", description: "Current interface: path prefix `/v5`, HTTP Basic authentication, JSON envelope." },
      { name: "webhooks", description: "Signed webhooks (the service's specification, section 6)." },
    ],
    paths: sortedObject(Object.entries(paths)),
    webhooks: sortedObject(model.webhookPayloads.map((p) => [p.operationId, webhookItem(model, schemas, p.name)])),
    components: {
      schemas,
      securitySchemes: { basicAuth: { type: "http", scheme: "basic", description: model.auth.basic!.description } },
    },
    "x-verispec": {
      generatedBy: BANNER,
      unshownOperations: model.endpoints.filter((e) => e.path === null).map((e) => ({ operationId: e.operationId, request: e.request, note: e.unknown })),
    },
  } as OpenAPIObject;
}

export function emitOpenApi(model: Model): OutputFile[] {
  const doc = buildOpenApi(model);
  return [
    { path: "openapi.json", contents: jsonText(doc) },
    { path: "openapi.yaml", contents: `# ${BANNER}\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}` },
  ];
}
