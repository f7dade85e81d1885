// Emits generated/schemas/<id>.json: standalone draft 2020-12 schemas (no external $ref).
import type { Model } from "../model/types.js";
import { BANNER, jsonText, sortedObject, type OutputFile } from "./output.js";
import { jsonSchemaDefinitions, referencedIds, type Definition, type JsonSchema } from "./schema-builder.js";

export const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";
export const schemaUri = (id: string) => `https://verispec.dev/schemas/${id}.json`;

const DEFS = "#/$defs/";
const refTo = (id: string) => `${DEFS}${id}`;
const fromRef = (ref: string) => (ref.startsWith(DEFS) ? ref.slice(DEFS.length) : undefined);

/** The ids a definition needs, transitively, except itself. */
function closure(root: Definition, byId: ReadonlyMap<string, Definition>): string[] {
  const seen = new Set<string>();
  const queue = [...referencedIds(root.schema, fromRef)];
  while (queue.length) {
    const id = queue.pop()!;
    if (seen.has(id) || id === root.id) continue;
    seen.add(id);
    queue.push(...referencedIds(byId.get(id)!.schema, fromRef));
  }
  return [...seen];
}

/** A published definition as a standalone schema; references to itself point at the root. */
export function standaloneSchema(root: Definition, byId: ReadonlyMap<string, Definition>): JsonSchema {
  const selfRef = refTo(root.id);
  const retarget = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(retarget);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === "$ref" && x === selfRef ? "#" : retarget(x)]));
    return v;
  };
  const defs = closure(root, byId);
  const schema: JsonSchema = { $schema: SCHEMA_DIALECT, $id: schemaUri(root.id), $comment: BANNER, ...(retarget(root.schema) as JsonSchema) };
  if (!schema.title) schema.title = root.id;
  if (defs.length) schema.$defs = sortedObject(defs.map((id) => [id, retarget(byId.get(id)!.schema) as JsonSchema]));
  return schema;
}

/** generated/manifest.json: what a command needs without building the model (`verispec schemas`). */
export const MANIFEST = "manifest.json";

export function emitJsonSchemas(model: Model): OutputFile[] {
  const defs = jsonSchemaDefinitions(model);
  const byId = new Map(defs.map((d) => [d.id, d]));
  const schemas = defs.filter((d) => d.published).map((d) => ({ path: `schemas/${d.id}.json`, contents: jsonText(standaloneSchema(d, byId)) }));
  const manifest = { $comment: BANNER, schemaIds: defs.filter((d) => d.published).map((d) => d.id) };
  return [...schemas, { path: MANIFEST, contents: jsonText(manifest) }];
}

export function publishedSchemaIds(model: Model): string[] {
  return jsonSchemaDefinitions(model).filter((d) => d.published).map((d) => d.id);
}
