// Check, part 1: every spec file against the meta-schema (spec/meta/spec.schema.yaml).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { describeValue, diagnostic, type Diagnostic } from "../diagnostics.js";
import { COMPILED } from "../package-root.js";
import { pointerToPath } from "../pointer.js";
import { positionOf, type LoadedSpec, type PathSegment, type SpecFile } from "../load/load-spec.js";

export interface MetaSchema {
  files: Record<string, string>;
  $defs: Record<string, { description?: string }>;
}

/** The $def a spec file must match, by its name ("entities/*" matches any entity file). */
function defFor(meta: MetaSchema, name: string): string | undefined {
  if (meta.files[name]) return meta.files[name];
  const dir = name.includes("/") ? `${name.slice(0, name.lastIndexOf("/"))}/*` : undefined;
  return dir ? meta.files[dir] : undefined;
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let v: unknown = data;
  for (const seg of path) v = v == null ? undefined : (v as Record<PathSegment, unknown>)[seg];
  return v;
}

/** What the failing keyword expected, in words. */
function expectedText(e: ErrorObject): string {
  const schema = e.parentSchema as { description?: string; properties?: Record<string, unknown> } | undefined;
  switch (e.keyword) {
    case "required":
      return `a key \`${(e.params as { missingProperty: string }).missingProperty}\``;
    case "additionalProperties": {
      const allowed = Object.keys(schema?.properties ?? {});
      return allowed.length ? `one of the keys ${allowed.map((k) => `\`${k}\``).join(", ")}` : "no other key";
    }
    case "type":
      return `a value of type ${String((e.params as { type: string }).type)}`;
    case "enum":
      return `one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return JSON.stringify((e.params as { allowedValue: unknown }).allowedValue);
    case "pattern":
      return schema?.description ?? `text matching ${(e.params as { pattern: string }).pattern}`;
    case "propertyNames":
      return "a valid key";
    default:
      return schema?.description ?? e.message ?? "a valid value";
  }
}

function toDiagnostic(file: SpecFile, e: ErrorObject): Diagnostic {
  const path = pointerToPath(e.instancePath);
  if (e.keyword === "additionalProperties") {
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    return diagnostic("VS202", positionOf(file, [...path, key], true), { key, allowed: expectedText(e) });
  }
  if (e.keyword === "required") {
    return diagnostic("VS203", positionOf(file, path), { key: (e.params as { missingProperty: string }).missingProperty });
  }
  if (e.keyword === "propertyNames") {
    const name = (e.params as { propertyName: string }).propertyName;
    return diagnostic("VS204", positionOf(file, [...path, name], true), { key: JSON.stringify(name) });
  }
  return diagnostic("VS205", positionOf(file, path), { value: describeValue(valueAt(file.data, path)), expected: expectedText(e) });
}

/** Keeps the most specific errors: combinators and errors on a parent of another error's place go. */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject[] {
  const useful = errors.filter((e) => !["anyOf", "oneOf", "if", "$ref"].includes(e.keyword));
  const seen = new Set<string>();
  return useful.filter((e) => {
    const deeper = useful.some((o) => o !== e && o.instancePath.startsWith(`${e.instancePath}/`));
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (deeper || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

type Validate = (data: unknown) => boolean;
type Validators = (def: string) => Validate & { errors?: ErrorObject[] | null };

/** Ajv's options for the meta-schema: every error, with the failing schema (for its description). */
export const META_AJV_OPTIONS = { strict: true, allErrors: true, verbose: true, allowUnionTypes: true } as const;

/** The meta-schema without its `files` table (what Ajv compiles), and the $defs the files name. */
export function metaSchemaParts(meta: MetaSchema & Record<string, unknown>): { schema: Record<string, unknown>; defs: string[] } {
  const { files, ...schema } = meta;
  return { schema, defs: [...new Set(Object.values(files))].sort() };
}

export const metaSchemaHash = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * The meta-schema's validators. `npm run build` compiles the package's own meta-schema ahead of time
 * (dist/generator/check/meta-schema.compiled.cjs, Ajv standalone code); a spec whose meta-schema is
 * byte-identical uses it and skips Ajv's compile (a third of `check`'s time). Any other meta-schema,
 * or the sources, compile here.
 */
function metaValidators(text: string): { meta: MetaSchema; validators: Validators } {
  if (COMPILED) {
    try {
      const cached = createRequire(import.meta.url)("./meta-schema.compiled.cjs") as { hash: string; files: Record<string, string> } & Record<string, Validate>;
      if (cached.hash === metaSchemaHash(text)) return { meta: { files: cached.files, $defs: {} }, validators: (def) => cached[def] as ReturnType<Validators> };
    } catch {
      // not built: compile below
    }
  }
  const meta = parse(text) as MetaSchema & Record<string, unknown>;
  const { schema } = metaSchemaParts(meta);
  const ajv = new Ajv2020(META_AJV_OPTIONS);
  ajv.addSchema(schema);
  const id = schema.$id as string;
  return { meta, validators: (def) => ajv.getSchema(`${id}#/$defs/${def}`)! as ValidateFunction };
}

export function checkAgainstMetaSchema(spec: LoadedSpec): Diagnostic[] {
  const text = readFileSync(join(spec.dir, "meta", "spec.schema.yaml"), "utf8");
  const { meta, validators } = metaValidators(text);
  const diagnostics: Diagnostic[] = [];
  for (const file of spec.files) {
    const def = defFor(meta, file.name);
    if (!def) {
      diagnostics.push(
        diagnostic("VS201", { file: file.displayPath, line: 1, col: 1 }, { name: JSON.stringify(file.name), files: Object.keys(meta.files).join(", ") }),
      );
      continue;
    }
    const validate = validators(def);
    if (!validate(file.data)) diagnostics.push(...mostSpecific(validate.errors ?? []).map((e) => toDiagnostic(file, e)));
  }
  return diagnostics;
}
