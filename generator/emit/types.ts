// Emits generated/types.ts: TypeScript types for every request, response, payload and entity kind.
//
// Printed from the model rather than through json-schema-to-typescript: the schemas express the
// narrowing the service's specification needs with if/then (USA-only `state`, role -> stakeholder types), which that tool
// drops, and their `$defs` ids (`rules.x`, `values.x`) would become type names. Printing from the model
// gives discriminated unions that narrow, and names equal to the schema ids (`v4.VerifyRequest` is
// generated/schemas/v4.VerifyRequest.json). Output is deterministic: model order, no formatter.
import type { EntityKind, EntityRequest, Field, Model, RoleSet, ValueSet } from "../model/types.js";
import { entitySchemaId } from "../model/types.js";
import { CREDENTIAL_FIELDS } from "../check/endpoints.js";
import { bodyTypeName, valueSetTypeName } from "./names.js";
import { BANNER, type OutputFile } from "./output.js";
import { jsdoc, lit, propertyKey as key, union } from "./print.js";
import { requestShapeIds } from "./request-shapes.js";

/** A property the type declares absent (`?: never`): a tag field another member of a union carries. */
const ABSENT = Symbol("absent");

export { CREDENTIAL_FIELDS };


const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const ident = (s: string) => s.replace(/[^A-Za-z0-9_$]/g, "");

const isGroup = (set: ValueSet) => set.countryGroup === true;

/** Type name of a schema id: the id itself, as a path through `v4`/`v5` namespaces. */
const typeRef = (id: string) => id;

interface Notes {
  readonly title?: string;
  readonly description?: string;
  readonly unknown?: string;
  readonly source?: string;
}

/** The JSDoc lines of a field: its own description, its rule's, "not shown", the service's specification section, deprecation. */
function fieldDoc(f: Field | Notes, extra: readonly string[] = []): string[] {
  const field = f as Partial<Field>;
  const lines: (string | undefined)[] = [f.title && f.description ? `${f.title}.` : f.title, f.description];
  if (field.rule && field.rule.description !== f.description) lines.push(field.rule.description);
  if (field.required === "ifPresent") lines.push("Required if present (the specification's wording): optional, but not empty when given.");
  lines.push(...extra);
  if (f.unknown) lines.push(`Not shown in the service's specification: ${f.unknown}`);
  const tags: string[] = [];
  if (f.source) tags.push(`@see The service's specification, section ${f.source}`);
  if (field.secret) tags.push("@remarks Secret: never logged; the client adds it.");
  if (field.deprecated) tags.push(`@deprecated ${f.description ?? "Deprecated (the service's specification, section 9)."}`);
  return [...(lines.filter(Boolean) as string[]), ...(tags.length ? [tags.join("\n")] : [])];
}

class Printer {
  constructor(private readonly model: Model) {}

  /** The TypeScript type of a field (without its optionality). */
  type(f: Field, indent: string): string {
    if (f.unknownShape) return "unknown";
    if (f.const === ABSENT) return "never";
    const nullable = (t: string) => (f.nullable ? `${t} | null` : t);
    if (f.ref) return nullable(typeRef(f.ref));
    if (f.oneOf) return nullable(union(f.oneOf.map((o) => this.type(o, indent))));
    if (f.const !== undefined) return nullable(lit(f.const));
    if (f.values) return nullable(this.values(f.values));
    if (f.enum) return nullable(union(f.enum.map(lit)));
    if (f.properties || f.additionalProperties !== undefined || f.type === "object") return nullable(this.object(f, indent));
    if (f.items || f.type === "array") return nullable(`Array<${f.items ? this.type(f.items, indent) : "unknown"}>`);
    if (f.rule) return nullable("string");
    const types = f.type === undefined ? [] : Array.isArray(f.type) ? f.type : [f.type];
    // An open value set (the service's list is not shown in full): the known values as suggestions that
    // editors complete, any other string still accepted.
    if (types.length === 1 && types[0] === "string" && !f.format && f.examples?.length && f.examples.every((e) => typeof e === "string")) {
      return nullable(`${union(f.examples.map(lit))} | (string & {})`);
    }
    if (!types.length) return nullable("unknown");
    return nullable(union(types.map((t) => (t === "integer" ? "number" : t === "object" ? "Record<string, unknown>" : t === "array" ? "unknown[]" : t))));
  }

  values(set: ValueSet): string {
    return isGroup(set) ? union(set.values.map(lit)) : valueSetTypeName(set);
  }

  /** Property lines of an object, each with its JSDoc. `override` replaces a property's type text. */
  members(props: Readonly<Record<string, Field>>, indent: string, override: Record<string, { type: string; optional: boolean }> = {}): string {
    let out = "";
    for (const [name, f] of Object.entries(props)) {
      const o = override[name];
      out += jsdoc(fieldDoc(f), indent);
      out += `${indent}${key(name)}${(o ? o.optional : f.required !== "yes") ? "?" : ""}: ${o ? o.type : this.type(f, indent)};\n`;
    }
    return out;
  }

  indexSignature(f: Field, indent: string): string {
    const a = f.additionalProperties;
    if (a === undefined || a === false) return "";
    return `${indent}[key: string]: ${a === true ? "unknown" : `${this.type(a, indent)} | undefined`};\n`;
  }

  /**
   * An object type. `when` conditions on one field become a union that narrows on that field
   * (section 2.2 of the service's specification: `state` is a USA state code only where `country` is USA); `exactlyOneOf` becomes a
   * union where each key excludes the others.
   */
  object(f: Field, indent: string): string {
    const props = f.properties ?? {};
    const inner = `${indent}  `;
    const obj = (override: Record<string, { type: string; optional: boolean }> = {}, extra: Readonly<Record<string, Field>> = {}) =>
      `{\n${this.members({ ...props, ...extra }, inner, override)}${this.indexSignature(f, inner)}${indent}}`;
    const fields = [...new Set(f.when.map((c) => c.field))];
    if (fields.length === 1 && props[fields[0]!]) {
      const on = fields[0]!;
      const base = props[on]!;
      // A condition narrows a property's type, not whether it is required: that stays the base's.
      const narrowed = (c: (typeof f.when)[number]) =>
        Object.fromEntries(Object.entries(c.properties).map(([k, v]) => [k, props[k] ? { ...v, required: props[k]!.required } : v]));
      const variants = f.when.map((c) => obj({ [on]: { type: union(c.values.map(lit)), optional: false } }, narrowed(c)));
      const taken = f.when.flatMap((c) => c.values);
      const all = base.values?.values ?? base.enum ?? (base.const !== undefined ? [base.const] : undefined);
      // The other values, where the field has a closed list; otherwise any value keeps the base shape.
      const rest = all ? all.filter((v) => !taken.includes(v as string)) : undefined;
      if (!rest) variants.push(obj());
      else if (rest.length) {
        const restType = base.values && !isGroup(base.values) ? `Exclude<${valueSetTypeName(base.values)}, ${union(taken.map(lit))}>` : union(rest.map(lit));
        variants.push(obj({ [on]: { type: restType, optional: base.required !== "yes" } }));
      }
      return variants.length === 1 ? variants[0]! : `(${variants.join(` | `)})`;
    }
    if (f.exactlyOneOf) {
      return `(${f.exactlyOneOf
        .map((name) => obj(Object.fromEntries(f.exactlyOneOf!.map((other) => [other, other === name ? { type: this.type(props[other]!, inner), optional: false } : { type: "never", optional: true }]))))
        .join(" | ")})`;
    }
    if (!Object.keys(props).length && f.additionalProperties === true) return "Record<string, unknown>";
    const variantFields = Object.entries(props).filter(([, x]) => x.onlyIn !== undefined);
    if (variantFields.length) return this.variants(f, indent, variantFields);
    return obj();
  }

  /**
   * Fields present only in one variant (`onlyIn`, the v5 stakeholder webhook's `parentTrace`): the
   * common members, then either none of those fields or the variant's, the first one present. Narrows
   * on `payload.parentTrace !== undefined`.
   */
  variants(f: Field, indent: string, only: [string, Field][]): string {
    const inner = `${indent}  `;
    const names = new Set(only.map(([k]) => k));
    const common = Object.fromEntries(Object.entries(f.properties!).filter(([k]) => !names.has(k)));
    const variant = only[0]![1].onlyIn!;
    if (only.some(([, x]) => x.onlyIn !== variant)) throw new Error("types: one `onlyIn` variant per shape");
    const absent = Object.fromEntries(only.map(([k]) => [k, { type: "never", optional: true }]));
    const present = Object.fromEntries(only.map(([k, x], i) => [k, { type: this.type(x, `${inner}  `), optional: i > 0 }]));
    const member = (o: Record<string, { type: string; optional: boolean }>) => `{\n${this.members(Object.fromEntries(only), `${inner}  `, o)}${inner}}`;
    return `{\n${this.members(common, inner)}${this.indexSignature(f, inner)}${indent}} & (\n${inner}| ${member(absent)}\n${inner}| ${member(present)}\n${indent})`;
  }
}

// ---- Declarations -----------------------------------------------------------------------------------

interface Decl {
  /** Namespace path, e.g. ["v4", "entities"]. */
  readonly ns: readonly string[];
  readonly text: (indent: string) => string;
}

function shapeDecl(id: string, shape: Field, p: Printer, schemaId = id, extraDoc: string[] = []): Decl {
  const parts = id.split(".");
  const name = parts.pop()!;
  return {
    ns: parts,
    text: (indent) => {
      const doc = jsdoc(fieldDoc(shape, [...extraDoc, `Schema: \`schemas/${schemaId}.json\`${schemaId === id ? "" : " (with the credentials)"}.`]), indent);
      const t = p.type(shape, indent);
      const isPlainObject = t.startsWith("{") && t.endsWith("}") && !shape.ref && !shape.oneOf;
      return isPlainObject ? `${doc}${indent}export interface ${name} ${t}\n` : `${doc}${indent}export type ${name} = ${t};\n`;
    },
  };
}

/** Shape of a credential-carrying request without its credentials: the body the client takes. */
function withoutCredentials(shape: Field): Field {
  const properties = Object.fromEntries(Object.entries(shape.properties ?? {}).filter(([k]) => !(CREDENTIAL_FIELDS as readonly string[]).includes(k)));
  return { ...shape, properties, examples: undefined };
}


function roleSetDecl(set: RoleSet, model: Model): Decl {
  return {
    ns: ["v4", "entities"],
    text: (indent) => {
      const doc = jsdoc(
        [
          `Stakeholders of the \`${set.name}\` role set: \`{ type, role, fields }\`, where each role allows only its stakeholder types.`,
          set.description,
          set.roles.map((r) => `- \`${r.name}\`${r.required ? " (required: at least one)" : ""}: ${r.types.join(", ")}${r.description ? `. ${r.description}` : ""}${r.unknown ? `. Not shown in the service's specification: ${r.unknown}` : ""}`).join("\n"),
          model.stakeholderGuidance,
          `@see The service's specification, section ${set.source}`,
        ],
        indent,
      );
      const members = set.roles.map((r) => `${indent}  | v4.Stakeholder<${lit(r.name)}, ${union(r.types.map(lit))}>`);
      return `${doc}${indent}export type ${cap(set.name)}Stakeholder =\n${members.join("\n")};\n`;
    },
  };
}

const branchTypeName = (kind: EntityKind, branch: string) => `${cap(kind.kind)}${ident(cap(branch))}Fields`;

function entityDecls(kind: EntityKind, p: Printer): Decl[] {
  const name = entitySchemaId(kind.kind).split(".").pop()!;
  const decls: Decl[] = kind.branches.map((b) => ({
    ns: ["v4", "entities"],
    text: (indent: string) =>
      `${jsdoc([`${kind.title} fields (${b.name}).`, `@see The service's specification, section ${b.source}`], indent)}${indent}export interface ${branchTypeName(kind, b.name)} {\n${p.members(b.fields, `${indent}  `)}${indent}}\n`,
  }));
  decls.push({
    ns: ["v4", "entities"],
    text: (indent) => {
      const inner = `${indent}  `;
      let body = `${inner}type: ${lit(kind.kind)};\n`;
      body += jsdoc(kind.branches.length > 1 ? ["Narrows on `country`."] : [], inner);
      body += `${inner}fields: ${union(kind.branches.map((b) => branchTypeName(kind, b.name)))};\n`;
      if (kind.stakeholders) {
        body += jsdoc([`@see The service's specification, section ${kind.stakeholders.source}`], inner);
        body += `${inner}stakeholders${kind.stakeholders.required ? "" : "?"}: Array<v4.entities.${cap(kind.stakeholders.roleSet.name)}Stakeholder>;\n`;
      }
      return `${jsdoc(fieldDoc(kind, [`Schema: \`schemas/${entitySchemaId(kind.kind)}.json\`.`]), indent)}${indent}export interface ${name} {\n${body}${indent}}\n`;
    },
  });
  return decls;
}

function entityRequestDecls(request: EntityRequest, model: Model, p: Printer): Decl[] {
  const parts = request.id.split(".");
  const name = parts.pop()!;
  const body = bodyTypeName(request.id);
  const kinds = model.entityKinds.filter((k) => k.interface === request.interface);
  const envelope = Object.fromEntries(Object.entries(request.fields).filter(([k]) => !(CREDENTIAL_FIELDS as readonly string[]).includes(k)));
  const kindUnion = kinds.map((k) => `v4.entities.${entitySchemaId(k.kind).split(".").pop()!}`);
  return [
    {
      ns: parts,
      text: (indent) =>
        `${jsdoc([`${request.title}: the envelope fields the caller gives (the client adds the credentials).`, `@see The service's specification, section ${request.source}`], indent)}` +
        `${indent}export interface ${name.replace(/Request$/, "")}Envelope {\n${p.members(envelope, `${indent}  `)}${indent}}\n`,
    },
    {
      ns: parts,
      text: (indent) =>
        `${jsdoc([`${request.title} as \`createClient\` takes it: without \`metadata_version\`, \`metadata_serviceUid\`, \`metadata_secretKey\`. Narrows on \`type\`.`, request.description, `@see The service's specification, section ${request.source}`], indent)}` +
        `${indent}export type ${body} = ${name.replace(/Request$/, "")}Envelope & (\n${kindUnion.map((k) => `${indent}  | ${k}`).join("\n")}\n${indent});\n`,
    },
    {
      ns: parts,
      text: (indent) =>
        `${jsdoc([`${request.title} as sent on the wire, credentials included.`, request.description, `Schema: \`schemas/${request.id}.json\`.`, `@see The service's specification, section ${request.source}`], indent)}` +
        `${indent}export type ${name} = v4.Credentials & ${body};\n`,
    },
  ];
}

function credentialsDecl(model: Model, p: Printer): Decl {
  const request = model.entityRequests[0]!; // one at least (check VS422)
  const fields = Object.fromEntries(CREDENTIAL_FIELDS.map((k) => [k, request.fields[k]!]));
  return {
    ns: ["v4"],
    text: (indent) =>
      `${jsdoc(["Credentials and version of the older interface, in the JSON body. `createClient` adds them to every older call.", "@see The service's specification, sections 2.1 and 5"], indent)}` +
      `${indent}export interface Credentials {\n${p.members(fields, `${indent}  `)}${indent}}\n`,
  };
}

function stakeholderGenericDecl(model: Model): Decl {
  return {
    ns: ["v4"],
    text: (indent) =>
      `${jsdoc(["Stakeholder type names of the older interface.", "@see section 2.1 of the service's specification"], indent)}${indent}export type StakeholderType = ${union(model.stakeholderTypes.map((t) => lit(t.name)))};\n` +
      `${jsdoc(["The `fields` shape of each stakeholder type."], indent)}${indent}export interface StakeholderFieldsByType {\n${model.stakeholderTypes
        .map((t) => `${jsdoc([t.description], `${indent}  `)}${indent}  ${key(t.name)}: ${typeRef(t.fields)};\n`)
        .join("")}${indent}}\n` +
      `${jsdoc(["One stakeholder `{ type, role, fields }` (older form); a union over `T` that narrows on `type`.", model.stakeholderGuidance, "@see section 2.1 of the service's specification"], indent)}` +
      `${indent}export type Stakeholder<R extends string = string, T extends StakeholderType = StakeholderType> = T extends StakeholderType\n` +
      `${indent}  ? { type: T; role: R; fields: StakeholderFieldsByType[T] }\n${indent}  : never;\n`,
  };
}

/**
 * A request shape as a closed type: no index signature where the service accepts unknown keys without
 * using them, so that a misspelt key (`identifers`) is a compile error. The validators keep the service's
 * behaviour (unknown keys pass; `unknownKeys: "report"` flags them). Shapes with `openKeys` stay open.
 */
function closed(f: Field): Field {
  const props = f.properties && Object.fromEntries(Object.entries(f.properties).map(([k, v]) => [k, closed(v)]));
  return {
    ...f,
    properties: props,
    additionalProperties: f.additionalProperties === true && f.properties && !f.openKeys ? undefined : f.additionalProperties,
    items: f.items && closed(f.items),
    oneOf: f.oneOf?.map(closed),
  };
}

/**
 * Webhook payloads narrow on their tag: a required `const` field one payload has (v5 `version`) is
 * declared absent (`?: never`) in the payloads without it (the older payload has no `version`,
 * specification section 6.3), so `payload.version === "v5"` narrows a `WebhookPayload` union.
 */
function payloadTags(model: Model): Map<string, Record<string, Field>> {
  const shapes = model.webhookPayloads.map((p) => model.shapes[p.schema]).filter((s): s is NonNullable<typeof s> => !!s);
  const tagFields = shapes.flatMap((s) => Object.entries(s.properties ?? {}).filter(([, f]) => f.required === "yes" && f.const !== undefined));
  const out = new Map<string, Record<string, Field>>();
  for (const s of shapes) {
    const missing = tagFields.filter(([k]) => !s.properties?.[k]);
    if (missing.length) out.set(s.id, Object.fromEntries(missing.map(([k, f]) => [k, { ...f, required: "no", const: ABSENT, description: `Absent: only other payload formats carry \`${k}\`.`, source: undefined }])));
  }
  return out;
}

/** Renders declarations grouped into `export declare namespace` blocks (type-only: nothing at runtime). */
function render(decls: readonly Decl[]): string {
  interface Node {
    text: string[];
    children: Map<string, Node>;
  }
  const root: Node = { text: [], children: new Map() };
  for (const d of decls) {
    let node = root;
    for (const n of d.ns) {
      if (!node.children.has(n)) node.children.set(n, { text: [], children: new Map() });
      node = node.children.get(n)!;
    }
    node.text.push(d.text("  ".repeat(d.ns.length)));
  }
  const print = (node: Node, depth: number): string[] => {
    const indent = "  ".repeat(depth);
    const out = [...node.text];
    for (const [name, child] of node.children) {
      out.push(`${indent}${depth === 0 ? "export declare" : "export"} namespace ${name} {\n${print(child, depth + 1).join("\n")}${indent}}\n`);
    }
    return out;
  };
  return print(root, 0).join("\n");
}

export function typesText(model: Model): string {
  const p = new Printer(model);
  const decls: Decl[] = [];
  const valueSets: ValueSet[] = [model.countries.usStates, ...model.valueSets.filter((s) => s.name !== model.countries.usStates.name)];
  const names = new Set<string>();
  for (const set of valueSets) {
    const name = valueSetTypeName(set);
    if (names.has(name) || name === "v4" || name === "v5") throw new Error(`value set ${set.name}: type name ${name} is taken`);
    names.add(name);
    const doc = set.name === "iso3" ? "ISO 3166-1 alpha-3 country code." : set.description;
    decls.push({ ns: [], text: (indent) => `${jsdoc([doc ?? `\`${set.name}\` values.`, set.source ? `@see The service's specification, section ${set.source}` : undefined], indent)}${indent}export type ${name} = ${union(set.values.map(lit))};\n` });
  }
  decls.push(credentialsDecl(model, p), stakeholderGenericDecl(model));

  const requestIds = new Set(model.endpoints.filter((e) => e.auth === "body" && e.request).map((e) => e.request!));
  const requestShapes = requestShapeIds(model);
  const tags = payloadTags(model);
  for (const id of Object.keys(model.shapes).sort()) {
    let shape: Field = model.shapes[id]!;
    if (requestShapes.has(id)) shape = closed(shape);
    if (tags.has(id)) shape = { ...shape, properties: { ...tags.get(id)!, ...shape.properties } };
    if (requestIds.has(id)) {
      const parts = id.split(".");
      const body = `${parts.slice(0, -1).join(".")}.${bodyTypeName(id)}`;
      decls.push(shapeDecl(body, withoutCredentials(shape), p, id, ["As `createClient` takes it: without the credentials, which the client adds."]));
      decls.push({
        ns: parts.slice(0, -1),
        text: (indent) => `${jsdoc([`${shape.title ?? id} as sent on the wire, credentials included.`, `Schema: \`schemas/${id}.json\`.`, shape.source ? `@see The service's specification, section ${shape.source}` : undefined], indent)}${indent}export type ${parts.at(-1)} = v4.Credentials & ${body};\n`,
      });
    } else decls.push(shapeDecl(id, shape, p));
  }
  for (const set of Object.values(model.roleSets)) decls.push(roleSetDecl(set, model));
  for (const kind of model.entityKinds) decls.push(...entityDecls(kind, p));
  for (const request of model.entityRequests) decls.push(...entityRequestDecls(request, model, p));

  return `// ${BANNER}
// TypeScript types of every request, response, payload and entity kind, printed from spec/ (the service's specification, sections 2-7).
// A type's name is its schema id: \`v4.VerifyRequest\` is described by schemas/v4.VerifyRequest.json.
// \`*Body\` types are what the client takes (no credentials); \`*Request\` types are what is sent.

${render(decls)}`;
}

export function emitTypes(model: Model): OutputFile[] {
  return [{ path: "types.ts", contents: typesText(model) }];
}
