// One Ajv error as one service issue `{ message, code, path }` (the service's specification, section 7),
// before grouping and de-duplication: the reference that the hot path of map-errors.ts caches per location.
import { fill, parsedType, stringifyPrimitive, template } from "./messages.js";
import type { AjvError, ErrorTable, KeywordEntry, MessageTemplates, ValidationIssue } from "./types.js";

type Path = (string | number)[];
const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

/**
 * Resolves an Ajv instancePath against the document: property names stay strings, array indices
 * become numbers, and the value found there (own properties only) is returned with it.
 */
export function resolvePath(data: unknown, instancePath: string): { path: Path; value: unknown } {
  const path: Path = [];
  let value: unknown = data;
  if (instancePath === "") return { path, value };
  for (const raw of instancePath.slice(1).split("/")) {
    const segment = raw.includes("~") ? raw.replace(/~1/g, "/").replace(/~0/g, "~") : raw;
    if (Array.isArray(value)) {
      const index = Number(segment);
      path.push(index);
      value = value[index];
    } else {
      path.push(segment);
      value = value !== null && typeof value === "object" && hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
    }
  }
  return { path, value };
}

const applicatorCache = new Map<string, readonly { keyword: string; prefix: string }[]>();

/** The applicator keywords a schemaPath passes through ("contains", "oneOf", ...), with their prefix. */
export function applicators(schemaPath: string): readonly { keyword: string; prefix: string }[] {
  let out = applicatorCache.get(schemaPath);
  if (!out) applicatorCache.set(schemaPath, (out = findApplicators(schemaPath))); // bounded by the schemas
  return out;
}

function findApplicators(schemaPath: string): { keyword: string; prefix: string }[] {
  const segments = schemaPath.split("/");
  const out: { keyword: string; prefix: string }[] = [];
  // Segments after "properties" or "$defs" are names, not keywords.
  for (let i = 1; i < segments.length - 1; i++) {
    const s = segments[i]!;
    const prev = segments[i - 1];
    if (prev === "properties" || prev === "$defs") continue;
    if (s === "contains" || s === "oneOf" || s === "anyOf" || s === "not" || s === "if") out.push({ keyword: s, prefix: segments.slice(0, i + 1).join("/") });
  }
  return out;
}

/** The Zod-style expected type of a JSON Schema `type` (a nullable's non-null type); Zod 4 calls an integer `int`. */
const expectedType = (type: unknown) => {
  const t =
    String(type)
      .split(",")
      .find((t) => t !== "null") ?? "unknown";
  return t === "integer" ? "int" : t;
};

/** One Ajv error as one service issue (before grouping and de-duplication). */
export function toIssue(e: AjvError, data: unknown, table: ErrorTable, messages: MessageTemplates): ValidationIssue {
  const entry: KeywordEntry | undefined = table[e.schemaPath];
  const { path, value } = resolvePath(data, e.instancePath);
  const p = e.params;
  if (e.keyword === "required") {
    const missing = String(p.missingProperty);
    const nested = entry?.nested?.[missing] ?? [];
    const expected = entry?.expected?.[missing] ?? "unknown";
    const m = entry?.override ?? template(messages, "required");
    return { code: m.code, message: fill(m.message, { expected, received: "undefined" }), path: [...path, missing, ...nested] };
  }
  if (entry?.override) return { code: entry.override.code, message: entry.override.message, path };
  switch (e.keyword) {
    case "type": {
      const m = template(messages, "type");
      return { code: m.code, message: fill(m.message, { expected: expectedType(p.type), received: parsedType(value) }), path };
    }
    case "enum": {
      const values = p.allowedValues as readonly unknown[];
      if (values.length === 1) return constIssue(values[0], path, messages);
      const m = template(messages, "enum");
      return { code: m.code, message: fill(m.message, { options: values.map(stringifyPrimitive).join("|") }), path };
    }
    case "const":
      return constIssue(p.allowedValue, path, messages);
    case "pattern": {
      const m = template(messages, "pattern");
      return { code: m.code, message: fill(m.message, { pattern: `/${String(p.pattern)}/u` }), path };
    }
    case "format": {
      const m = messages[`format:${String(p.format)}`] ?? template(messages, "format");
      return { code: m.code, message: fill(m.message, { format: String(p.format) }), path };
    }
    case "minLength":
    case "minItems":
    case "minimum": {
      const m = template(messages, e.keyword);
      return { code: m.code, message: fill(m.message, { minimum: String(p.limit) }), path };
    }
    case "maxLength":
    case "maxItems":
    case "maximum": {
      const m = template(messages, e.keyword);
      return { code: m.code, message: fill(m.message, { maximum: String(p.limit) }), path };
    }
    case "additionalProperties": {
      const m = template(messages, "additionalProperties");
      return { code: m.code, message: fill(m.message, { keys: stringifyPrimitive(p.additionalProperty) }), path };
    }
    case "discriminator": {
      // Zod 4's discriminated union: the issue sits at the discriminator (the service's specification, section 7 codes).
      const m = template(messages, "discriminator");
      const options = (entry?.options ?? []).map((o) => `'${o}'`).join(" | ");
      return { code: m.code, message: fill(m.message, { options }), path: [...path, String(p.tag)] };
    }
    default: {
      const m = template(messages, e.keyword);
      return { code: m.code, message: m.message, path };
    }
  }
}

function constIssue(value: unknown, path: Path, messages: MessageTemplates): ValidationIssue {
  const m = template(messages, "const");
  return { code: m.code, message: fill(m.message, { value: stringifyPrimitive(value) }), path };
}
