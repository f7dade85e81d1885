// `verispec validate <schemaId> <file|->`: the generated validators on one JSON document (the service's specification, section 7).
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Dirs, Io } from "../../context.js";
import { escapeControl } from "../../diagnostics.js";
import { OWN_GENERATED } from "../../package-root.js";
import type { CommandCall } from "../table.js";

interface ValidatorsModule {
  readonly schemaIds: readonly string[];
  readonly validate: (id: string, data: unknown) => { valid: boolean };
}

/** One line on stderr and exit 2: the document could not be checked at all. */
function fail(io: Io, message: string): number {
  io.stderr(`verispec: ${escapeControl(message)}\n`);
  return 2;
}

async function readDocument(io: Io, file: string): Promise<string | { error: string }> {
  if (file === "-") return io.stdin();
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) return { error: `no such file: ${file}` };
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    return { error: `cannot read ${file}: ${(err as Error).message}` };
  }
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
  } catch (err) {
    return fail(io, `${file === "-" ? "standard input" : file} is not JSON: ${(err as Error).message.split("\n")[0]}`);
  }
  const result = validators.validate(id, data);
  io.stdout(`${JSON.stringify(result)}\n`);
  return result.valid ? 0 : 1;
}
