// Emits generated/schemas/<id>.json: standalone draft 2020-12 schemas (no external $ref).
import type { Model } from "../model/types.js";
import { BANNER, jsonText, sortedObject, type OutputFile } from "./output.js";
import { EXACT_PATTERN_KEYWORD, jsonSchemaDefinitions, referencedIds, VENDOR_KEYWORDS, type Definition, type JsonSchema } from "./schema-builder.js";

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

/**
 * A published definition as a standalone schema; references to itself point at the root.
 *
 * `discriminator` is left out: it is an OpenAPI keyword, not JSON Schema. Every union it would mark
 * is already exclusive through a `const` (or an `enum`) on the tag property, so a JSON Schema tool
 * loses nothing, while a discriminator without OpenAPI's `mapping` misleads some (datamodel-code-
 * generator read the branch's name as the tag value) and Ajv's strict mode rejects the keyword
 * unless it is switched on. openapi.json keeps its discriminators, each with a mapping over `$ref`s.
 * The compiled validators keep them too (jsonSchemaDefinitions): Ajv picks the branch by them.
 */
export function standaloneSchema(root: Definition, byId: ReadonlyMap<string, Definition>): JsonSchema {
  const selfRef = refTo(root.id);
  const retarget = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(retarget);
    if (v && typeof v === "object") {
      const entries = Object.entries(v).filter(([k]) => k !== "discriminator");
      return Object.fromEntries(entries.map(([k, x]) => [k, k === "$ref" && x === selfRef ? "#" : retarget(x)]));
    }
    return v;
  };
  const defs = closure(root, byId);
  const schema: JsonSchema = { $schema: SCHEMA_DIALECT, $id: schemaUri(root.id), $comment: BANNER, ...(retarget(root.schema) as JsonSchema) };
  if (!schema.title) schema.title = root.id;
  if (defs.length) schema.$defs = sortedObject(defs.map((id) => [id, retarget(byId.get(id)!.schema) as JsonSchema]));
  return schema;
}

/** Where the vendor-keyword declaration goes (package export `verispec/ajv-vocabulary`). */
export const VOCABULARY_FILE = "ajv-vocabulary.cjs";

/**
 * The vendor keywords declared for Ajv, whose strict mode (ajv-cli's default) refuses a keyword it does
 * not know. CommonJS with a function as the export: what `ajv -c <module>` requires; ESM imports it as
 * the default export. All but one are annotations; `x-verispec-pattern` (openapi.json's exact form of a
 * pattern that needs the `u` flag) is checked, with the `u` flag.
 */
function vocabularyFiles(): OutputFile[] {
  const annotations = VENDOR_KEYWORDS.filter((k) => k !== EXACT_PATTERN_KEYWORD);
  const js = `// ${BANNER}
// The vendor keywords of verispec's schemas, declared for Ajv's strict mode. Annotations, except
// ${EXACT_PATTERN_KEYWORD}: in openapi.json, the exact pattern of a rule whose \`pattern\` there is a portable form;
// checked here with the u flag. ajv-cli: \`ajv validate --spec=draft2020 -c ajv-formats -c ./node_modules/verispec/generated/${VOCABULARY_FILE} ...\`;
// Ajv: \`addVerispecVocabulary(new Ajv2020())\` or \`ajv.addVocabulary(addVerispecVocabulary.definitions)\`.
"use strict";
const keywords = Object.freeze(${JSON.stringify(VENDOR_KEYWORDS)});
const exactPattern = Object.freeze({
  keyword: ${JSON.stringify(EXACT_PATTERN_KEYWORD)},
  type: "string",
  schemaType: "string",
  compile(pattern) {
    const re = new RegExp(pattern, "u");
    return (data) => re.test(data);
  },
});
const definitions = Object.freeze([${annotations.map((k) => JSON.stringify(k)).join(", ")}, exactPattern]);
function addVerispecVocabulary(ajv) {
  ajv.addVocabulary([...definitions]);
  return ajv;
}
addVerispecVocabulary.keywords = keywords;
addVerispecVocabulary.definitions = definitions;
module.exports = addVerispecVocabulary;
`;
  const dts = `// ${BANNER}
/** Declares verispec's vendor keywords (${VENDOR_KEYWORDS.join(", ")}) on an Ajv instance; returns it. */
declare function addVerispecVocabulary<A extends { addVocabulary(definitions: readonly unknown[]): unknown }>(ajv: A): A;
declare namespace addVerispecVocabulary {
  /** The vendor keywords of verispec's schemas. */
  const keywords: readonly (${VENDOR_KEYWORDS.map((k) => JSON.stringify(k)).join(" | ")})[];
  /** Ajv keyword definitions: the annotations by name, ${JSON.stringify(EXACT_PATTERN_KEYWORD)} as a checked keyword. */
  const definitions: readonly (string | { readonly keyword: string })[];
}
export = addVerispecVocabulary;
`;
  return [
    { path: VOCABULARY_FILE, contents: js },
    { path: VOCABULARY_FILE.replace(/\.cjs$/, ".d.cts"), contents: dts },
  ];
}

/** generated/manifest.json: what a command needs without building the model (`verispec schemas`). */
export const MANIFEST = "manifest.json";

export function emitJsonSchemas(model: Model): OutputFile[] {
  const defs = jsonSchemaDefinitions(model);
  const byId = new Map(defs.map((d) => [d.id, d]));
  const schemas = defs.filter((d) => d.published).map((d) => ({ path: `schemas/${d.id}.json`, contents: jsonText(standaloneSchema(d, byId)) }));
  const manifest = {
    $comment: BANNER,
    specVersion: model.versions.specVersion ?? null,
    specHash: model.specHash,
    schemaIds: defs.filter((d) => d.published).map((d) => d.id),
  };
  return [...schemas, { path: MANIFEST, contents: jsonText(manifest) }, ...vocabularyFiles()];
}

export function publishedSchemaIds(model: Model): string[] {
  return jsonSchemaDefinitions(model)
    .filter((d) => d.published)
    .map((d) => d.id);
}
