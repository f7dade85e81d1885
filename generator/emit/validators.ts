// Emits generated/validators/: Ajv standalone code compiled here, at generate time, from the same
// definitions as generated/schemas/ (the service's specification, section 7 for the error shape), plus the JS of the hand-written
// runtime (templates/validators/) so that plain `node` imports the validators.
//
// The steps, one module each under validators/: prepare.ts (schema preparation), error-table.ts (what
// errors need beyond Ajv's), compile.ts (the Ajv compile) and passes.ts (each rewrite of Ajv's output,
// named); this module prints the modules.
//
// Layout: `ajv.js` holds every compiled function once (shared definitions are shared code; every
// top-level declaration is side-effect free, so a bundler keeps only what an import reaches);
// `<id>.js` wraps one schema id; `index.js` has them all, `validate(id, data)` and `schemaIds`.
import type { ErrorTable, MessageTemplates } from "../../templates/validators/types.js";
import type { EmitContext } from "../context.js";
import type { Model } from "../model/types.js";
import { rawName, validatorName } from "./names.js";
import { BANNER, sortedObject, type OutputFile } from "./output.js";
import { moduleFiles } from "./print.js";
import { requestKeyShapes } from "./request-shapes.js";
import { templateJavaScript } from "./template-js.js";
import { compileValidators } from "./validators/compile.js";
import { errorTable, messageTemplates } from "./validators/error-table.js";
import { compiledDocument } from "./validators/prepare.js";

export { ajvOptions, compileValidators } from "./validators/compile.js";
export { errorTable, expectedTypeOf, messageTemplates } from "./validators/error-table.js";
export * from "./validators/passes.js";
export { ABN_CHECKSUM_KEYWORD, compiledDocument, conditionsCallNothing, type CompiledDocument } from "./validators/prepare.js";
export { pascalId, validatorName } from "./names.js";

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
  const imports = {
    js: [`import { createValidator } from "../runtime/validators/validator.js";`, `import { ${rawName(id)} } from "./ajv.js";`, errorsImport([id], roots)],
    dts: [`import type { Validator } from "../runtime/validators/types.js";`],
  };
  return moduleFiles(`validators/${id}`, imports, [
    {
      doc: [`/** Validates a document against ${id} (generated/schemas/${id}.json); errors in the service's shape. */`],
      js: `export const ${name} = /*#__PURE__*/ ${validatorCall(id, roots)};`,
      dts: `export declare const ${name}: Validator;`,
    },
    { js: `export default ${name};`, dts: `export default ${name};` },
  ]);
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
    "// From spec/errors.yaml (validationMessages.defaults) and the schemas' x-verispec-errors (the service's specification, section 7).",
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
