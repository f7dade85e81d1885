// Shared by the validator tests: the fixtures (test/fixtures/payloads) and Ajv compiling the same
// published schemas at run time.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { ajvOptions } from "../../generator/emit/validators/index.js";
import { VENDOR_KEYWORDS } from "../../generator/emit/schema-builder.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SCHEMAS_DIR = join(ROOT, "generated", "schemas");
export const FIXTURES_DIR = join(ROOT, "test", "fixtures", "payloads");

export interface ExpectedIssue {
  readonly code: string;
  readonly path: readonly (string | number)[];
  /** The exact message; or `messagePrefix` where the message embeds a long pattern. */
  readonly message?: string;
  readonly messagePrefix?: string;
}

export interface Fixture {
  readonly name: string;
  readonly schema: string;
  readonly seed: string;
  readonly data: unknown;
  readonly valid: boolean;
  readonly errors: readonly ExpectedIssue[];
  /** False where the verdict needs more than JSON Schema (e.g. the opt-in ABN checksum). */
  readonly jsonSchemaExpressible: boolean;
  readonly options?: { readonly abnChecksum?: boolean };
}

export function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(FIXTURES_DIR, f), "utf8")) as Fixture);
}

export function publishedSchema(id: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMAS_DIR, `${id}.json`), "utf8")) as Record<string, unknown>;
}

// ajv-formats is CommonJS with a default export only.
type AddFormats = (ajv: Ajv2020, formats: string[]) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

/** Ajv (draft 2020-12) compiling the published schema at run time, with the generator's options. */
export function runtimeAjv(allErrors = true) {
  const { code: _code, ...opts } = ajvOptions(allErrors);
  const ajv = new Ajv2020({ ...opts, strict: false });
  addFormats(ajv, ["uri", "uuid", "date-time"]);
  for (const k of VENDOR_KEYWORDS) ajv.addKeyword(k);
  return ajv;
}
