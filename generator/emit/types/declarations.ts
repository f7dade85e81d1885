// The declarations of generated/types.d.ts: shapes (request bodies without their credentials), role sets,
// entity kinds and their branches, the older interface's requests, credentials and stakeholders.
import { entitySchemaId, type EntityKind, type EntityRequest, type Field, type Model, type RoleSet } from "../../model/types.js";
import { CREDENTIAL_FIELDS } from "../../load/spec-access.js";
import { bodyTypeName } from "../names.js";
import { jsdoc, lit, propertyKey as key, union } from "../print.js";
import { fieldDoc, typeRef, type Printer } from "./printer.js";

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const ident = (s: string) => s.replace(/[^A-Za-z0-9_$]/g, "");

export interface Decl {
  /** Namespace path, e.g. ["v4", "entities"]. */
  readonly ns: readonly string[];
  readonly text: (indent: string) => string;
}

export function shapeDecl(id: string, shape: Field, p: Printer, schemaId = id, extraDoc: string[] = []): Decl {
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
export function withoutCredentials(shape: Field): Field {
  const properties = Object.fromEntries(Object.entries(shape.properties ?? {}).filter(([k]) => !(CREDENTIAL_FIELDS as readonly string[]).includes(k)));
  return { ...shape, properties, examples: undefined };
}

export function roleSetDecl(set: RoleSet, model: Model): Decl {
  return {
    ns: ["v4", "entities"],
    text: (indent) => {
      const doc = jsdoc(
        [
          `Stakeholders of the \`${set.name}\` role set: \`{ type, role, fields }\`, where each role allows only its stakeholder types.`,
          set.description,
          set.roles
            .map(
              (r) =>
                `- \`${r.name}\`${r.required ? " (required: at least one)" : ""}: ${r.types.join(", ")}${r.description ? `. ${r.description}` : ""}${r.unknown ? `. Not shown in the service's specification: ${r.unknown}` : ""}`,
            )
            .join("\n"),
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

export function entityDecls(kind: EntityKind, p: Printer): Decl[] {
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

export function entityRequestDecls(request: EntityRequest, model: Model, p: Printer): Decl[] {
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

export function credentialsDecl(model: Model, p: Printer): Decl {
  const request = model.entityRequests[0]!; // one at least (check VS422)
  const fields = Object.fromEntries(CREDENTIAL_FIELDS.map((k) => [k, request.fields[k]!]));
  return {
    ns: ["v4"],
    text: (indent) =>
      `${jsdoc(["Credentials and version of the older interface, in the JSON body. `createClient` adds them to every older call.", "@see The service's specification, sections 2.1 and 5"], indent)}` +
      `${indent}export interface Credentials {\n${p.members(fields, `${indent}  `)}${indent}}\n`,
  };
}

export function stakeholderGenericDecl(model: Model): Decl {
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
