// Ajv's errors -> the service's `{ message, code, path }` items (seed: 7). Pure functions, run only
// when a document is invalid.
import type { AjvError, ErrorTable, KeywordEntry, Message, MessageTemplates, ValidationIssue } from "./types.js";

type Path = (string | number)[];
const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Zod 4's name for the type of a value ("received ..."). */
export function parsedType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

/** Zod 4's rendering of a literal in a message: strings quoted, everything else as text. */
export function stringifyPrimitive(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : `${value}`;
}

/** Fills `{name}` placeholders; unknown placeholders stay as written. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (hasOwn(values, name) ? values[name]! : whole));
}

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

const isUnion = (e: AjvError) => e.keyword === "oneOf" || e.keyword === "anyOf";
const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer === "" ? "/" : `${outer}/`);

/**
 * Drops what is not the service's answer: errors inside `contains`/`not`/`if` subschemas, branch
 * errors of a failed non-discriminated union, the `null` branch of a nullable, `if` wrappers, and a
 * union's own error when something more precise was reported at or below it.
 */
export function filterNoise(errors: readonly AjvError[], table: ErrorTable): AjvError[] {
  const unions = errors.filter(isUnion);
  const kept = errors.filter((e) => {
    if (e.keyword === "if") return false;
    if (e.keyword === "type" && e.params.type === "null" && /\/(?:oneOf|anyOf)\/\d+\/type$/.test(e.schemaPath)) return false;
    for (const a of applicators(e.schemaPath)) {
      if (a.keyword !== "oneOf" && a.keyword !== "anyOf") return false; // inside contains / not / if
      if (unions.some((u) => u.schemaPath === a.prefix && within(e.instancePath, u.instancePath))) return false;
    }
    return true;
  });
  // Zod checks nothing more of a value of the wrong type: a type error is the only one at its path.
  const wrongType = new Set(kept.filter((e) => e.keyword === "type").map((e) => e.instancePath));
  return kept.filter((e) => {
    if (e.keyword !== "type" && e.keyword !== "required" && wrongType.has(e.instancePath)) return false;
    if (!isUnion(e) || table[e.schemaPath]?.override) return true;
    return !kept.some((o) => o !== e && !isUnion(o) && within(o.instancePath, e.instancePath));
  });
}

function template(messages: MessageTemplates, key: string): Message {
  return messages[key] ?? messages.custom ?? { code: "custom", message: "Invalid input" };
}

/** The Zod-style expected type of a JSON Schema `type` (a nullable's non-null type). */
const expectedType = (type: unknown) => String(type).split(",").find((t) => t !== "null") ?? "unknown";

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
      // Zod 4's discriminated union: the issue sits at the discriminator (seed: 7 codes).
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

/** A path as a map key: numbers and names kept apart, segments split by a character JSON keys rarely hold. */
const pathKey = (path: readonly (string | number)[]) => path.map((p) => (typeof p === "number" ? `\u0001${p}` : p)).join("\u0000");

/**
 * Zod reports all unknown keys of one object in one issue; and one issue per path and code (two
 * rules restricting one value, e.g. a stakeholder `type`, report once).
 */
export function groupIssues(issues: readonly ValidationIssue[], messages: MessageTemplates): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Map<string, number>();
  const unknownKeys = new Map<string, string[]>();
  for (const issue of issues) {
    const key = `${pathKey(issue.path)} ${issue.code}`;
    if (issue.code === "unrecognized_keys") {
      const keys = unknownKeys.get(key);
      const name = /: (.*)$/.exec(issue.message)?.[1] ?? "";
      if (keys) {
        keys.push(name);
        const m = template(messages, "additionalProperties:plural");
        out[seen.get(key)!] = { code: m.code, message: fill(m.message, { keys: keys.join(", ") }), path: issue.path };
        continue;
      }
      unknownKeys.set(key, [name]);
    } else if (seen.has(key)) continue;
    seen.set(key, out.length);
    out.push({ message: issue.message, code: issue.code, path: issue.path }); // the service's key order
  }
  return out;
}

/**
 * The code and message of keywords whose text depends on the schema only (enum options, patterns,
 * limits), computed once per schema location: the 50 state codes are not re-joined on every error.
 */
const FIXED = new Set(["enum", "const", "pattern", "format", "minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum", "discriminator", "contains", "oneOf", "anyOf", "not"]);
const cache = new WeakMap<MessageTemplates, Map<string, Message & { readonly suffix: readonly (string | number)[] }>>();

/** The cache key: the schema location, plus the missing key or the received type (both bounded by the schema). */
function cacheKey(e: AjvError, value: unknown): string | undefined {
  if (FIXED.has(e.keyword)) return e.schemaPath;
  if (e.keyword === "required") return `${e.schemaPath}\u0000${String(e.params.missingProperty)}`;
  if (e.keyword === "type") return `${e.schemaPath}\u0000${parsedType(value)}`;
  return undefined;
}

function cachedIssue(e: AjvError, data: unknown, table: ErrorTable, messages: MessageTemplates): ValidationIssue {
  const at = resolvePath(data, e.instancePath);
  const key = cacheKey(e, at.value);
  if (key === undefined) return toIssue(e, data, table, messages);
  let known = cache.get(messages);
  if (!known) cache.set(messages, (known = new Map()));
  const hit = known.get(key);
  if (!hit) {
    const issue = toIssue(e, data, table, messages);
    known.set(key, { code: issue.code, message: issue.message, suffix: issue.path.slice(at.path.length) });
    return issue;
  }
  return { code: hit.code, message: hit.message, path: hit.suffix.length ? [...at.path, ...hit.suffix] : at.path };
}

/** All of Ajv's errors for a document, as the service's issues. */
export function mapErrors(errors: readonly AjvError[], data: unknown, table: ErrorTable, messages: MessageTemplates): ValidationIssue[] {
  return groupIssues(filterNoise(errors, table).map((e) => cachedIssue(e, data, table, messages)), messages);
}
