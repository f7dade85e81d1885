// Emits generated/validators/: Ajv standalone code compiled here, at generate time, from the same
// definitions as generated/schemas/ (seed: 7 for the error shape), plus the JS of the hand-written
// runtime (templates/validators/) so that plain `node` imports the validators.
//
// Layout: `ajv.js` holds every compiled function once (shared definitions are shared code; every
// top-level declaration is side-effect free, so a bundler keeps only what an import reaches);
// `<id>.js` wraps one schema id; `index.js` has them all, `validate(id, data)` and `schemaIds`.
import { Ajv, _ } from "ajv";
import type { KeywordCxt } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
import { abnChecksum } from "../../templates/validators/abn.js";
import { fullFormats } from "../../templates/validators/formats.js";
import type { ErrorTable, KeywordEntry, MessageTemplates } from "../../templates/validators/types.js";
import type { Model } from "../model/types.js";
import type { EmitContext } from "../context.js";
import { jsonSchemaDefinitions } from "./json-schemas.js";
import { templateJavaScript } from "./template-js.js";
import { BANNER, sortedObject, type OutputFile } from "./output.js";
import { requestKeyShapes } from "./request-shapes.js";
import type { JsonSchema } from "./schema-builder.js";

// A CommonJS default export, as ESM sees it.
type StandaloneCode = (ajv: Ajv, refsOrFunc: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ?? standaloneModule) as unknown as StandaloneCode;

const DOC_ID = "https://verispec.dev/schemas/_validators.json";
export const ABN_CHECKSUM_KEYWORD = "x-verispec-abn-checksum";
/** Module specifiers the generated code may `require`, and the runtime module that replaces each. */
const RUNTIME_MODULES: Readonly<Record<string, string>> = {
  "ajv/dist/runtime/equal": "../runtime/validators/equal.js",
  "verispec:formats": "../runtime/validators/formats.js",
  "verispec:abn": "../runtime/validators/abn.js",
};
/** Annotations only: dropped from the compiled copy (they make no check, only bytes). */
const ANNOTATIONS = new Set(["title", "description", "examples", "$comment", "deprecated", "writeOnly", "readOnly", "x-seed", "x-not-shown", "x-verispec-errors"]);
const NAME_MAPS = new Set(["properties", "$defs"]);

type Defs = Record<string, JsonSchema>;

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const refTo = (key: string) => `#/$defs/${escapePointer(key)}`;
const keyOfRef = (ref: string) => ref.slice("#/$defs/".length).replace(/~1/g, "/").replace(/~0/g, "~");
const isObject = (v: unknown): v is JsonSchema => v !== null && typeof v === "object" && !Array.isArray(v);

/** Identifier of a schema id: "v4.entities.Trust" -> "V4EntitiesTrust". */
export function pascalId(id: string): string {
  return id.split(/[^A-Za-z0-9]+/).filter(Boolean).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join("");
}
export const validatorName = (id: string) => `validate${pascalId(id)}`;
const rawName = (id: string) => `raw${pascalId(id)}`;

/** Calls `visit` on every subschema with its JSON pointer (names under properties/$defs are not keywords). */
function eachSubschema(schema: unknown, pointer: string, visit: (s: JsonSchema, pointer: string) => void): void {
  if (Array.isArray(schema)) return schema.forEach((x, i) => eachSubschema(x, `${pointer}/${i}`, visit));
  if (!isObject(schema)) return;
  visit(schema, pointer);
  for (const [k, v] of Object.entries(schema)) {
    if (k === "x-verispec-errors" || k === "examples" || k === "enum" || k === "const") continue;
    if (NAME_MAPS.has(k) && isObject(v)) for (const [name, sub] of Object.entries(v)) eachSubschema(sub, `${pointer}/${k}/${escapePointer(name)}`, visit);
    else eachSubschema(v, `${pointer}/${k}`, visit);
  }
}

// ---- The compiled copy of the definitions -----------------------------------------------------------

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
      s.else = { allOf: [other, { not: then }] };
      delete s.oneOf;
    });
  }
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
    defs[sharedKey] = Object.fromEntries(Object.entries(defs[sharedKey]!).map(([k, x]) => [k, k === "enum" || k === "const" || k === "examples" ? x : replace(x)])) as JsonSchema;
  }
}

function stripAnnotations(schema: unknown, inNames = false): unknown {
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
  const abn = defs["rules.abn"];
  if (!abn) throw new Error("validators: spec/rules.yaml has no abn rule");
  abn[ABN_CHECKSUM_KEYWORD] = true; // active only with { abnChecksum: true }
  for (const [key, def] of Object.entries(defs)) {
    eachSubschema(def, "", (s) => {
      // Long enums become Set lookups in the code (compileValidators): only strings compare alike there.
      if (Array.isArray(s.enum) && s.enum.length >= 200 && !s.enum.every((v: unknown) => typeof v === "string")) throw new Error(`validators: ${key}: a long enum of non-strings`);
    });
  }
  return { annotated: sortedObject(Object.entries(defs)), published: definitions.filter((d) => d.published).map((d) => d.id) };
}

// ---- The error table --------------------------------------------------------------------------------

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
          // A requirement (`then`) on a key inside an object reports that key (seed: 7).
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
        const m = model.messages.verispec.abnChecksum;
        if (!m) throw new Error("validators: spec/errors.yaml has no verispec.abnChecksum message");
        add(`${pointer}/${ABN_CHECKSUM_KEYWORD}`, { override: { code: m.code, message: m.message } });
      }
    });
  }
  return sortedObject(Object.entries(table));
}

export function messageTemplates(model: Model): MessageTemplates {
  return sortedObject(Object.entries(model.messages.defaults).map(([k, m]) => [k, { code: m.code, message: m.message }]));
}

// ---- Compiling ------------------------------------------------------------------------------------------

/** The Ajv options of the generated code, shared with the tests that compile the same schemas at run time. */
export function ajvOptions(allErrors: boolean) {
  return {
    allErrors,
    discriminator: true,
    passContext: true, // `this` carries { abnChecksum } into the generated code
    messages: false, // the runtime writes the service's messages
    unicode: false, // lengths in UTF-16 code units, as the service (Zod 4) counts them
    inlineRefs: true,
    strict: true,
    allowUnionTypes: true,
    logger: false as const,
    code: { source: true, esm: true, lines: false, optimize: 2, formats: _`require("verispec:formats").fullFormats` },
  };
}

function newAjv(allErrors: boolean, process?: (code: string, env: unknown) => string) {
  const opts = ajvOptions(allErrors);
  const ajv = new Ajv({ ...opts, code: { ...opts.code, ...(process ? { process } : {}) } });
  ajv.addFormat("uri", fullFormats.uri);
  ajv.addFormat("uuid", fullFormats.uuid);
  ajv.addKeyword({
    keyword: ABN_CHECKSUM_KEYWORD,
    type: "string",
    schemaType: "boolean",
    code(cxt: KeywordCxt) {
      const fn = cxt.gen.scopeValue("func", { ref: abnChecksum, code: _`require("verispec:abn").abnChecksum` });
      cxt.fail(_`this !== undefined && this.abnChecksum === true && !${fn}(${cxt.data})`);
    },
  });
  return ajv;
}

interface SchemaEnvLike {
  readonly schema: unknown;
  readonly validate?: { source?: { validateCode: string } };
}

/**
 * Ajv restarts `schemaPath` at "#" in each function it compiles for a `$ref`; written back as the
 * full pointer, every error names one place of the document, which is what the error table keys on.
 */
function absoluteSchemaPaths(envs: readonly SchemaEnvLike[], keyOf: ReadonlyMap<unknown, string>): void {
  for (const env of envs) {
    const key = keyOf.get(env.schema);
    const source = env.validate?.source;
    if (key === undefined || !source) continue;
    source.validateCode = source.validateCode.replace(/schemaPath:"#\/(?!\$defs\/)/g, () => `schemaPath:"#/$defs/${key}/`);
  }
}

/** ESM only: each `require("m")` becomes an import of verispec's runtime module for m. */
export function requiresToImports(code: string): string {
  const modules: string[] = [];
  const body = code.replace(/require\("([^"]+)"\)/g, (_whole, m: string) => {
    if (!(m in RUNTIME_MODULES)) throw new Error(`validators: generated code requires ${m}, which has no runtime module`);
    if (!modules.includes(m)) modules.push(m);
    return `runtime${modules.indexOf(m)}`;
  });
  const imports = modules.map((m, i) => `import * as runtime${i} from "${RUNTIME_MODULES[m]}";`);
  return [...imports, body].join("\n");
}

/** Long string literals (the Unicode letter class) written once, not in every error object. */
export function hoistLongStrings(code: string, minLength = 120): string {
  const literal = /"(?:[^"\\]|\\.)*"/g;
  const names = new Map<string, string>();
  const body = code.replace(literal, (s) => {
    if (s.length < minLength) return s;
    if (!names.has(s)) names.set(s, `str${names.size}`);
    return names.get(s)!;
  });
  return [...[...names].map(([s, n]) => `const ${n} = ${s};`), body].join("\n");
}

/**
 * Inside an `if` condition or a `not` (Ajv's `createErrors: false`), a failure pushes an empty `{}` that
 * is always discarded when the condition's verdict is read (`errors` is compared with its value at the
 * start, then reset and `vErrors` truncated). Counting is enough: `errors++` alone gives the same
 * verdicts without allocating an object and an array on every failed condition, a cost valid documents
 * pay for each `if` they do not match. Sound only while no such region calls another function
 * (`errors = vErrors.length` would lose the count): conditionsCallNothing checks that.
 */
export function dropPlaceholderErrors(code: string): string {
  return code.replace(/const (err\d+) = \{\};\(vErrors \?\?= \[\]\)\.push\(\1\);errors\+\+;/g, "errors++;");
}

/**
 * An error at a fixed place below the function's own instancePath also carries the two parts of its
 * instancePath (`base`, the function's, and `at`, the literal below it). Ajv joins them into a new
 * string for every error; reading such a string costs V8 a flattening (some hundreds of ns), where the
 * two parts are mostly short or shared, so the error mapping looks the place up by them instead.
 */
export function splitInstancePaths(code: string): string {
  return code.replace(/(const err\d+ = \{instancePath:instancePath\+("(?:[^"\\]|\\.)*"),)(?=schemaPath:)/g, "$1base:instancePath,at:$2,");
}

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** Ajv's error statement (after the one-statement push and splitInstancePaths). */
const ERROR_STATEMENT = new RegExp(
  String.raw`const (err\d+) = \{instancePath(?::(.*?))?,(?:base:instancePath,at:(${STRING}),)?schemaPath:(${STRING}),keyword:(${STRING}),params:(\{(?:${STRING}|[^{}"])*\})\};\(vErrors \?\?= \[\]\)\.push\(\1\);errors\+\+;`,
  "g",
);
/** A params value fixed for the module: a JSON literal or a module-level constant (`schema12.enum`, `str0`). */
const JSON_LITERAL = new RegExp(String.raw`^(?:${STRING}|-?\d+(?:\.\d+)?|true|false|null)$`);
const MODULE_CONSTANT = /^(?:schema|str)\d+(?:\.[A-Za-z_$][\w$]*|\[\d+\])*$/;

/** Splits Ajv's params literal `{a: x, b: "y"}` into [name, value source] pairs. */
function paramEntries(literal: string): [string, string][] {
  const body = literal.slice(1, -1);
  const out: [string, string][] = [];
  const entry = new RegExp(String.raw`\s*([A-Za-z_$][\w$]*): (${STRING}|[^,"]+)\s*(?:,|$)`, "y");
  let m: RegExpExecArray | null;
  while (entry.lastIndex < body.length && (m = entry.exec(body))) out.push([m[1]!, m[2]!.trim()]);
  if (entry.lastIndex !== body.length && body.trim() !== "") throw new Error(`validators: cannot read error params ${literal}`);
  return out;
}

/**
 * Every error statement of Ajv's code writes out the error's fixed part (schemaPath, keyword, params, the
 * literal part of the instancePath): some 370 kB that V8 scans at every import, for code that runs only on
 * invalid documents. Each becomes a call with a number into a table of those fixed parts, one table per
 * compiled function (so that a bundler still keeps only what an import reaches), kept as a JSON string (a
 * string literal costs next to nothing to scan) and parsed the first time that function reports an error.
 * The error objects are the same in content and key order; a params object that holds nothing from the
 * document is shared by the errors of its place (read only). Params naming module constants
 * (`schema12.enum`) are built by a function, also on first use; params naming the document (an unknown
 * key, the failing tag) stay inline.
 */
export function compactErrors(code: string): string {
  const keywords: string[] = [];
  const segments = code.split(/(?=function validate\d+\()/);
  const out = segments.map((segment) => {
    const fn = /^function (validate\d+)\(/.exec(segment)?.[1];
    const constParams: string[] = [];
    const rows: unknown[][] = [];
    const rowIndex = new Map<string, number>();
    const body = segment.replace(ERROR_STATEMENT, (_w, _err: string, path: string | undefined, at: string | undefined, schemaPath: string, keyword: string, params: string) => {
      if (fn === undefined) throw new Error("validators: an error statement outside a compiled function");
      const entries = paramEntries(params);
      let fixed: unknown = null; // null: built at the call
      if (entries.every(([, v]) => JSON_LITERAL.test(v))) fixed = Object.fromEntries(entries.map(([k, v]) => [k, JSON.parse(v)]));
      else if (entries.every(([, v]) => JSON_LITERAL.test(v) || MODULE_CONSTANT.test(v))) {
        if (!constParams.includes(params)) constParams.push(params);
        fixed = constParams.indexOf(params);
      }
      const kw = JSON.parse(keyword) as string;
      if (!keywords.includes(kw)) keywords.push(kw);
      const row: unknown[] = [JSON.parse(schemaPath), keywords.indexOf(kw), fixed];
      if (at !== undefined) row.push(JSON.parse(at));
      const key = JSON.stringify(row);
      let i = rowIndex.get(key);
      if (i === undefined) rowIndex.set(key, (i = rows.push(row) - 1));
      const args = [`${fn}_errors`, at !== undefined ? "instancePath" : (path ?? "instancePath"), String(i), ...(fixed === null ? [params] : [])];
      return `(vErrors ??= []).push(${at !== undefined ? "$errAt" : "$err"}${fixed === null ? "P" : ""}(${args.join(",")}));errors++;`;
    });
    if (/const err\d+ = \{/.test(body)) throw new Error("validators: an error statement of Ajv's code was not compacted");
    if (!rows.length) return body;
    const json = JSON.stringify(rows).replace(/[\\']/g, "\\$&");
    const consts = constParams.length ? `, () => [${constParams.join(",")}]` : "";
    return `const ${fn}_errors = /*#__PURE__*/ $errorTable('${json}'${consts});${body}`;
  });
  const runtime = [
    `const $keywords = ${JSON.stringify(keywords)};`,
    // A table's columns, by error number: schemaPath, keyword, params, the literal part of the instancePath.
    `function $errorTable(rows, consts){return {rows, consts, schemaPath: null, keyword: null, params: null, at: null};}`,
    `function $read(t){const rows = JSON.parse(t.rows);const consts = t.consts === undefined ? [] : t.consts();const n = rows.length;const schemaPath = new Array(n), keyword = new Array(n), params = new Array(n), at = new Array(n);for(let i = 0; i < n; i++){const r = rows[i];schemaPath[i] = r[0];keyword[i] = $keywords[r[1]];params[i] = typeof r[2] === "number" ? consts[r[2]] : r[2];at[i] = r[3];}t.keyword = keyword;t.params = params;t.at = at;t.schemaPath = schemaPath;return t;}`,
    `function $err(t, instancePath, i){if(t.schemaPath === null) $read(t);return {instancePath, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params: t.params[i]};}`,
    `function $errP(t, instancePath, i, params){if(t.schemaPath === null) $read(t);return {instancePath, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params};}`,
    `function $errAt(t, base, i){if(t.schemaPath === null) $read(t);const at = t.at[i];return {instancePath: base + at, base, at, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params: t.params[i]};}`,
    `function $errAtP(t, base, i, params){if(t.schemaPath === null) $read(t);const at = t.at[i];return {instancePath: base + at, base, at, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params};}`,
  ];
  return keywords.length ? [...runtime, out.join("")].join("\n") : code;
}

/**
 * Non-ASCII characters (the astral letters of the name pattern) as `\u` escapes: with one such character,
 * V8 holds the whole 0.5 MB source as two-byte text. Ajv writes them only inside string literals, where
 * an escape is the same string.
 */
export function asciiOnly(code: string): string {
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Throws when an `if` condition, or a `not` that is not a bare `$ref`, refers to a definition (see dropPlaceholderErrors). */
export function conditionsCallNothing(defs: Defs): void {
  for (const [key, def] of Object.entries(defs)) {
    eachSubschema(def, "", (s, pointer) => {
      const regions = [["if", s.if], ["not", isObject(s.not) && Object.keys(s.not).join() === "$ref" ? undefined : s.not]] as const;
      for (const [keyword, region] of regions) {
        if (region !== undefined && JSON.stringify(region).includes('"$ref"')) throw new Error(`validators: ${key}${pointer}/${keyword} refers to a definition; dropPlaceholderErrors needs it inline`);
      }
    });
  }
}

/**
 * Compiles every published id into one module; returns its code (exports `raw<Id>`). `compact: false`
 * leaves Ajv's error statements written out (the tests compare the two).
 */
export function compileValidators(doc: CompiledDocument, { compact = true }: { compact?: boolean } = {}): string {
  const stripped = stripAnnotations(doc.annotated, true) as Defs;
  conditionsCallNothing(stripped);
  const keyOf = new Map<unknown, string>(Object.entries(stripped).map(([k, v]) => [v, k]));
  const envs: SchemaEnvLike[] = [];
  const ajv = newAjv(true, (code, env) => (envs.push(env as SchemaEnvLike), code));
  ajv.addSchema({ $id: DOC_ID, $defs: stripped });
  const exports: Record<string, string> = {};
  for (const id of doc.published) {
    const ref = `${DOC_ID}${refTo(id)}`;
    if (!ajv.getSchema(ref)) throw new Error(`validators: cannot compile ${id}`);
    exports[rawName(id)] = ref;
  }
  absoluteSchemaPaths(envs, keyOf);
  let code = standaloneCode(ajv, exports).replace(/^"use strict";/, "");
  code = code.replace(/schemaPath:"([^"]*)"/g, (_w: string, p: string) => `schemaPath:"${p.replace(/~1/g, "/").replace(/~0/g, "~")}"`);
  code = code.replace(/new RegExp\(/g, "/*#__PURE__*/ new RegExp(");
  // A long enum (the ISO 3166 codes): Ajv loops over it calling its deep `equal`; all its values are
  // strings (checked below), so one Set lookup gives the same answer.
  const sets = new Set<string>();
  code = code.replace(/(valid\d+) = false;for\(const (v\d+) of (schema\d+)\.enum\)\{if\(func\d+\((data\d*), \2\)\)\{\1 = true;break;\}\}/g, (_w: string, valid: string, _v: string, schema: string, data: string) => {
    sets.add(schema);
    return `${valid} = ${schema}_set.has(${data});`;
  });
  for (const schema of sets) code = code.replace(new RegExp(`(const ${schema} = [^\\n]*?;)(?=const |function |export )`), (decl: string) => `${decl}const ${schema}_set = /*#__PURE__*/ new Set(${schema}.enum);`);
  // Ajv's five-statement push, written as one (same effect; a third less code to parse at import).
  code = code.replace(/if\(vErrors === null\)\{vErrors = \[(err\d+)\];\}else \{vErrors\.push\(\1\);\}/g, "(vErrors ??= []).push($1);");
  code = dropPlaceholderErrors(code);
  code = splitInstancePaths(code);
  code = hoistLongStrings(code);
  return asciiOnly(requiresToImports(compact ? compactErrors(code) : code));
}

// ---- The runtime as JavaScript --------------------------------------------------------------------

/** templates/validators/*.ts as ESM JavaScript (the same bytes every run; see template-js.ts). */
export function runtimeJavaScript(root: string): OutputFile[] {
  return templateJavaScript(root, "validators").map(({ file, js }) => ({
    path: `runtime/validators/${file.replace(/\.ts$/, ".js")}`,
    contents: `// ${BANNER} (JavaScript of templates/validators/${file})\n${js.trimEnd()}\n`,
  }));
}

// ---- The modules ----------------------------------------------------------------------------------------

const header = `// ${BANNER}`;

type KeyRoots = ReadonlyMap<string, unknown>;

/** The validator of one id: Ajv's function, the error table, and where its request objects' keys are. */
const validatorCall = (id: string, roots: KeyRoots) =>
  `createValidator(${rawName(id)}, TABLE, MESSAGES${roots.has(id) ? `, undefined, { root: ${JSON.stringify(roots.get(id))}, shapes: KEYS }` : ""})`;
const errorsImport = (ids: readonly string[], roots: KeyRoots) => `import { ${ids.some((id) => roots.has(id)) ? "KEYS, " : ""}MESSAGES, TABLE } from "./errors.js";`;

function idModule(id: string, roots: KeyRoots): OutputFile[] {
  const name = validatorName(id);
  const js = [
    header,
    `import { createValidator } from "../runtime/validators/validator.js";`,
    `import { ${rawName(id)} } from "./ajv.js";`,
    errorsImport([id], roots),
    "",
    `/** Validates a document against ${id} (generated/schemas/${id}.json); errors in the service's shape. */`,
    `export const ${name} = /*#__PURE__*/ ${validatorCall(id, roots)};`,
    `export default ${name};`,
  ];
  const dts = [
    header,
    `import type { Validator } from "../runtime/validators/types.js";`,
    "",
    `/** Validates a document against ${id} (generated/schemas/${id}.json); errors in the service's shape. */`,
    `export declare const ${name}: Validator;`,
    `export default ${name};`,
  ];
  return [
    { path: `validators/${id}.js`, contents: `${js.join("\n")}\n` },
    { path: `validators/${id}.d.ts`, contents: `${dts.join("\n")}\n` },
  ];
}

function indexModule(ids: readonly string[], roots: KeyRoots): OutputFile[] {
  const js = [
    header,
    // One import of the shared code, not one module per id: fewer files to load at start-up.
    `import { createValidator } from "../runtime/validators/validator.js";`,
    `import { ${ids.map(rawName).join(", ")} } from "./ajv.js";`,
    errorsImport(ids, roots),
    "",
    ...ids.map((id) => `export const ${validatorName(id)} = ${validatorCall(id, roots)};`),
    "",
    "/** Every schema id (as `verispec schemas` lists them). */",
    `export const schemaIds = Object.freeze(${JSON.stringify(ids)});`,
    "",
    "const BY_ID = new Map([",
    ...ids.map((id) => `  [${JSON.stringify(id)}, ${validatorName(id)}],`),
    "]);",
    "",
    "/** True when `id` is one of schemaIds. */",
    "export function isSchemaId(id) {",
    "  return BY_ID.has(id);",
    "}",
    "",
    "/** Validates `data` against the schema `id`; throws a RangeError for an unknown id. */",
    "export function validate(id, data, options) {",
    "  const validator = BY_ID.get(id);",
    "  if (validator === undefined) throw new RangeError(`unknown schema id ${JSON.stringify(id)}; see schemaIds`);",
    "  return validator(data, options);",
    "}",
    "",
    "/** True when `data` is valid for the schema `id`; a type guard in TypeScript (SchemaTypes). */",
    "export function isValid(id, data, options) {",
    "  return validate(id, data, options).valid;",
    "}",
  ];
  const dts = [
    header,
    `import type { ValidateOptions, ValidationResult, Validator } from "../runtime/validators/types.js";`,
    `export type { ValidateOptions, ValidationIssue, ValidationResult, Validator } from "../runtime/validators/types.js";`,
    // A type's name is its schema id (generated/types.ts), so the table is the ids themselves.
    `import type { v4, v5 } from "../types.js";`,
    "",
    `export type SchemaId =\n${ids.map((id) => `  | ${JSON.stringify(id)}`).join("\n")};`,
    "",
    "/** The TypeScript type of each schema id (generated/types.ts). */",
    `export interface SchemaTypes {\n${ids.map((id) => `  ${JSON.stringify(id)}: ${id};`).join("\n")}\n}`,
    "",
    ...ids.map((id) => `export declare const ${validatorName(id)}: Validator;`),
    "",
    "/** Every schema id (as `verispec schemas` lists them). */",
    "export declare const schemaIds: readonly SchemaId[];",
    "/** True when `id` is one of schemaIds. */",
    "export declare function isSchemaId(id: string): id is SchemaId;",
    "/** Validates `data` against the schema `id`; throws a RangeError for an unknown id. */",
    "export declare function validate(id: SchemaId, data: unknown, options?: ValidateOptions): ValidationResult;",
    "/**",
    " * True when `data` is valid for the schema `id`, and then `data` is typed as that schema's type.",
    " * Use `validate` for the service-shaped errors.",
    " */",
    "export declare function isValid<I extends SchemaId>(id: I, data: unknown, options?: ValidateOptions): data is SchemaTypes[I];",
  ];
  return [
    { path: "validators/index.js", contents: `${js.join("\n")}\n` },
    { path: "validators/index.d.ts", contents: `${dts.join("\n")}\n` },
  ];
}

function errorsModule(table: ErrorTable, messages: MessageTemplates, keys: unknown): OutputFile[] {
  const js = [
    header,
    "// From spec/errors.yaml (validationMessages.defaults) and the schemas' x-verispec-errors (seed: 7).",
    `export const MESSAGES = Object.freeze(${JSON.stringify(messages, null, 2)});`,
    "",
    "/** By Ajv schemaPath: the exact messages, expected types of required keys, discriminator values. */",
    `export const TABLE = Object.freeze(${JSON.stringify(table, null, 2)});`,
    "",
    "/** For `unknownKeys: \"report\"`: the keys each open request object declares, and links to its children. */",
    `export const KEYS = Object.freeze(${JSON.stringify(keys, null, 2)});`,
  ];
  const dts = [
    header,
    `import type { ErrorTable, KeyShapes, MessageTemplates } from "../runtime/validators/types.js";`,
    "export declare const MESSAGES: MessageTemplates;",
    "export declare const TABLE: ErrorTable;",
    "export declare const KEYS: KeyShapes;",
  ];
  return [
    { path: "validators/errors.js", contents: `${js.join("\n")}\n` },
    { path: "validators/errors.d.ts", contents: `${dts.join("\n")}\n` },
  ];
}

function ajvModule(code: string, ids: readonly string[]): OutputFile[] {
  const dts = [header, `import type { RawValidate } from "../runtime/validators/types.js";`, ...ids.map((id) => `export declare const ${rawName(id)}: RawValidate;`)];
  return [
    { path: "validators/ajv.js", contents: `${header} (Ajv standalone code, compiled at generate time)\n${code.trimEnd()}\n` },
    { path: "validators/ajv.d.ts", contents: `${dts.join("\n")}\n` },
  ];
}

export function emitValidators(model: Model, ctx: EmitContext): OutputFile[] {
  const doc = compiledDocument(model);
  const ids = doc.published;
  const keys = requestKeyShapes(model);
  const roots: KeyRoots = new Map([...keys.roots].filter(([id]) => ids.includes(id)));
  return [
    ...ajvModule(compileValidators(doc), ids),
    ...errorsModule(errorTable(doc, model), messageTemplates(model), sortedObject(Object.entries(keys.shapes))),
    ...ids.flatMap((id) => idModule(id, roots)),
    ...indexModule(ids, roots),
    ...runtimeJavaScript(ctx.root),
  ];
}
