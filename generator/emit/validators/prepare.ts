// Validators, step 1: schema preparation. The JSON Schema definitions (the same as generated/schemas/)
// are copied and reshaped for compiling: discriminated branches hoisted, if/then/else selection without
// oneOf, repeated subschemas shared, the ABN checksum keyword added. Annotations stay (the error table
// reads them); compile.ts strips them.
import type { Model } from "../../model/types.js";
import { escapePointerSegment, unescapePointerSegment } from "../../pointer.js";
import { sortedObject } from "../output.js";
import { jsonSchemaDefinitions, PRESENCE_NOT_SHOWN_KEYWORD, type JsonSchema } from "../schema-builder.js";

export type Defs = Record<string, JsonSchema>;

export const ABN_CHECKSUM_KEYWORD = "x-verispec-abn-checksum";
/** Annotations only: dropped from the compiled copy (they make no check, only bytes). */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "examples",
  "$comment",
  "deprecated",
  "writeOnly",
  "readOnly",
  "x-spec-section",
  "x-not-shown",
  "x-verispec-errors",
  PRESENCE_NOT_SHOWN_KEYWORD,
]);
const NAME_MAPS = new Set(["properties", "$defs"]);

export const refTo = (key: string) => `#/$defs/${escapePointerSegment(key)}`;
export const isObject = (v: unknown): v is JsonSchema => v !== null && typeof v === "object" && !Array.isArray(v);

/** Calls `visit` on every subschema with its JSON pointer (names under properties/$defs are not keywords). */
export function eachSubschema(schema: unknown, pointer: string, visit: (s: JsonSchema, pointer: string) => void): void {
  if (Array.isArray(schema)) return schema.forEach((x, i) => eachSubschema(x, `${pointer}/${i}`, visit));
  if (!isObject(schema)) return;
  visit(schema, pointer);
  for (const [k, v] of Object.entries(schema)) {
    if (k === "x-verispec-errors" || k === PRESENCE_NOT_SHOWN_KEYWORD || k === "examples" || k === "enum" || k === "const") continue;
    if (NAME_MAPS.has(k) && isObject(v))
      for (const [name, sub] of Object.entries(v)) eachSubschema(sub, `${pointer}/${k}/${escapePointerSegment(name)}`, visit);
    else eachSubschema(v, `${pointer}/${k}`, visit);
  }
}

/**
 * A discriminated union's inline branches become definitions of their own, keyed by their original
 * pointer: Ajv repeats a branch's code once per tag value, and a call is one line.
 */
function hoistDiscriminatedBranches(defs: Defs): void {
  for (const key of Object.keys(defs)) {
    eachSubschema(defs[key], "", (s, pointer) => {
      if (!isObject(s.discriminator) || !Array.isArray(s.oneOf)) return;
      s.oneOf = s.oneOf.map((branch: JsonSchema, i: number) => {
        if (typeof branch.$ref === "string") return branch;
        const branchKey = `${key}${pointer}/oneOf/${i}`;
        defs[branchKey] = branch;
        return { $ref: refTo(branchKey) };
      });
    });
  }
}

/**
 * `oneOf: [A, B]` chosen by `if/then/else` (v5.Stakeholder) is the same as `if R then B and not A
 * else A and not B`; written so, Ajv reports only the chosen shape's errors, never both branches.
 */
function selectByWithoutOneOf(defs: Defs): void {
  for (const key of Object.keys(defs)) {
    eachSubschema(defs[key], "", (s) => {
      if (s.discriminator || !Array.isArray(s.oneOf) || !s.if || !isObject(s.then) || !isObject(s.else)) return;
      const branches = (s.oneOf as JsonSchema[]).map((b) => b.$ref);
      if (branches.length !== 2 || !branches.includes(s.then.$ref) || !branches.includes(s.else.$ref)) return;
      const [then, other] = [s.then, s.else];
      s.then = { allOf: [then, { not: other }] };
      // Where the `if` failing already makes `then` fail, `else` needs no `not`: the shape is decided once.
      s.else = ifFailureFails(s.if, then, defs) ? other : { allOf: [other, { not: then }] };
      delete s.oneOf;
    });
  }
}

/** `true`, or a schema of annotations only (`{}` once stripped): accepts every value. */
const acceptsAll = (s: unknown) => s === true || (isObject(s) && Object.keys(s).every((k) => ANNOTATIONS.has(k)));

/**
 * True when every value failing `condition` also fails `branch`: the condition only asks for an object
 * with some keys (`properties` accepting anything), and the branch is an object schema requiring all of
 * them. (v5.Stakeholder: without `role`, the role-and-entity shape cannot match.)
 */
export function ifFailureFails(condition: unknown, branch: JsonSchema, defs: Defs): boolean {
  const target = typeof branch.$ref === "string" ? defs[unescapePointerSegment(branch.$ref.slice("#/$defs/".length))] : branch;
  if (!isObject(condition) || !isObject(target) || condition.type !== "object" || target.type !== "object") return false;
  const asks = Object.keys(condition).every((k) => k === "type" || k === "required" || k === "properties");
  const keys = Array.isArray(condition.required) ? (condition.required as string[]) : [];
  const trivial = Object.values((condition.properties as JsonSchema | undefined) ?? {}).every(acceptsAll);
  const required = Array.isArray(target.required) ? (target.required as string[]) : [];
  return asks && trivial && keys.length > 0 && keys.every((k) => required.includes(k));
}

/**
 * A subschema written more than once (an entity kind's `fields` and `stakeholders` recur in its
 * /verify variant and its kind schema) becomes one definition, keyed by its first pointer: one
 * function in the code. Same text, same table entries, so the key of the first place serves all.
 */
function shareRepeatedSubschemas(defs: Defs, minLength = 1500): void {
  for (;;) {
    const seen = new Map<string, { key: string; count: number }>();
    for (const key of Object.keys(defs).sort()) {
      eachSubschema(defs[key], "", (s, pointer) => {
        if (pointer === "" || pointer.endsWith("/then") || typeof s.$ref === "string") return;
        const text = JSON.stringify(s);
        if (text.length < minLength) return;
        const entry = seen.get(text);
        if (entry) entry.count++;
        else seen.set(text, { key: `${key}${pointer}`, count: 1 });
      });
    }
    const repeated = [...seen].filter(([, e]) => e.count > 1).sort(([a], [b]) => b.length - a.length || (a < b ? -1 : 1));
    if (!repeated.length) return;
    const [text, { key: sharedKey }] = repeated[0]!;
    defs[sharedKey] = JSON.parse(text) as JsonSchema;
    const replace = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(replace);
      if (!isObject(v)) return v;
      if (JSON.stringify(v) === text) return { $ref: refTo(sharedKey) };
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === "enum" || k === "const" || k === "examples" ? x : replace(x)]));
    };
    for (const key of Object.keys(defs)) if (key !== sharedKey) defs[key] = replace(defs[key]) as JsonSchema;
    defs[sharedKey] = Object.fromEntries(
      Object.entries(defs[sharedKey]!).map(([k, x]) => [k, k === "enum" || k === "const" || k === "examples" ? x : replace(x)]),
    ) as JsonSchema;
  }
}

export function stripAnnotations(schema: unknown, inNames = false): unknown {
  if (Array.isArray(schema)) return schema.map((x) => stripAnnotations(x));
  if (!isObject(schema)) return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!inNames && ANNOTATIONS.has(k)) continue;
    out[k] = inNames ? stripAnnotations(v) : k === "enum" || k === "const" ? v : stripAnnotations(v, NAME_MAPS.has(k));
  }
  return out;
}

export interface CompiledDocument {
  /** With annotations: what the error table is read from. */
  readonly annotated: Defs;
  readonly published: readonly string[];
}

export function compiledDocument(model: Model): CompiledDocument {
  const definitions = jsonSchemaDefinitions(model);
  const defs: Defs = structuredClone(Object.fromEntries(definitions.map((d) => [d.id, d.schema])));
  hoistDiscriminatedBranches(defs);
  selectByWithoutOneOf(defs);
  shareRepeatedSubschemas(defs);
  const abn = defs["rules.abn"]!; // defined (check VS422)
  abn[ABN_CHECKSUM_KEYWORD] = true; // active only with { abnChecksum: true }
  for (const [key, def] of Object.entries(defs)) {
    eachSubschema(def, "", (s) => {
      // Long enums become Set lookups in the code (compileValidators): only strings compare alike there.
      if (Array.isArray(s.enum) && s.enum.length >= 200 && !s.enum.every((v: unknown) => typeof v === "string"))
        throw new Error(`validators: ${key}: a long enum of non-strings`);
    });
  }
  return { annotated: sortedObject(Object.entries(defs)), published: definitions.filter((d) => d.published).map((d) => d.id) };
}

/** Throws when an `if` condition, or a `not` that is not a bare `$ref`, refers to a definition (see dropPlaceholderErrors). */
export function conditionsCallNothing(defs: Defs): void {
  for (const [key, def] of Object.entries(defs)) {
    eachSubschema(def, "", (s, pointer) => {
      const regions = [
        ["if", s.if],
        ["not", isObject(s.not) && Object.keys(s.not).join() === "$ref" ? undefined : s.not],
      ] as const;
      for (const [keyword, region] of regions) {
        if (region !== undefined && JSON.stringify(region).includes('"$ref"'))
          throw new Error(`validators: ${key}${pointer}/${keyword} refers to a definition; dropPlaceholderErrors needs it inline`);
      }
    });
  }
}
