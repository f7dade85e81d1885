// One schema builder for every output: the JSON Schemas and the OpenAPI document are the same
// definitions, differing only in where a `$ref` points and in small OpenAPI-only additions.
import type { EntityKind, EntityRequest, Field, Message, Model, RoleSet, Rule, V5Requirement, ValueSet } from "../model/types.js";
import { entitySchemaId } from "../model/types.js";
import { ruleDefinitionId, valueSetDefinitionId } from "./names.js";
import { portablePattern } from "./portable-pattern.js";

export type JsonSchema = { [key: string]: unknown };

export interface BuildOptions {
  /** Where a reference to a definition points, e.g. "#/$defs/v5.Document". */
  readonly refTo: (id: string) => string;
  /**
   * Which document the schemas go into. They differ in one place: a discriminator over inline schemas
   * (the country branches) is kept for Ajv in the JSON Schemas and left out of OpenAPI, whose tools can
   * only follow a discriminator to named schemas.
   */
  readonly target: "json-schema" | "openapi";
}

/**
 * On an object the service sends (an answer, a webhook payload, or a part of one): the names of its
 * listed fields whose presence the service's specification does not show, sorted. Its always-present
 * fields are in `required`; `verispec conform` fails on a missing one and warns on these.
 */
export const PRESENCE_NOT_SHOWN_KEYWORD = "x-presence-not-shown";

/** Vendor keywords the schemas carry; validators that do not know them ignore them. */
export const VENDOR_KEYWORDS = ["x-spec-section", "x-not-shown", "x-verispec-errors", "x-verispec-pattern", PRESENCE_NOT_SHOWN_KEYWORD] as const;

/**
 * In openapi.json, a rule's exact pattern when it needs the `u` flag (astral-plane letters): `pattern`
 * there holds its portable form (portable-pattern.ts). verispec/ajv-vocabulary enforces it.
 */
export const EXACT_PATTERN_KEYWORD = "x-verispec-pattern";

const messageEntry = (m: Message) => ({ code: m.code, message: m.message });

/**
 * Any value. Written as `{}`, never the boolean schema `true`: several generators (openapi-python-client)
 * accept only objects as sub-schemas (the portable profile, test/outputs/profile.test.ts).
 */
export const ANY: JsonSchema = Object.freeze({}) as JsonSchema;

/** A condition on an object's keys; `type` and `properties` keep Ajv's strict mode satisfied. */
function objectHaving(properties: Record<string, unknown>, required: readonly string[] = Object.keys(properties)): JsonSchema {
  const props = { ...Object.fromEntries(required.map((k) => [k, {}])), ...properties };
  return { type: "object", properties: props, required: [...required] };
}

function withNotes(
  schema: JsonSchema,
  field: { source?: string; description?: string; unknown?: string; title?: string; presence?: Field["presence"] },
): JsonSchema {
  const f = { ...field, unknown: [field.unknown, field.presence?.unknown].filter(Boolean).join(" ") || undefined };
  const out: JsonSchema = {};
  if (f.title) out.title = f.title;
  const text = [f.description, f.unknown ? `Not shown in the service's specification: ${f.unknown}` : undefined].filter(Boolean).join("\n\n");
  if (text) out.description = text;
  if (f.source) out["x-spec-section"] = f.source;
  if (f.unknown) out["x-not-shown"] = f.unknown;
  return { ...out, ...schema };
}

function errorsFor(messages: Readonly<Record<string, Message>>): JsonSchema {
  const keys = Object.keys(messages).sort();
  return keys.length ? { "x-verispec-errors": Object.fromEntries(keys.map((k) => [k, messageEntry(messages[k]!)])) } : {};
}

/** A field of the spec as a JSON Schema (2020-12) object. */
export function fieldSchema(f: Field, options: BuildOptions): JsonSchema {
  if (f.unknownShape) return withNotes({}, f);
  if (f.ref) {
    const ref: JsonSchema = { $ref: options.refTo(f.ref) };
    return withNotes(f.nullable ? { anyOf: [ref, { type: "null" }] } : ref, { ...f, title: undefined });
  }
  const s: JsonSchema = {};
  const baseType = f.type ?? (f.properties ? "object" : f.items ? "array" : undefined);
  if (baseType !== undefined) {
    const types = Array.isArray(baseType) ? [...baseType] : [baseType];
    s.type = f.nullable ? [...types, "null"] : types.length === 1 ? types[0] : types;
  }
  if (f.values && !f.nullable && !isCountryGroup(f.values)) {
    // Named value sets (all ISO codes, state codes, statuses) are shared definitions, written once.
    s.$ref = options.refTo(valueSetDefinitionId(f.values));
    delete s.type;
  } else {
    const values = f.values?.values ?? f.enum;
    if (values) s.enum = f.nullable ? [...values, null] : [...values];
  }
  if (f.const !== undefined) s.const = f.const;
  if (f.format) s.format = f.format;
  if (f.minimum !== undefined) s.minimum = f.minimum;
  if (f.maximum !== undefined) s.maximum = f.maximum;
  let messages = f.messages;
  if (f.rule && !f.nullable) {
    // A rule is one shared definition: its pattern (the Unicode letter class is long) is written once.
    s.$ref = options.refTo(ruleDefinitionId(f.rule));
    delete s.type;
  } else if (f.rule) {
    Object.assign(s, ruleKeywords(f.rule, options));
    messages = { ...f.rule.messages, ...messages };
  }
  if (f.secret) s.writeOnly = true;
  if (f.deprecated) s.deprecated = true;
  if (f.properties) Object.assign(s, objectSchema(f.properties, f.additionalProperties, options), presenceNotShown(f));
  else if (f.additionalProperties !== undefined)
    s.additionalProperties = typeof f.additionalProperties === "boolean" ? f.additionalProperties : fieldSchema(f.additionalProperties, options);
  if (f.items) s.items = fieldSchema(f.items, options);
  const allOf: JsonSchema[] = f.when.map((c) => ({
    if: objectHaving({ [c.field]: c.values.length === 1 ? { const: c.values[0] } : { enum: [...c.values] } }),
    then: { properties: Object.fromEntries(Object.entries(c.properties).map(([k, v]) => [k, fieldSchema(v, options)])) },
  }));
  if (allOf.length) s.allOf = allOf;
  // Each branch names its key with the key's own schema (never an empty or boolean placeholder), so a
  // tool reading one branch alone sees the key's type.
  if (f.exactlyOneOf)
    s.oneOf = f.exactlyOneOf.map((name) => objectHaving({ [name]: f.properties?.[name] ? fieldSchema(f.properties[name]!, options) : {} }, [name]));
  if (f.oneOf) {
    s.oneOf = f.oneOf.map((v) => fieldSchema(v, options));
    if (f.discriminator) {
      s.type ??= "object";
      s.discriminator = { propertyName: f.discriminator };
    }
  }
  if (f.selectBy) {
    s.if = objectHaving({}, [f.selectBy.field]);
    s.then = { $ref: options.refTo(f.selectBy.then) };
    s.else = { $ref: options.refTo(f.selectBy.else) };
  }
  if (f.examples) s.examples = [...f.examples];
  return withNotes({ ...s, ...errorsFor(messages) }, f);
}

// Country groups stay inline: a discriminator needs its `enum` in place (Ajv and OpenAPI tools alike).
const isCountryGroup = (set: ValueSet) => set.countryGroup === true;

/** The portable form of a rule's pattern in openapi.json, when it differs from the exact one. */
const portableIn = (rule: Rule, options: BuildOptions) =>
  options.target === "openapi" && rule.pattern !== undefined ? portablePattern(rule.pattern) : undefined;

function ruleKeywords(rule: Rule, options: BuildOptions): JsonSchema {
  const s: JsonSchema = {};
  if (rule.minLength !== undefined) s.minLength = rule.minLength;
  if (rule.maxLength !== undefined) s.maxLength = rule.maxLength;
  const portable = portableIn(rule, options);
  if (portable !== undefined) {
    s.pattern = portable;
    s[EXACT_PATTERN_KEYWORD] = rule.pattern;
  } else if (rule.pattern !== undefined) s.pattern = rule.pattern;
  if (rule.format !== undefined) s.format = rule.format;
  return s;
}

function ruleSchema(rule: Rule, notes: Model["patternNotes"], options: BuildOptions): JsonSchema {
  const s: JsonSchema = { type: "string", ...ruleKeywords(rule, options), ...errorsFor(rule.messages) };
  if (rule.examples.length) s.examples = [...rule.examples];
  const note = portableIn(rule, options) !== undefined ? `${notes.engines}\n\n${notes.portable}` : notes.engines;
  const description = rule.pattern ? `${rule.description}\n\n${note}` : rule.description;
  return withNotes(s, { source: rule.source, description, title: rule.name });
}

function objectSchema(props: Readonly<Record<string, Field>>, additional: boolean | Field | undefined, options: BuildOptions): JsonSchema {
  const required = Object.entries(props)
    .filter(([, f]) => f.required === "yes")
    .map(([k]) => k);
  const s: JsonSchema = { properties: Object.fromEntries(Object.entries(props).map(([k, f]) => [k, fieldSchema(f, options)])) };
  if (required.length) s.required = required;
  if (additional !== undefined) s.additionalProperties = typeof additional === "boolean" ? additional : fieldSchema(additional, options);
  return s;
}

/** `x-presence-not-shown` of an object the service sends: its fields not always present, sorted. */
function presenceNotShown(f: Field): JsonSchema {
  if (!f.presence || !f.properties) return {};
  const names = Object.entries(f.properties)
    .filter(([, x]) => x.required !== "yes")
    .map(([k]) => k)
    .sort();
  return names.length ? { [PRESENCE_NOT_SHOWN_KEYWORD]: names } : {};
}

// ---- Older entity kinds (the service's specification, sections 2.2-2.9) ----------------------------------------------------------

/** The `fields` object of one country branch: closed, because each table lists its fields in full. */
function branchSchema(kind: EntityKind, index: number, options: BuildOptions): JsonSchema {
  const b = kind.branches[index]!;
  return withNotes({ type: "object", ...objectSchema(b.fields, false, options) }, { source: b.source, title: `${kind.title} fields (${b.name})` });
}

/** Stakeholders of a kind: roles of its role set, the types each role allows, required roles (the service's specification, section 2.1). */
function stakeholdersSchema(roleSet: RoleSet, model: Model, options: BuildOptions): JsonSchema {
  const types = model.stakeholderTypes;
  const roleRules = roleSet.roles
    .filter((r) => r.types.length < types.length)
    .map((r) => ({
      if: objectHaving({ role: { const: r.name } }),
      then: { properties: { type: { enum: [...r.types] } } },
    }));
  const typeRules = types.map((t) => ({
    if: objectHaving({ type: { const: t.name } }),
    then: { properties: { fields: { $ref: options.refTo(t.fields) } } },
  }));
  const item: JsonSchema = {
    type: "object",
    properties: {
      type: { type: "string", enum: types.map((t) => t.name) },
      role: {
        type: "string",
        enum: roleSet.roles.map((r) => r.name),
        description: roleSet.roles
          .map(
            (r) =>
              `\`${r.name}\`: ${[r.description, `types ${r.types.join(", ")}`, r.required ? "required" : undefined, r.unknown].filter(Boolean).join("; ")}`,
          )
          .join("\n"),
      },
      // Any object here (the per-type rules below give its shape). `additionalProperties: true` is the JSON
      // Schema default, written out so that generators (openapi-typescript) do not read an empty object.
      fields: { type: "object", additionalProperties: true },
    },
    required: ["type", "role", "fields"],
    additionalProperties: false,
    allOf: [...roleRules, ...typeRules],
  };
  const required = roleSet.roles.filter((r) => r.required);
  const template = model.messages.verispec.requiredRole!;
  const s: JsonSchema = { type: "array", items: item };
  if (required.length) {
    s.allOf = required.map((r) => ({
      contains: objectHaving({ role: { const: r.name } }),
      "x-verispec-errors": { contains: { code: template.code, message: template.message.replaceAll("{role}", r.name) } },
    }));
  }
  return withNotes(s, { source: roleSet.source, description: `Stakeholders. ${model.stakeholderGuidance}` });
}

/** `{ type, fields, stakeholders }` of an entity kind, without the envelope. */
function entityParts(kind: EntityKind, model: Model, options: BuildOptions): { properties: Record<string, JsonSchema>; required: string[] } {
  const fields =
    kind.branches.length === 1
      ? branchSchema(kind, 0, options)
      : {
          type: "object",
          oneOf: kind.branches.map((_, i) => branchSchema(kind, i, options)),
          ...(options.target === "json-schema" ? { discriminator: { propertyName: "country" } } : {}),
        };
  const properties: Record<string, JsonSchema> = { type: { type: "string", const: kind.kind }, fields };
  const required = ["type", "fields"];
  if (kind.stakeholders) {
    properties.stakeholders = stakeholdersSchema(kind.stakeholders.roleSet, model, options);
    if (kind.stakeholders.required) required.push("stakeholders");
  }
  return { properties, required };
}

export function entityKindSchema(kind: EntityKind, model: Model, options: BuildOptions): JsonSchema {
  const { properties, required } = entityParts(kind, model, options);
  return withNotes({ type: "object", properties, required, additionalProperties: false }, kind);
}

export function entityRequestVariantId(request: EntityRequest, kind: EntityKind): string {
  return `${request.id}.${entitySchemaId(kind.kind).split(".").pop()}`;
}

/** One request variant: the envelope's fields and the kind's parts in one closed object. */
function entityRequestVariant(request: EntityRequest, kind: EntityKind, model: Model, options: BuildOptions): JsonSchema {
  const envelope = objectSchema(request.fields, undefined, options);
  const parts = entityParts(kind, model, options);
  return withNotes(
    {
      type: "object",
      properties: { ...(envelope.properties as JsonSchema), ...parts.properties },
      required: [...((envelope.required as string[]) ?? []), ...parts.required],
      additionalProperties: false,
    },
    { source: kind.source, title: `${request.title}: ${kind.title}`, description: kind.description, unknown: kind.unknown },
  );
}

function entityRequestSchema(request: EntityRequest, model: Model, options: BuildOptions): JsonSchema {
  const kinds = kindsOf(request, model);
  const s: JsonSchema = {
    type: "object",
    oneOf: kinds.map((k) => ({ $ref: options.refTo(entityRequestVariantId(request, k)) })),
    discriminator: { propertyName: "type" },
  };
  if (request.examples.length) s.examples = [...request.examples];
  return withNotes(s, request);
}

export const kindsOf = (request: EntityRequest, model: Model) => model.entityKinds.filter((k) => k.interface === request.interface);

// ---- v5 requirements per entity type (the service's specification, section 2.11) -------------------------------------------------

function requirementRules(reqs: readonly V5Requirement[], model: Model): JsonSchema[] {
  const doc = model.requiredDocumentMessage;
  const whenType = (type: string, countries?: readonly string[]): JsonSchema =>
    objectHaving(countries ? { type: { const: type }, country: { enum: [...countries] } } : { type: { const: type } });
  const out: JsonSchema[] = [];
  for (const r of reqs) {
    for (const a of r.addresses) {
      out.push({
        if: whenType(r.type),
        then: { required: ["addresses"], properties: { addresses: objectHaving({ [a]: { type: "string" } }) } },
        "x-spec-section": r.source,
      });
    }
    for (const group of r.identifiersFor) {
      for (const id of group.identifiers) {
        out.push({
          if: whenType(r.type, group.countries.values),
          then: { required: ["identifiers"], properties: { identifiers: objectHaving({ [id]: { type: "string" } }) } },
          "x-spec-section": r.source,
        });
      }
    }
    for (const kind of r.documents) {
      const errors = { "x-verispec-errors": { required: messageEntry(doc), contains: messageEntry(doc) } };
      out.push({
        if: whenType(r.type),
        then: {
          required: ["documents"],
          properties: {
            documents: {
              type: "array",
              // Any item here (the property's own schema checks items); linters want `items` beside `type: array`.
              items: {},
              contains: objectHaving({ kind: { const: kind }, source: { const: "base64" } }, ["kind", "source", "data"]),
              ...errors,
            },
          },
          ...errors,
        },
        "x-spec-section": r.source,
      });
    }
  }
  return out;
}

// ---- All definitions --------------------------------------------------------------------------------

export interface Definition {
  readonly id: string;
  /** Published as generated/schemas/<id>.json and listed by `verispec schemas`. */
  readonly published: boolean;
  readonly schema: JsonSchema;
}

/** Every definition of the spec, in a stable order: shapes, entity kinds, entity requests and their variants. */
export function buildDefinitions(model: Model, options: BuildOptions): Definition[] {
  const defs: Definition[] = [];
  for (const id of Object.keys(model.shapes).sort()) {
    const shape = model.shapes[id]!;
    let schema = fieldSchema(shape, options);
    if (shape.requirements) schema = { ...schema, allOf: [...((schema.allOf as JsonSchema[]) ?? []), ...requirementRules(model.v5Requirements, model)] };
    defs.push({ id, published: true, schema });
  }
  for (const set of model.valueSets)
    defs.push({
      id: valueSetDefinitionId(set),
      published: false,
      schema: withNotes({ type: "string", enum: [...set.values] }, { title: set.name, description: set.description, source: set.source }),
    });
  for (const rule of Object.values(model.rules))
    defs.push({ id: ruleDefinitionId(rule), published: false, schema: ruleSchema(rule, model.patternNotes, options) });
  for (const kind of model.entityKinds) defs.push({ id: entitySchemaId(kind.kind), published: true, schema: entityKindSchema(kind, model, options) });
  for (const request of model.entityRequests) {
    defs.push({ id: request.id, published: true, schema: entityRequestSchema(request, model, options) });
    for (const kind of kindsOf(request, model))
      defs.push({ id: entityRequestVariantId(request, kind), published: false, schema: entityRequestVariant(request, kind, model, options) });
  }
  return defs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Ids a schema refers to, directly (refs shaped by `refTo`). */
export function referencedIds(schema: unknown, fromRef: (ref: string) => string | undefined): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "$ref" && typeof x === "string") {
          const id = fromRef(x);
          if (id) out.add(id);
        } else walk(x);
      }
    }
  };
  walk(schema);
  return out;
}

const jsonSchemaCache = new WeakMap<Model, readonly Definition[]>();

/**
 * The definitions as generated/schemas/ writes them (references into `#/$defs/`). Built once per model
 * (the JSON Schema and validators emitters both read them; neither changes them).
 */
export function jsonSchemaDefinitions(model: Model): readonly Definition[] {
  let defs = jsonSchemaCache.get(model);
  if (!defs) jsonSchemaCache.set(model, (defs = buildDefinitions(model, { refTo: (id) => `#/$defs/${id}`, target: "json-schema" })));
  return defs;
}
