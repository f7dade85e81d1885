// `verispec validate <schemaId> <file|->`: the generated validators on one JSON document (the service's specification, section 7).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Dirs, Io } from "../../context.js";
import { escapeControl } from "../../diagnostics.js";
import { OWN_GENERATED } from "../../package-root.js";
import { MAX_READ_BYTES, readAtMost, tooLargeMessage } from "../../read-bounded.js";
import { locateJsonSyntaxError } from "../json-syntax.js";
import type { CommandCall } from "../command-call.js";

interface ValidatorsModule {
  readonly schemaIds: readonly string[];
  readonly validate: (id: string, data: unknown) => { valid: boolean };
}

/** One line on stderr and exit 2: the document could not be checked at all. */
function fail(io: Io, message: string): number {
  io.stderr(`verispec: ${escapeControl(message)}\n`);
  return 2;
}

/**
 * The largest document read: 10 MiB (read-bounded.ts), the client's default `maxResponseBytes`. The service's
 * specification does not show a maximum request size (section 8); a verification request is a few kB,
 * so this is far above any real one and keeps parsing and validation within a few hundred MB of memory.
 */
export const MAX_DOCUMENT_BYTES = MAX_READ_BYTES;

const tooLarge = (name: string) => ({ error: tooLargeMessage(name, "'verispec validate'") });

/** The document's text (a leading UTF-8 byte order mark removed), or why it cannot be checked. */
async function readDocument(io: Io, file: string): Promise<string | { error: string }> {
  if (file === "-") {
    const text = await io.stdin(MAX_DOCUMENT_BYTES);
    return Buffer.byteLength(text) > MAX_DOCUMENT_BYTES ? tooLarge("standard input") : withoutBom(text);
  }
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) return { error: `no such file: ${file}` };
  try {
    const bytes = readAtMost(path, MAX_DOCUMENT_BYTES);
    return bytes === undefined ? tooLarge(file) : withoutBom(bytes.toString("utf8"));
  } catch (err) {
    return { error: `cannot read ${file}: ${(err as Error).message}` };
  }
}

/** A UTF-8 byte order mark (some editors write one) is not part of the JSON text. */
const withoutBom = (text: string) => (text.startsWith("\uFEFF") ? text.slice(1) : text);

/** Where parsing failed, never what the text holds: a secret file passed by mistake must not be printed. */
function notJson(name: string, text: string): string {
  const at = locateJsonSyntaxError(text);
  return at === undefined ? `${name} is not JSON` : `${name} is not JSON: ${at.problem} at line ${at.line}, column ${at.column}`;
}

/** <out>/validators when --out was given or ./generated/validators exists; else the package's own. */
function validatorsIndex(dirs: Dirs): string {
  const local = join(dirs.out, "validators", "index.js");
  return dirs.outGiven || existsSync(local) ? local : join(OWN_GENERATED, "validators", "index.js");
}

/** Exit 0 valid, 1 invalid (errors printed as the service's 422 details), 2 when nothing was checked. */
export async function validate({ dirs, io, positionals }: CommandCall): Promise<number> {
  const [id, file] = positionals as [string, string];
  const index = validatorsIndex(dirs);
  if (!existsSync(index)) return fail(io, `no generated validators at ${index}; run 'npx verispec generate'`);
  const validators = (await import(pathToFileURL(index).href)) as ValidatorsModule;
  if (!validators.schemaIds.includes(id)) return fail(io, `unknown schema id ${JSON.stringify(id)}; 'npx verispec schemas' lists them`);
  const text = await readDocument(io, file);
  if (typeof text !== "string") return fail(io, text.error);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return fail(io, notJson(file === "-" ? "standard input" : file, text));
  }
  const result = validators.validate(id, data);
  io.stdout(`${JSON.stringify(result)}\n`);
  return result.valid ? 0 : 1;
}
