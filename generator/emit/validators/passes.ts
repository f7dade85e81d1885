// Validators, step 4: rewrites of Ajv's standalone output, each a named pass (a pure function from code
// to code) with its own test (test/generator/validator-passes.test.ts). They read Ajv's output text,
// which is why ajv is pinned to an exact version. compile.ts runs them in the order of OUTPUT_PASSES.

import { OVER_BUDGET } from "../../../templates/validators/types.js";
import { unescapePointerSegment } from "../../pointer.js";

/**
 * Module specifiers the generated code may `require`, and the runtime module that replaces each. Ajv's
 * deep `equal` is not among them: the schemas call it only in long string enums, which enumSets turns
 * into Set lookups, so no generated validator needs it; a schema that did (an object `const`, an enum of
 * objects, `uniqueItems` over objects) stops the generator here, in requiresToImports.
 */
/** The one module of runtime code every generated validator imports, beside it in generated/validators/. */
export const RUNTIME_MODULE = "./runtime.js";

export const RUNTIME_MODULES: Readonly<Record<string, string>> = {
  "verispec:formats": RUNTIME_MODULE,
  "verispec:abn": RUNTIME_MODULE,
};

/** Ajv writes `schemaPath` with JSON Pointer escapes; the error table keys on the plain names. */
export function unescapeSchemaPaths(code: string): string {
  return code.replace(/schemaPath:"([^"]*)"/g, (_w: string, p: string) => `schemaPath:"${p.split("/").map(unescapePointerSegment).join("/")}"`);
}

/** Module-level `new RegExp(...)` marked pure, so that a bundler drops the ones no import reaches. */
export function pureRegExps(code: string): string {
  return code.replace(/new RegExp\(/g, "/*#__PURE__*/ new RegExp(");
}

/**
 * A long enum (the ISO 3166 codes): Ajv loops over it calling its deep `equal`; all its values are
 * strings (prepare.ts checks), so one Set lookup gives the same answer.
 */
export function enumSets(code: string): string {
  const sets = new Set<string>();
  let out = code.replace(
    /(valid\d+) = false;for\(const (v\d+) of (schema\d+)\.enum\)\{if\(func\d+\((data\d*), \2\)\)\{\1 = true;break;\}\}/g,
    (_w: string, valid: string, _v: string, schema: string, data: string) => {
      sets.add(schema);
      return `${valid} = ${schema}_set.has(${data});`;
    },
  );
  for (const schema of sets)
    out = out.replace(
      new RegExp(`(const ${schema} = [^\\n]*?;)(?=const |function |export )`),
      (decl: string) => `${decl}const ${schema}_set = /*#__PURE__*/ new Set(${schema}.enum);`,
    );
  return out;
}

/** The JSON literal that starts at `start` (an object or array), by bracket depth outside strings. */
function jsonLiteralAt(code: string, start: number): string {
  let depth = 0;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === '"') {
      for (i++; code[i] !== '"'; i++) if (code[i] === "\\") i++;
    } else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return code.slice(start, i + 1);
  }
  throw new Error("validators: an unterminated schema constant");
}

/**
 * Ajv checks a key against more than 8 declared properties (`additionalProperties: false`) with
 * `Object.prototype.hasOwnProperty.call(schemaN.properties, key)`: a keyed lookup that no inline cache can
 * keep, about 18 ns per key of the document. Up to 8 it writes `key === "a" || ...`, which V8 compares by
 * address (the keys of a for-in are internalized); this writes that form for every count. The names come
 * from the schema constant itself, so the two agree; same answer for every key (own names only).
 */
export function propertyChains(code: string): string {
  const hasOwn = /const (func\d+) = Object\.prototype\.hasOwnProperty;/.exec(code)?.[1];
  if (hasOwn === undefined) return code;
  const schemas = new Map<string, unknown>();
  const schemaOf = (name: string): unknown => {
    if (!schemas.has(name)) {
      const at = code.indexOf(`const ${name} = `);
      if (at < 0) throw new Error(`validators: no constant ${name}`);
      schemas.set(name, JSON.parse(jsonLiteralAt(code, at + `const ${name} = `.length)));
    }
    return schemas.get(name);
  };
  const call = new RegExp(String.raw`${hasOwn}\.call\((schema\d+)((?:\.[A-Za-z_$][\w$]*)+), (key\d+)\)`, "g");
  return code.replace(call, (_w, schema: string, path: string, key: string) => {
    let node = schemaOf(schema);
    for (const step of path.slice(1).split(".")) node = (node as Record<string, unknown> | undefined)?.[step];
    if (node === null || typeof node !== "object" || Array.isArray(node)) throw new Error(`validators: ${schema}${path} is not an object`);
    const names = Object.keys(node);
    return names.length ? `(${names.map((n) => `${key} === ${JSON.stringify(n)}`).join(" || ")})` : "false";
  });
}

/** Ajv's five-statement push, written as one (same effect; a third less code to parse at import). */
export function onePush(code: string): string {
  return code.replace(/if\(vErrors === null\)\{vErrors = \[(err\d+)\];\}else \{vErrors\.push\(\1\);\}/g, "(vErrors ??= []).push($1);");
}

/**
 * ESM only: each `require("m")` becomes an import of verispec's runtime module for m. A module-level
 * `const x = require("m")...;` that nothing reads is dropped first (Ajv declares its deep `equal` for a
 * long enum even after enumSets has replaced every call).
 */
export function requiresToImports(code: string): string {
  const read = code.replace(/const (\w+) = require\("[^"]+"\)(?:\.\w+)*;/g, (decl: string, name: string) =>
    new RegExp(`\\b${name}\\b`).test(code.replace(decl, "")) ? decl : "",
  );
  // One import per runtime module, however many specifiers it stands for.
  const modules: string[] = [];
  const body = read.replace(/require\("([^"]+)"\)/g, (_whole, m: string) => {
    const module = RUNTIME_MODULES[m];
    if (module === undefined) throw new Error(`validators: generated code requires ${m}, which has no runtime module`);
    if (!modules.includes(module)) modules.push(module);
    return `runtime${modules.indexOf(module)}`;
  });
  const imports = modules.map((module, i) => `import * as runtime${i} from "${module}";`);
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
 * The error objects are the same in content and key order, with one key more, `row` (the error's number, unique in the module,
 * null where the params come from the document); a params object that holds nothing from the document is
 * shared by the errors of its place (read only). Params naming module constants
 * (`schema12.enum`) are built by a function, also on first use; params naming the document (an unknown
 * key, the failing tag) stay inline.
 */
export function compactErrors(code: string): string {
  const keywords: string[] = [];
  const segments = code.split(/(?=function validate\d+\()/);
  let first = 0; // the module-wide number of each table's first error number
  const out = segments.map((segment) => {
    const fn = /^function (validate\d+)\(/.exec(segment)?.[1];
    const constParams: string[] = [];
    const rows: unknown[][] = [];
    const rowIndex = new Map<string, number>();
    const body = segment.replace(
      ERROR_STATEMENT,
      (_w, _err: string, path: string | undefined, at: string | undefined, schemaPath: string, keyword: string, params: string) => {
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
        // The budget is asked first: past it, neither the error object nor its instancePath text is made.
        return `(vErrors ??= []).push($spent(this) ? $OVER : ${at !== undefined ? "$errAt" : "$err"}${fixed === null ? "P" : ""}(${args.join(",")}));errors++;`;
      },
    );
    if (/const err\d+ = \{/.test(body)) throw new Error("validators: an error statement of Ajv's code was not compacted");
    if (!rows.length) return body;
    const json = JSON.stringify(rows).replace(/[\\']/g, "\\$&");
    const consts = constParams.length ? `, () => [${constParams.join(",")}]` : "";
    const table = `const ${fn}_errors = /*#__PURE__*/ $errorTable(${first}, '${json}'${consts});${body}`;
    first += rows.length;
    return table;
  });
  const runtime = [
    `const $keywords = ${JSON.stringify(keywords)};`,
    // A table's columns, by error number: schemaPath, keyword, params, the literal part of the instancePath.
    `function $errorTable(first, rows, consts){return {first, rows, consts, schemaPath: null, keyword: null, params: null, at: null};}`,
    // `row`: the error number, unique in the module (its table's first plus its index): the mapping keys its
    // cache on it (templates/validators/quick-map.ts), since every part of such an error but its base is fixed.
    `function $read(t){const rows = JSON.parse(t.rows);const consts = t.consts === undefined ? [] : t.consts();const n = rows.length;const schemaPath = new Array(n), keyword = new Array(n), params = new Array(n), at = new Array(n);for(let i = 0; i < n; i++){const r = rows[i];schemaPath[i] = r[0];keyword[i] = $keywords[r[1]];params[i] = typeof r[2] === "number" ? consts[r[2]] : r[2];at[i] = r[3];}t.keyword = keyword;t.params = params;t.at = at;t.schemaPath = schemaPath;return t;}`,
    // Past the caller's error budget (`this.$errorBudget`, the all-errors run of a bounded validation) one shared
    // placeholder stands for each further error: counted, never built, so a hostile document costs no memory.
    `const $OVER = Object.freeze({instancePath: "", schemaPath: "", keyword: ${JSON.stringify(OVER_BUDGET)}, params: Object.freeze({})});`,
    `function $spent(c){return c != null && c.$errorBudget !== undefined && c.$errorBudget-- <= 0;}`,
    `function $err(t, instancePath, i){if(t.schemaPath === null) $read(t);return {instancePath, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params: t.params[i], row: t.first + i};}`,
    `function $errP(t, instancePath, i, params){if(t.schemaPath === null) $read(t);return {instancePath, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params, row: null};}`,
    `function $errAt(t, base, i){if(t.schemaPath === null) $read(t);const at = t.at[i];return {instancePath: base + at, base, at, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params: t.params[i], row: t.first + i};}`,
    `function $errAtP(t, base, i, params){if(t.schemaPath === null) $read(t);const at = t.at[i];return {instancePath: base + at, base, at, schemaPath: t.schemaPath[i], keyword: t.keyword[i], params, row: null};}`,
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

export interface OutputPass {
  readonly name: string;
  readonly run: (code: string) => string;
}

/** In order: each pass relies on the text the ones before it leave. `compact: false` skips compactErrors. */
export const OUTPUT_PASSES: readonly OutputPass[] = [
  { name: "unescapeSchemaPaths", run: unescapeSchemaPaths },
  { name: "pureRegExps", run: pureRegExps },
  { name: "enumSets", run: enumSets },
  { name: "propertyChains", run: propertyChains },
  { name: "onePush", run: onePush },
  { name: "dropPlaceholderErrors", run: dropPlaceholderErrors },
  { name: "splitInstancePaths", run: splitInstancePaths },
  { name: "hoistLongStrings", run: hoistLongStrings },
  { name: "compactErrors", run: compactErrors },
  { name: "requiresToImports", run: requiresToImports },
  { name: "asciiOnly", run: asciiOnly },
];
