// Validators, step 3: the Ajv compile. The prepared definitions, stripped of annotations, compiled by
// Ajv standalone into one module's code, then rewritten by the output passes (passes.ts).
import { Ajv, _ } from "ajv";
import type { KeywordCxt } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
import { abnChecksum } from "../../../templates/validators/abn.js";
import { fullFormats } from "../../../templates/validators/formats.js";
import { rawName } from "../names.js";
import { OUTPUT_PASSES } from "./passes.js";
import { ABN_CHECKSUM_KEYWORD, conditionsCallNothing, refTo, stripAnnotations, type CompiledDocument, type Defs } from "./prepare.js";

// A CommonJS default export, as ESM sees it.
type StandaloneCode = (ajv: Ajv, refsOrFunc: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ?? standaloneModule) as unknown as StandaloneCode;

const DOC_ID = "https://verispec.dev/schemas/_validators.json";

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
  ajv.addFormat("date-time", fullFormats["date-time"]);
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
  const code = standaloneCode(ajv, exports).replace(/^"use strict";/, "");
  return OUTPUT_PASSES.filter((p) => compact || p.name !== "compactErrors").reduce((text, pass) => pass.run(text), code);
}
