// Issue 6, part 3: a second TypeScript generator. openapi-typescript turns generated/openapi.json into
// types without errors, and the TypeScript compiler shows that every example of the document and every
// valid payload fixture is assignable to its request, response or webhook type.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPENAPI, ROOT, bin, run } from "./helpers.js";

type Json = Record<string, unknown>;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const doc = JSON.parse(readFileSync(OPENAPI, "utf8")) as Json;
const temp = mkdtempSync(join(tmpdir(), "verispec-openapi-ts-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const lit = (s: string) => JSON.stringify(s);
const refId = (schema: unknown) => {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  return ref?.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : undefined;
};

interface Typed {
  readonly name: string;
  readonly type: string;
  readonly value: unknown;
}

/** Every media-type example of the document, with the openapi-typescript type at its place. */
function documentExamples(): { examples: Typed[]; typeOfSchema: Map<string, string> } {
  const examples: Typed[] = [];
  const typeOfSchema = new Map<string, string>(); // a request or webhook schema id -> its operation's body type
  for (const section of ["paths", "webhooks"] as const) {
    for (const [path, item] of Object.entries((doc[section] ?? {}) as Record<string, Json>)) {
      for (const method of METHODS) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const base = `${section}[${lit(path)}][${lit(method)}]`;
        const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
        const media = body?.["application/json"];
        if (media) {
          const type = `NonNullable<${base}["requestBody"]>["content"]["application/json"]`;
          const id = refId(media.schema);
          if (id && !typeOfSchema.has(id)) typeOfSchema.set(id, type);
          if ("example" in media) examples.push({ name: `${section} ${path} ${method} request`, type, value: media.example });
        }
        for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
          const m = (response.content as Record<string, Json> | undefined)?.["application/json"];
          if (m && "example" in m) {
            examples.push({
              name: `${section} ${path} ${method} ${status}`,
              type: `${base}["responses"][${lit(status)}]["content"]["application/json"]`,
              value: m.example,
            });
          }
        }
      }
    }
  }
  const schemas = ((doc.components as Json).schemas ?? {}) as Record<string, Json>;
  for (const [id, schema] of Object.entries(schemas)) {
    const values = schema.examples as unknown[] | undefined;
    values?.forEach((value, i) =>
      examples.push({ name: `components.schemas.${id}.examples[${i}]`, type: typeOfSchema.get(id) ?? `components["schemas"][${lit(id)}]`, value }),
    );
  }
  return { examples, typeOfSchema };
}

interface Fixture {
  name?: string;
  schema: string;
  data: unknown;
  valid: boolean;
}

function validFixtures(): { file: string; fixture: Fixture }[] {
  const out: { file: string; fixture: Fixture }[] = [];
  for (const dir of ["payloads", "python-extra"]) {
    let files: string[] = [];
    try {
      files = readdirSync(join(ROOT, "test", "fixtures", dir))
        .filter((f) => f.endsWith(".json"))
        .sort();
    } catch {
      continue;
    }
    for (const f of files) {
      const content = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", dir, f), "utf8")) as Fixture | Fixture[];
      for (const fixture of Array.isArray(content) ? content : [content]) if (fixture.valid) out.push({ file: `${dir}/${f}`, fixture });
    }
  }
  return out;
}

let generation: { code: number | null; stdout: string; stderr: string };
let diagnostics: { file: string; line: number; text: string; code: number }[] = [];
let checked = { examples: 0, fixtures: 0, expectedErrors: 0 };

beforeAll(async () => {
  generation = await run(bin("openapi-typescript"), [OPENAPI, "-o", join(temp, "openapi.ts")]);
  if (generation.code !== 0) return;
  const { examples, typeOfSchema } = documentExamples();
  const fixtures = validFixtures();
  const lines = [
    'import type { components, paths, webhooks } from "./openapi.js";',
    "// Each constant is a JSON value given the type openapi-typescript made for its place.",
  ];
  examples.forEach((e, i) => lines.push(`// ${e.name}`, `export const example${i}: ${e.type} = ${JSON.stringify(e.value)};`));
  fixtures.forEach(({ file, fixture }, i) => {
    const type = typeOfSchema.get(fixture.schema) ?? `components["schemas"][${lit(fixture.schema)}]`;
    lines.push(`// fixture ${file}: ${fixture.name ?? fixture.schema}`, `export const fixture${i}: ${type} = ${JSON.stringify(fixture.data)};`);
  });
  // The check is not vacuous: payloads that break a type are rejected (an unused @ts-expect-error fails).
  const webhook = examples.find((e) => e.name.startsWith("webhooks verificationEventV5"))!;
  const create = examples.find((e) => e.name === "paths /v5/verifications post request")!;
  const verify = examples.find((e) => e.name === "paths /verify post request")!;
  const negatives: Typed[] = [
    { name: "v5 webhook with attempt as a string", type: webhook.type, value: { ...(webhook.value as Json), attempt: "one" } },
    { name: "v5 create without website", type: create.type, value: Object.fromEntries(Object.entries(create.value as Json).filter(([k]) => k !== "website")) },
    { name: "older verify of an unknown entity type", type: verify.type, value: { ...(verify.value as Json), type: "spaceship" } },
  ];
  negatives.forEach((n, i) =>
    lines.push(`// must not type-check: ${n.name}`, "// @ts-expect-error", `export const negative${i}: ${n.type} = ${JSON.stringify(n.value)};`),
  );
  checked = { examples: examples.length, fixtures: fixtures.length, expectedErrors: negatives.length };
  const checkFile = join(temp, "check.ts");
  writeFileSync(checkFile, `${lines.join("\n")}\n`);

  const program = ts.createProgram([checkFile], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noUncheckedIndexedAccess: true,
    types: [],
  });
  diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
    const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return { file: d.file?.fileName ?? "", line: (pos?.line ?? 0) + 1, code: d.code, text: ts.flattenDiagnosticMessageText(d.messageText, "\n").slice(0, 600) };
  });
}, 120_000);

describe("openapi-typescript on generated/openapi.json", () => {
  it("generates types without errors", () => {
    expect(generation.stderr).not.toMatch(/\berror\b/i);
    expect(generation.code).toBe(0);
    const types = readFileSync(join(temp, "openapi.ts"), "utf8");
    for (const name of ["export interface paths", "export interface webhooks", "export interface components", '"/v5/verifications"', "verificationEventV5"]) {
      expect(types).toContain(name);
    }
  });

  it("type-checks every example and every valid fixture against its request, response or webhook type", () => {
    expect(checked.examples).toBeGreaterThanOrEqual(10);
    expect(checked.fixtures).toBeGreaterThan(0);
    const source = readFileSync(join(temp, "check.ts"), "utf8").split("\n");
    const described = diagnostics.map((d) => `${d.file.replace(temp, "<tmp>")}:${d.line}: TS${d.code} ${d.text}\n  near: ${source[d.line - 2] ?? ""}`);
    expect(described).toEqual([]);
  });
});
