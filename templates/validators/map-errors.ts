// Ajv's errors -> the service's `{ message, code, path }` items (the service's specification, section 7). Pure functions, run only
// when a document is invalid.
import type { AjvError, ErrorTable, KeywordEntry, Message, MessageTemplates, ValidationIssue } from "./types.js";

type Path = (string | number)[];
const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

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

function template(messages: MessageTemplates, key: string): Message {
  return messages[key] ?? messages.custom ?? { code: "custom", message: "Invalid input" };
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

/** A path as a map key: numbers and names kept apart, segments split by a character JSON keys rarely hold. */
const pathKey = (path: readonly (string | number)[]) => path.map((p) => (typeof p === "number" ? `\u0001${p}` : p)).join("\u0000");

// ---- The hot path ---------------------------------------------------------------------------------------
//
// `mapErrors` gives exactly `groupIssues(filterNoise(errors).map(toIssue))`, without re-reading the schema
// location of an error on every document: what a location needs (whether it is noise, the unions it lies
// in, its fixed code and message) is worked out once, the first time an error names it, and kept; the
// locations are bounded by the schemas. Per error, what is left is the document path (one scan of the
// instancePath) and, for a `type` or `required` error, one map lookup.

/** A schema location's answer once computed: what the document path is followed by, code and message. */
export interface Answer {
  readonly code: string;
  readonly message: string;
  readonly suffix: readonly (string | number)[];
}

export interface Site {
  readonly keyword: string;
  /** Never reported: `if` wrappers, errors inside contains / not / if, the null branch of a nullable. */
  readonly noise: boolean;
  /** The oneOf/anyOf locations this one lies inside (errors inside a failed union are dropped). */
  readonly unionPrefixes: readonly string[];
  readonly isUnion: boolean;
  readonly hasOverride: boolean;
  /** Fixed keywords: one answer. */
  fixed: Answer | undefined;
  /** `required` by missing key, `type` by received type. */
  readonly byParam: Map<string, Answer>;
}

/** Up to this many issues, a scan is cheaper than a map; past it, maps keep the work linear. */
const LINEAR_MAX = 16;
const FIXED = new Set([
  "enum",
  "const",
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "discriminator",
  "contains",
  "oneOf",
  "anyOf",
  "not",
]);
const NULL_BRANCH = /\/(?:oneOf|anyOf)\/\d+\/type$/;
const sitesByTable = new WeakMap<ErrorTable, WeakMap<MessageTemplates, Map<string, Site>>>();

export function sitesOf(table: ErrorTable, messages: MessageTemplates): Map<string, Site> {
  let byMessages = sitesByTable.get(table);
  if (byMessages === undefined) sitesByTable.set(table, (byMessages = new WeakMap()));
  let sites = byMessages.get(messages);
  if (sites === undefined) byMessages.set(messages, (sites = new Map()));
  return sites;
}

export function newSite(e: AjvError, table: ErrorTable): Site {
  const found = applicators(e.schemaPath);
  let noise = e.keyword === "if" || (e.keyword === "type" && e.params.type === "null" && NULL_BRANCH.test(e.schemaPath));
  const unionPrefixes: string[] = [];
  for (const a of found) {
    if (a.keyword !== "oneOf" && a.keyword !== "anyOf") noise = true;
    else unionPrefixes.push(a.prefix);
  }
  return {
    keyword: e.keyword,
    noise,
    unionPrefixes,
    isUnion: isUnion(e),
    hasOverride: table[e.schemaPath]?.override !== undefined,
    fixed: undefined,
    byParam: new Map(),
  };
}

/** An instancePath read once: its segments (unescaped) and whether any could be an array index. */
interface Pointer {
  readonly segments: readonly string[];
  readonly indices: readonly number[];
  /** No segment reads as a number: the path is the segments, whatever the document holds. */
  readonly plain: boolean;
}

// Bounded: instancePaths depend on the document (indices, unknown keys), so the cache starts over when full.
const POINTERS_MAX = 4096;
const pointers = new Map<string, Pointer>();

const pointersByBase = new Map<string, Map<string, Pointer>>();

/** The pointer of an error, by its instancePath's two parts where the generated code gives them. */
/** The base looked up last, and its map: the errors of one call of a compiled function share their base. */
let lastBase: string | undefined;
let lastByAt: Map<string, Pointer> | undefined;

function pointerOfError(e: AjvError): Pointer {
  const { base, at } = e;
  if (base === undefined || at === undefined) return pointerOf(e.instancePath);
  let byAt = base === lastBase ? lastByAt : pointersByBase.get(base);
  if (byAt === undefined) {
    if (pointersByBase.size >= POINTERS_MAX) pointersByBase.clear();
    pointersByBase.set(base, (byAt = new Map()));
  }
  // A pointer depends on base + at alone, so a map dropped by the clear above is still right to read.
  lastBase = base;
  lastByAt = byAt;
  let pointer = byAt.get(at);
  if (pointer === undefined) byAt.set(at, (pointer = pointerOf(base + at)));
  return pointer;
}

function pointerOf(instancePath: string): Pointer {
  let pointer = pointers.get(instancePath);
  if (pointer !== undefined) return pointer;
  const segments: string[] = [];
  const indices: number[] = [];
  let plain = true;
  if (instancePath !== "") {
    for (const raw of instancePath.slice(1).split("/")) {
      const segment = raw.includes("~") ? raw.replace(/~1/g, "/").replace(/~0/g, "~") : raw;
      const index = Number(segment);
      if (!Number.isNaN(index)) plain = false;
      segments.push(segment);
      indices.push(index);
    }
  }
  if (pointers.size >= POINTERS_MAX) pointers.clear();
  pointers.set(instancePath, (pointer = { segments, indices, plain }));
  return pointer;
}

/**
 * The document path of an instancePath, as resolvePath gives it (indices as numbers where the value is
 * an array); with `needValue`, `walked` is set to the value found there.
 */
let walked: unknown;
export function documentPath(data: unknown, e: AjvError, needValue: boolean): (string | number)[] {
  const { segments, indices, plain } = pointerOfError(e);
  if (plain && !needValue) return copyOf(segments);
  const path: (string | number)[] = [];
  let value = data;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (Array.isArray(value)) {
      path.push(indices[i]!);
      value = value[indices[i]!];
    } else {
      path.push(segment);
      value = value !== null && typeof value === "object" && hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
    }
  }
  walked = value;
  return path;
}

/** A fresh copy of a short path: an array literal of known length is cheaper for V8 than `slice`. */
function copyOf(segments: readonly string[]): (string | number)[] {
  switch (segments.length) {
    case 1:
      return [segments[0]!];
    case 2:
      return [segments[0]!, segments[1]!];
    case 3:
      return [segments[0]!, segments[1]!, segments[2]!];
    default:
      return segments.slice();
  }
}

function answer(e: AjvError, data: unknown, path: Path, table: ErrorTable, messages: MessageTemplates): Answer {
  const issue = toIssue(e, data, table, messages);
  const suffix = issue.path.slice(path.length);
  return { code: issue.code, message: issue.message, suffix };
}

/** The last item when issues were cut at `maxErrors`: verispec's own, never sent by the service. */
export const TOO_MANY_ERRORS = "too_many_errors";

/** The last item of a cut list: how many issues were counted and not listed. */
export function tooManyErrors(more: number): ValidationIssue {
  return { message: `... and ${more} more error${more === 1 ? "" : "s"}`, code: TOO_MANY_ERRORS, path: [] };
}

/** How many issues a cut list's last item counts (0 when the list was not cut). */
export function countedBeyondCut(issues: readonly ValidationIssue[]): number {
  const last = issues.at(-1);
  return last?.code === TOO_MANY_ERRORS ? Number(/^\.\.\. and (\d+) more/.exec(last.message)?.[1] ?? 0) : 0;
}

/**
 * All of Ajv's errors for a document, as the service's issues; past `maxErrors` issues, the rest are
 * only counted (without building their paths and messages) and reported in
 * one last item `{ code: "too_many_errors", message: "... and N more errors", path: [] }`.
 */
export function mapErrors(errors: readonly AjvError[], data: unknown, table: ErrorTable, messages: MessageTemplates, maxErrors = Infinity): ValidationIssue[] {
  const sites = sitesOf(table, messages);
  const n = errors.length;
  const at: Site[] = new Array(n);
  let unions = 0;
  for (let k = 0; k < n; k++) {
    const e = errors[k]!;
    let site = sites.get(e.schemaPath);
    if (site === undefined || site.keyword !== e.keyword) sites.set(e.schemaPath, (site = newSite(e, table)));
    at[k] = site;
    if (site.isUnion) unions++;
  }
  // filterNoise: noise, and errors inside a failed union.
  const kept: number[] = [];
  let types = 0;
  for (let k = 0; k < n; k++) {
    const site = at[k]!;
    if (site.noise) continue;
    if (unions > 0 && site.unionPrefixes.length > 0 && insideFailedUnion(errors, at, errors[k]!, site)) continue;
    kept.push(k);
    if (site.keyword === "type") types++;
  }
  const out: ValidationIssue[] = [];
  let named: string[][] | undefined; // unknown keys collected per issue (unrecognized_keys)
  let index: Map<string, number> | undefined; // past LINEAR_MAX issues: by path and code
  let wrongType: Set<string> | undefined; // past LINEAR_MAX type errors: their instancePaths
  let more = 0; // past maxErrors: issues not listed
  let unknownAt: Set<string> | undefined; // past maxErrors: objects with unknown keys not listed
  if (types > LINEAR_MAX) wrongType = new Set(kept.filter((k) => at[k]!.keyword === "type").map((k) => errors[k]!.instancePath));
  for (const k of kept) {
    const e = errors[k]!;
    const site = at[k]!;
    // A value of the wrong type reports only that; a union's own error only when nothing more precise is at or below it.
    if (
      types > 0 &&
      site.keyword !== "type" &&
      site.keyword !== "required" &&
      (wrongType !== undefined ? wrongType.has(e.instancePath) : wrongTypeAt(errors, at, kept, e.instancePath))
    )
      continue;
    if (site.isUnion && !site.hasOverride && somethingBelow(errors, at, kept, k)) continue;
    if (out.length >= maxErrors) {
      // Counted, not built. Unknown keys of one object are one issue; every other error is its own.
      if (site.keyword !== "additionalProperties") more++;
      else (unknownAt ??= new Set()).add(`${e.instancePath} ${e.schemaPath}`);
      continue;
    }
    const path = documentPath(data, e, site.keyword === "type");
    let a: Answer | undefined;
    if (site.fixed !== undefined) a = site.fixed;
    else if (FIXED.has(site.keyword)) a = site.fixed = answer(e, data, path, table, messages);
    else {
      const param = site.keyword === "required" ? String(e.params.missingProperty) : site.keyword === "type" ? parsedType(walked) : undefined;
      if (param === undefined) a = answer(e, data, path, table, messages);
      else if ((a = site.byParam.get(param)) === undefined) site.byParam.set(param, (a = answer(e, data, path, table, messages)));
    }
    for (let s = 0; s < a.suffix.length; s++) path.push(a.suffix[s]!);
    if (index === undefined && out.length >= LINEAR_MAX) index = new Map(out.map((o, i) => [`${pathKey(o.path)} ${o.code}`, i]));
    const seen = sameIssue(out, a.code, path, index);
    if (a.code === "unrecognized_keys") {
      const name = /: (.*)$/.exec(a.message)?.[1] ?? "";
      if (seen >= 0 && named?.[seen] !== undefined) {
        named[seen]!.push(name);
        const m = template(messages, "additionalProperties:plural");
        out[seen] = { code: m.code, message: fill(m.message, { keys: named[seen]!.join(", ") }), path: out[seen]!.path }; // groupIssues' key order
        continue;
      }
      (named ??= [])[out.length] = [name];
    } else if (seen >= 0) continue;
    index?.set(`${pathKey(path)} ${a.code}`, out.length);
    out.push({ message: a.message, code: a.code, path });
  }
  more += unknownAt?.size ?? 0;
  if (more > 0) out.push(tooManyErrors(more));
  return out;
}

/** The index in `out` of an issue with this code and path (groupIssues' key: one issue per path and code), or -1. */
export function sameIssue(out: readonly ValidationIssue[], code: string, path: readonly (string | number)[], index: Map<string, number> | undefined): number {
  if (index !== undefined) return index.get(`${pathKey(path)} ${code}`) ?? -1;
  next: for (let i = 0; i < out.length; i++) {
    const other = out[i]!;
    if (other.code !== code || other.path.length !== path.length) continue;
    for (let s = 0; s < path.length; s++) if (other.path[s] !== path[s]) continue next;
    return i;
  }
  return -1;
}

function insideFailedUnion(errors: readonly AjvError[], at: readonly Site[], e: AjvError, site: Site): boolean {
  for (const prefix of site.unionPrefixes) {
    for (let u = 0; u < errors.length; u++) {
      if (at[u]!.isUnion && errors[u]!.schemaPath === prefix && within(e.instancePath, errors[u]!.instancePath)) return true;
    }
  }
  return false;
}

function wrongTypeAt(errors: readonly AjvError[], at: readonly Site[], kept: readonly number[], instancePath: string): boolean {
  for (const k of kept) if (at[k]!.keyword === "type" && errors[k]!.instancePath === instancePath) return true;
  return false;
}

function somethingBelow(errors: readonly AjvError[], at: readonly Site[], kept: readonly number[], self: number): boolean {
  const outer = errors[self]!.instancePath;
  for (const k of kept) if (k !== self && !at[k]!.isUnion && within(errors[k]!.instancePath, outer)) return true;
  return false;
}
