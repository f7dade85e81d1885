// Validators, step 2: the error table. By Ajv schemaPath, what an error needs beyond Ajv's own error
// object to become the service's 422 detail (the service's specification, section 7): the exact message of the spec (x-verispec-errors),
// the expected type of each required key, discriminator values; and Zod 4's default messages.
import type { ErrorTable, KeywordEntry, MessageTemplates } from "../../../templates/validators/types.js";
import type { Model } from "../../model/types.js";
import { unescapePointerSegment } from "../../pointer.js";
import { sortedObject } from "../output.js";
import type { JsonSchema } from "../schema-builder.js";
import { ABN_CHECKSUM_KEYWORD, eachSubschema, isObject, type CompiledDocument, type Defs } from "./prepare.js";

const keyOfRef = (ref: string) => unescapePointerSegment(ref.slice("#/$defs/".length));

/** Zod's name for the type a schema expects ("Invalid input: expected <type>, ..."). */
export function expectedTypeOf(schema: unknown, defs: Defs, depth = 0): string {
  if (!isObject(schema) || depth > 20) return "unknown";
  if (typeof schema.$ref === "string") return expectedTypeOf(defs[keyOfRef(schema.$ref)], defs, depth + 1);
  const types = Array.isArray(schema.type) ? schema.type : schema.type !== undefined ? [schema.type] : [];
  const type = types.find((t) => t !== "null");
  if (type) return type === "integer" ? "number" : String(type);
  const literal = schema.const ?? (Array.isArray(schema.enum) ? schema.enum.find((v: unknown) => v !== null) : undefined);
  if (literal !== undefined) return typeof literal;
  for (const k of ["oneOf", "anyOf", "allOf"]) if (Array.isArray(schema[k])) return expectedTypeOf(schema[k][0], defs, depth + 1);
  if (schema.properties) return "object";
  if (schema.items) return "array";
  return "unknown";
}

function tagValues(schema: JsonSchema, tag: string, defs: Defs): string[] {
  const resolve = (s: JsonSchema): JsonSchema => (typeof s.$ref === "string" ? resolve(defs[keyOfRef(s.$ref)]!) : s);
  return (schema.oneOf as JsonSchema[]).flatMap((b) => {
    const p = (resolve(b).properties as JsonSchema | undefined)?.[tag] as JsonSchema | undefined;
    return p?.const !== undefined ? [String(p.const)] : Array.isArray(p?.enum) ? p.enum.map(String) : [];
  });
}

/** Entries for the keyword locations whose answer needs more than Ajv's error object. */
export function errorTable(doc: CompiledDocument, model: Model): ErrorTable {
  const table: Record<string, KeywordEntry> = {};
  const add = (at: string, entry: KeywordEntry) => (table[at] = { ...table[at], ...entry });
  for (const [key, def] of Object.entries(doc.annotated)) {
    eachSubschema(def, `#/$defs/${key}`, (s, pointer) => {
      for (const [keyword, m] of Object.entries((s["x-verispec-errors"] as Record<string, { code: string; message: string }>) ?? {})) {
        add(`${pointer}/${keyword}`, { override: { code: m.code, message: m.message } });
      }
      if (Array.isArray(s.required) && s.required.length) {
        const props = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
        const expected: Record<string, string> = {};
        const nested: Record<string, string[]> = {};
        for (const name of s.required as string[]) {
          const inner = props[name];
          // A requirement (`then`) on a key inside an object reports that key (the service's specification, section 7).
          const innerKey = pointer.endsWith("/then") && isObject(inner) && Array.isArray(inner.required) ? (inner.required[0] as string) : undefined;
          if (innerKey !== undefined) {
            nested[name] = [innerKey];
            expected[name] = expectedTypeOf((inner!.properties as JsonSchema)[innerKey], doc.annotated);
          } else expected[name] = expectedTypeOf(inner, doc.annotated);
        }
        add(`${pointer}/required`, Object.keys(nested).length ? { expected, nested } : { expected });
      }
      if (isObject(s.discriminator) && Array.isArray(s.oneOf)) {
        add(`${pointer}/discriminator`, { options: tagValues(s, String(s.discriminator.propertyName), doc.annotated) });
      }
      if (s[ABN_CHECKSUM_KEYWORD] === true) {
        const m = model.messages.verispec.abnChecksum!; // defined (check VS422)
        add(`${pointer}/${ABN_CHECKSUM_KEYWORD}`, { override: { code: m.code, message: m.message } });
      }
    });
  }
  return sortedObject(Object.entries(table));
}

export function messageTemplates(model: Model): MessageTemplates {
  return sortedObject(Object.entries(model.messages.defaults).map(([k, m]) => [k, { code: m.code, message: m.message }]));
}
