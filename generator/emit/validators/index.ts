// Emits generated/validators/: Ajv standalone code compiled here, at generate time, from the same
// definitions as generated/schemas/ (specification section 7 for the error shape), plus the hand-written runtime
// (templates/validators/) bundled as one JavaScript module, so that plain `node` imports the validators.
//
// The steps, one module each under validators/: prepare.ts (schema preparation), error-table.ts (what
// errors need beyond Ajv's), compile.ts (the Ajv compile), passes.ts (each rewrite of Ajv's output,
// named) and reach.ts (what each export needs of that output); this module prints the modules.
//
// Layout: `ajv.js` holds every compiled function once (shared definitions are shared code; every
// top-level declaration is side-effect free, so a bundler keeps only what an import reaches);
// `<id>.js` holds what one schema id reaches of that code (validators/reach.ts) and wraps it; `index.js`
// has them all, `validate(id, data)` and `schemaIds`; `runtime.js` is the runtime they all import, one
// module (runtimeBundle), and the only copy of its code: generated/runtime/validators/ holds its
// declarations alone (emit/runtime.ts, DECLARATIONS_ONLY).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ErrorTable, MessageTemplates } from "../../../templates/validators/types.js";
import type { EmitContext } from "../../context.js";
import type { Model } from "../../model/types.js";
import { COMPILED, OWN_GENERATED } from "../../package-root.js";
import { rawName, validatorName } from "../names.js";
import { BANNER, sortedObject, type OutputFile } from "../output.js";
import { moduleFiles } from "../print.js";
import { requestKeyShapes } from "../request-shapes.js";
import { templateBundle } from "../template-js.js";
import { compileValidators } from "./compile.js";
import { errorTable, messageTemplates } from "./error-table.js";
import { asciiOnly, RUNTIME_MODULE } from "./passes.js";
import { reachOf, type Reach } from "./reach.js";
import { compiledDocument } from "./prepare.js";

export { ajvOptions, compileValidators } from "./compile.js";
export { errorTable, expectedTypeOf, messageTemplates } from "./error-table.js";
export * from "./passes.js";
export { ABN_CHECKSUM_KEYWORD, compiledDocument, conditionsCallNothing, type CompiledDocument } from "./prepare.js";
export { pascalId, validatorName } from "../names.js";

// ---- The runtime as JavaScript --------------------------------------------------------------------

/** What generated validator modules import of the runtime (export name -> template file). */
export const RUNTIME_EXPORTS: Readonly<Record<string, string>> = {
  createValidator: "validator.ts",
  withStandardSchema: "standard.ts",
  fullFormats: "formats.ts",
  abnChecksum: "abn.ts",
};

const RUNTIME_PATH = `validators/${RUNTIME_MODULE.slice(2)}`;

/**
 * The runtime every generated validator module imports: RUNTIME_EXPORTS as one module (template-js.ts),
 * typed by re-exporting the declarations of their template files. Compiled (dist/), esbuild is absent:
 * the package's own copy, which the sources wrote (the golden check keeps the two equal).
 */
export function runtimeBundle(root: string): OutputFile[] {
  const js = COMPILED
    ? readFileSync(join(OWN_GENERATED, RUNTIME_PATH), "utf8").replace(/\r\n/g, "\n")
    : `// ${BANNER} (templates/validators/ as one module: ${Object.keys(RUNTIME_EXPORTS).join(", ")} and what they reach)\n${templateBundle(root, "validators", RUNTIME_EXPORTS).trimEnd()}\n`;
  const dts = Object.entries(RUNTIME_EXPORTS).map(([name, file]) => `export { ${name} } from "../runtime/validators/${file.replace(/\.ts$/, ".js")}";`);
  return [
    { path: RUNTIME_PATH, contents: js },
    { path: RUNTIME_PATH.replace(/\.js$/, ".d.ts"), contents: `${header}\n${dts.join("\n")}\n` },
  ];
}

// ---- The modules ----------------------------------------------------------------------------------------

const header = `// ${BANNER}`;

/**
 * One schema id's module holds the compiled code that id reaches, and nothing else: importing one
 * validator compiles only its own checks (a few kB for most ids, instead of all of ajv.js).
 */
type KeyRoots = ReadonlyMap<string, unknown>;

/** The validator of one id: Ajv's function, the error table, and where its request objects' keys are. */
const validatorCall = (id: string, roots: KeyRoots) =>
  `createValidator(${rawName(id)}, TABLE, MESSAGES${roots.has(id) ? `, undefined, { root: ${JSON.stringify(roots.get(id))}, shapes: KEYS }` : ""})`;
/** The validator as exported: also a Standard Schema v1 (templates/validators/standard.ts). */
const standardCall = (id: string, roots: KeyRoots) => `withStandardSchema(/*#__PURE__*/ ${validatorCall(id, roots)})`;
/** Its type: the service-shaped function and a Standard Schema of the id's type (generated/types.ts). */
const standardType = (id: string) => `StandardValidator<${id}>`;
const STANDARD_DTS = `import type { StandardValidator } from "../runtime/validators/standard.js";`;
const RUNTIME_IMPORT = `import { createValidator, withStandardSchema } from "${RUNTIME_MODULE}";`;
const errorsImport = (ids: readonly string[], roots: KeyRoots) =>
  `import { ${ids.some((id) => roots.has(id)) ? "KEYS, " : ""}MESSAGES, TABLE } from "./errors.js";`;

function idModule(id: string, reach: Reach, roots: KeyRoots): OutputFile[] {
  const name = validatorName(id);
  const imports = {
    js: [RUNTIME_IMPORT, errorsImport([id], roots), reach.code([rawName(id)], { unexport: true })],
    dts: [STANDARD_DTS, `import type { ${id.split(".")[0]} } from "../types.js";`],
  };
  return moduleFiles(`validators/${id}`, imports, [
    {
      doc: [`/** Validates a document against ${id} (generated/schemas/${id}.json); errors in the service's shape. */`],
      js: `export const ${name} = /*#__PURE__*/ ${standardCall(id, roots)};`,
      dts: `export declare const ${name}: ${standardType(id)};`,
    },
    { js: `export default ${name};`, dts: `export default ${name};` },
  ]);
}

function indexModule(ids: readonly string[], roots: KeyRoots): OutputFile[] {
  const js = [
    header,
    // One import of the shared code, not one module per id: fewer files to load at start-up.
    RUNTIME_IMPORT,
    `import { ${ids.map(rawName).join(", ")} } from "./ajv.js";`,
    errorsImport(ids, roots),
    "",
    // Every top-level call is marked pure: an app importing one validator from here carries only that
    // one (esbuild, Rollup and Vite drop the unused ones and the table of all of them).
    ...ids.map((id) => `export const ${validatorName(id)} = /*#__PURE__*/ ${standardCall(id, roots)};`),
    "",
    "/** Every schema id (as `verispec schemas` lists them). */",
    `export const schemaIds = /*#__PURE__*/ Object.freeze(${JSON.stringify(ids)});`,
    "",
    "const BY_ID = /*#__PURE__*/ new Map([",
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
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted module's own template literal
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
    `import type { ValidateOptions, ValidationResult } from "../runtime/validators/types.js";`,
    `export type { ValidateOptions, ValidationIssue, ValidationResult, Validator } from "../runtime/validators/types.js";`,
    STANDARD_DTS,
    `export type { StandardSchemaV1, StandardValidator } from "../runtime/validators/standard.js";`,
    // A type's name is its schema id (generated/types.d.ts), so the table is the ids themselves.
    `import type { v4, v5 } from "../types.js";`,
    "",
    `export type SchemaId =\n${ids.map((id) => `  | ${JSON.stringify(id)}`).join("\n")};`,
    "",
    "/** The TypeScript type of each schema id (generated/types.d.ts). */",
    `export interface SchemaTypes {\n${ids.map((id) => `  ${JSON.stringify(id)}: ${id};`).join("\n")}\n}`,
    "",
    ...ids.map((id) => `export declare const ${validatorName(id)}: ${standardType(id)};`),
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

/** A value as a JavaScript string literal holding its JSON (ASCII only, like the rest of the output). */
const jsonLiteral = (value: unknown) => asciiOnly(`'${JSON.stringify(value).replace(/[\\']/g, "\\$&")}'`);

function errorsModule(table: ErrorTable, messages: MessageTemplates, keys: unknown): OutputFile[] {
  const js = [
    header,
    "// From spec/errors.yaml (validationMessages.defaults) and the schemas' x-verispec-errors (the service's specification, section 7).",
    // JSON text in a string literal: V8 scans a string and parses JSON far faster than it parses the
    // same data written as object literals, and both tables are read at every import.
    `export const MESSAGES = Object.freeze(JSON.parse(${jsonLiteral(messages)}));`,
    "",
    "/** By Ajv schemaPath: the exact messages, expected types of required keys, discriminator values. */",
    `export const TABLE = Object.freeze(JSON.parse(${jsonLiteral(table)}));`,
    "",
    '/** For `unknownKeys: "report"`: the keys each open request object declares, and links to its children. */',
    `export const KEYS = Object.freeze(JSON.parse(${jsonLiteral(keys)}));`,
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
  const dts = [
    header,
    `import type { RawValidate } from "../runtime/validators/types.js";`,
    ...ids.map((id) => `export declare const ${rawName(id)}: RawValidate;`),
  ];
  return [
    { path: "validators/ajv.js", contents: `${header} (Ajv standalone code, compiled at generate time)\n${code.trimEnd()}\n` },
    { path: "validators/ajv.d.ts", contents: `${dts.join("\n")}\n` },
  ];
}

export function emitValidators(model: Model, ctx: EmitContext): OutputFile[] {
  const doc = compiledDocument(model);
  const ids = doc.published;
  const reach = reachOf(compileValidators(doc));
  const keys = requestKeyShapes(model);
  const roots: KeyRoots = new Map([...keys.roots].filter(([id]) => ids.includes(id)));
  return [
    ...ajvModule(reach.code(ids.map(rawName)), ids),
    ...errorsModule(errorTable(doc, model), messageTemplates(model), sortedObject(Object.entries(keys.shapes))),
    ...ids.flatMap((id) => idModule(id, reach, roots)),
    ...indexModule(ids, roots),
    ...runtimeBundle(ctx.root),
  ];
}
