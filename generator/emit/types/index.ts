// Emits generated/types.d.ts: TypeScript types for every request, response, payload and entity kind.
//
// Printed from the model rather than through json-schema-to-typescript: the schemas express the
// narrowing the service's specification needs with if/then (USA-only `state`, role -> stakeholder types), which that tool
// drops, and their `$defs` ids (`rules.x`, `values.x`) would become type names. Printing from the model
// gives discriminated unions that narrow, and names equal to the schema ids (`v4.VerifyRequest` is
// generated/schemas/v4.VerifyRequest.json). Output is deterministic: model order, no formatter.
import type { Field, Model, ValueSet } from "../../model/types.js";
import { bodyTypeName, valueSetTypeName } from "../names.js";
import { BANNER, type OutputFile } from "../output.js";
import { jsdoc, lit, union } from "../print.js";
import { requestShapeIds } from "../request-shapes.js";
import {
  credentialsDecl,
  entityDecls,
  entityRequestDecls,
  roleSetDecl,
  shapeDecl,
  stakeholderGenericDecl,
  withoutCredentials,
  type Decl,
} from "./declarations.js";
import { Printer } from "./printer.js";
import { render } from "./render.js";
import { closed, payloadTags } from "./shapes.js";

export function typesText(model: Model): string {
  const p = new Printer();
  const decls: Decl[] = [];
  const valueSets: ValueSet[] = [model.countries.usStates, ...model.valueSets.filter((s) => s.name !== model.countries.usStates.name)];
  const names = new Set<string>();
  for (const set of valueSets) {
    const name = valueSetTypeName(set);
    if (names.has(name) || name === "v4" || name === "v5") throw new Error(`value set ${set.name}: type name ${name} is taken`);
    names.add(name);
    const doc = set.name === "iso3" ? "ISO 3166-1 alpha-3 country code." : set.description;
    decls.push({
      ns: [],
      text: (indent) =>
        `${jsdoc([doc ?? `\`${set.name}\` values.`, set.source ? `@see The service's specification, section ${set.source}` : undefined], indent)}${indent}export type ${name} = ${union(set.values.map(lit))};\n`,
    });
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
        text: (indent) =>
          `${jsdoc([`${shape.title ?? id} as sent on the wire, credentials included.`, `Schema: \`schemas/${id}.json\`.`, shape.source ? `@see The service's specification, section ${shape.source}` : undefined], indent)}${indent}export type ${parts.at(-1)} = v4.Credentials & ${body};\n`,
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

/** types.d.ts, and a types.js with no values so that an import of "./types.js" resolves at run time too. */
export function emitTypes(model: Model): OutputFile[] {
  return [
    { path: "types.d.ts", contents: typesText(model) },
    { path: "types.js", contents: `// ${BANNER}\n// Types only: their declarations are types.d.ts.\nexport {};\n` },
  ];
}
