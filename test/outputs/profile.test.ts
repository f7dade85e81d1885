// The portable profile of the published schemas (issue 13): what the generators other language teams use
// need from generated/schemas/*.json and generated/openapi.json, checked by construction so that no
// generator's failure has to be met to be prevented. Python generators cannot be installed here (no
// PyPI); the failures they showed are each one rule below:
// - openapi-python-client refused boolean sub-schemas ("Input should be a valid dictionary");
// - datamodel-code-generator built wrong Literals from discriminators without `mapping`;
// - orval's fetch client did not compile `4XX` response keys; orval axios and quicktype hit TS2411
//   from a typed `additionalProperties` beside optional properties;
// - ajv-cli (strict by default) refused the vendor keywords.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { VENDOR_KEYWORDS } from "../../generator/emit/schema-builder.js";
import { OPENAPI, ROOT, SCHEMAS, bin, run } from "./helpers.js";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

const doc = JSON.parse(readFileSync(OPENAPI, "utf8")) as Json;
const components = (doc.components as Json).schemas as Record<string, Json>;
const standalone = readdirSync(SCHEMAS)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => ({ file: f, schema: JSON.parse(readFileSync(join(SCHEMAS, f), "utf8")) as Json }));

// Keywords of JSON Schema 2020-12 (core, applicator, validation, unevaluated, format, meta-data,
// content) and OpenAPI 3.1's schema additions.
const SCHEMA_IN = [
  "not",
  "if",
  "then",
  "else",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "contentSchema",
];
const SCHEMAS_IN = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "dependentSchemas"];
const KNOWN = new Set([
  ...SCHEMA_IN,
  ...SCHEMAS_IN,
  ...SCHEMA_MAPS,
  "$schema",
  "$id",
  "$ref",
  "$comment",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$vocabulary",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "format",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "contentEncoding",
  "contentMediaType",
  "discriminator",
  "xml",
  "externalDocs",
  "example",
]);

interface Place {
  readonly where: string;
  readonly schema: unknown;
}

/** Every schema position (not every object: names under `properties`, values of `enum` are no schemas). */
function schemaPlaces(root: unknown, where: string): Place[] {
  const out: Place[] = [];
  const visit = (s: unknown, at: string) => {
    out.push({ where: at, schema: s });
    if (!isObject(s)) return;
    for (const k of SCHEMA_IN) if (k in s) visit(s[k], `${at}/${k}`);
    for (const k of SCHEMAS_IN) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((x, i) => visit(x, `${at}/${k}/${i}`));
    for (const k of SCHEMA_MAPS) if (isObject(s[k])) for (const [name, x] of Object.entries(s[k])) visit(x, `${at}/${k}/${name}`);
  };
  visit(root, where);
  return out;
}

/** The schema positions of the OpenAPI document: components, request bodies, responses, parameters. */
function openApiPlaces(): Place[] {
  const out: Place[] = [];
  for (const [id, s] of Object.entries(components)) out.push(...schemaPlaces(s, `#/components/schemas/${id}`));
  const walk = (v: unknown, at: string) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}/${i}`));
    if (!isObject(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "schema") out.push(...schemaPlaces(x, `${at}/schema`));
      else walk(x, `${at}/${k}`);
    }
  };
  walk(doc.paths, "#/paths");
  walk(doc.webhooks, "#/webhooks");
  return out;
}

const allPlaces: { source: string; places: Place[] }[] = [
  ...standalone.map(({ file, schema }) => ({ source: `schemas/${file}`, places: schemaPlaces(schema, "#") })),
  { source: "openapi.json", places: openApiPlaces() },
];

/** Violations of one rule over every published document, as "source place: what" lines. */
function violations(check: (p: Place, source: string) => string | undefined): string[] {
  return allPlaces.flatMap(({ source, places }) =>
    places
      .map((p) => check(p, source))
      .filter((m): m is string => !!m)
      .map((m) => `${source} ${m}`),
  );
}

describe("portable JSON Schema profile", () => {
  it("walks a meaningful number of schema positions", () => {
    expect(standalone.length).toBeGreaterThan(40);
    expect(allPlaces.reduce((n, p) => n + p.places.length, 0)).toBeGreaterThan(2000);
  });

  it("has no boolean sub-schema except `additionalProperties: true|false`", () => {
    const found = violations((p) => (typeof p.schema === "boolean" && !p.where.endsWith("/additionalProperties") ? `${p.where}: ${p.schema}` : undefined));
    expect(found).toEqual([]);
    // The rule has teeth: a place of the kind openapi-python-client refused is found.
    expect(schemaPlaces({ properties: { trace: true } }, "#").some((p) => typeof p.schema === "boolean")).toBe(true);
  });

  it("uses only JSON Schema 2020-12 / OpenAPI keywords and the declared vendor keywords", () => {
    const vendor = new Set<string>(VENDOR_KEYWORDS);
    const found = violations((p) => {
      if (!isObject(p.schema)) return undefined;
      const unknown = Object.keys(p.schema).filter((k) => !KNOWN.has(k) && !vendor.has(k));
      return unknown.length ? `${p.where}: ${unknown.join(", ")}` : undefined;
    });
    expect(found).toEqual([]);
  });

  it("standalone schemas carry no `discriminator` (an OpenAPI keyword); their unions are exclusive by `const`", () => {
    for (const { file, schema } of standalone) {
      for (const p of schemaPlaces(schema, "#")) {
        if (!isObject(p.schema)) continue;
        expect(p.schema.discriminator, `${file} ${p.where}`).toBeUndefined();
      }
    }
  });

  it("every discriminator of openapi.json has a mapping over `$ref` branches, and each key is its branch's tag value", () => {
    let count = 0;
    for (const p of openApiPlaces()) {
      if (!isObject(p.schema) || !p.schema.discriminator) continue;
      count++;
      const d = p.schema.discriminator as { propertyName: string; mapping?: Record<string, string> };
      const branches = (p.schema.oneOf ?? p.schema.anyOf) as Json[];
      expect(
        branches.every((b) => typeof b.$ref === "string" && Object.keys(b).length === 1),
        p.where,
      ).toBe(true);
      expect(d.mapping, p.where).toBeDefined();
      expect(Object.values(d.mapping!).sort(), p.where).toEqual(branches.map((b) => b.$ref as string).sort());
      for (const [value, ref] of Object.entries(d.mapping!)) {
        const target = components[ref.replace("#/components/schemas/", "")]!;
        const tag = (target.properties as Record<string, Json>)[d.propertyName]!;
        expect(tag.const ?? (tag.enum as unknown[] | undefined)?.[0], `${p.where} ${value}`).toBe(value);
      }
    }
    expect(count).toBeGreaterThanOrEqual(4);
  });

  it("has no typed `additionalProperties` beside declared properties (generators' index signatures conflict)", () => {
    const found = violations((p) => (isObject(p.schema) && isObject(p.schema.properties) && isObject(p.schema.additionalProperties) ? p.where : undefined));
    expect(found).toEqual([]);
    // `unevaluatedProperties` would be the same conflict: quicktype reads it as `additionalProperties`.
    expect(violations((p) => (isObject(p.schema) && isObject(p.schema.properties) && isObject(p.schema.unevaluatedProperties) ? p.where : undefined))).toEqual(
      [],
    );
  });

  it("answers with explicit status codes and `default` only (no `4XX` range keys)", () => {
    const keys: string[] = [];
    for (const section of ["paths", "webhooks"] as const) {
      for (const item of Object.values(doc[section] as Record<string, Json>)) {
        for (const op of Object.values(item)) if (isObject(op) && isObject(op.responses)) keys.push(...Object.keys(op.responses));
      }
    }
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((k) => !/^(?:[1-5][0-9]{2}|default)$/.test(k))).toEqual([]);
  });

  it("names schemas with dot-separated identifiers that stay distinct when joined (V4VerifyRequest)", () => {
    const names = [...Object.keys(components), ...standalone.map((s) => s.file.replace(/\.json$/, ""))];
    expect(names.filter((n) => !/^[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*$/.test(n))).toEqual([]);
    const joined = new Map<string, string>();
    for (const n of new Set(Object.keys(components))) {
      const id = n
        .split(".")
        .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
        .join("")
        .toLowerCase();
      expect(joined.get(id), `${n} and ${joined.get(id)} collapse into one identifier`).toBeUndefined();
      joined.set(id, n);
    }
  });
});

describe("ajv-cli 5 in its default (strict) mode", () => {
  const temp = mkdtempSync(join(tmpdir(), "verispec-ajv-cli-"));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  const vocabulary = "./generated/ajv-vocabulary.cjs";

  it("compiles every published schema with the shipped vocabulary; without it, names the vendor keyword", async () => {
    const ok = await run(bin("ajv"), ["compile", "--spec=draft2020", "-c", "ajv-formats", "-c", vocabulary, "-s", "generated/schemas/*.json"], { cwd: ROOT });
    expect(ok.stderr + ok.stdout).not.toMatch(/unknown keyword|is invalid|error:/i);
    expect(ok.code).toBe(0);
    expect(ok.stdout.match(/is valid/g)?.length).toBe(standalone.length);
    const bare = await run(bin("ajv"), ["compile", "--spec=draft2020", "-c", "ajv-formats", "-s", "generated/schemas/v5.Identifiers.json"], { cwd: ROOT });
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toMatch(/strict mode: unknown keyword: "x-/);
  });

  it("gives every payload fixture the verdict the fixture states", async () => {
    const dir = join(ROOT, "test", "fixtures", "payloads");
    const fixtures = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map(
        (f) =>
          JSON.parse(readFileSync(join(dir, f), "utf8")) as { name: string; schema: string; data: unknown; valid: boolean; jsonSchemaExpressible?: boolean },
      );
    const bySchema = new Map<string, typeof fixtures>();
    for (const f of fixtures) if (f.jsonSchemaExpressible !== false) bySchema.set(f.schema, [...(bySchema.get(f.schema) ?? []), f]);
    let checked = 0;
    for (const [schema, group] of bySchema) {
      const files = group.map((f) => {
        const file = join(temp, `${f.name}.json`);
        writeFileSync(file, JSON.stringify(f.data));
        return file;
      });
      const r = await run(
        bin("ajv"),
        [
          "validate",
          "--spec=draft2020",
          "--errors=line",
          "-c",
          "ajv-formats",
          "-c",
          vocabulary,
          "-s",
          `generated/schemas/${schema}.json`,
          ...files.flatMap((f) => ["-d", f]),
        ],
        { cwd: ROOT },
      );
      for (const [i, f] of group.entries()) {
        const verdict = new RegExp(`^${files[i]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} (valid|invalid)$`, "m").exec(r.stdout + r.stderr)?.[1];
        expect(verdict, `${f.name} (${schema})`).toBe(f.valid ? "valid" : "invalid");
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});
