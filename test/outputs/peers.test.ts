// The generators other teams use, run on generated/ as they would run them (issue 13): orval 7 (fetch
// client) and @hey-api/openapi-ts on openapi.json, quicktype on the standalone schemas. Their output
// must compile with `tsc --strict`, every valid payload fixture and every schema example must be
// assignable to the peer's type for its schema, a wrong payload must not be (a @ts-expect-error that
// would itself fail if the types were too loose), and quicktype's runtime converters must accept every
// valid fixture. ajv-cli is in profile.test.ts, openapi-typescript in openapi-typescript.test.ts.
// Everything runs offline from node_modules.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pascalId } from "../../generator/emit/validators/index.js";
import { OPENAPI, ROOT, SCHEMAS, bin, run } from "./helpers.js";

interface Fixture {
  readonly name: string;
  readonly schema: string;
  readonly data: unknown;
  readonly valid: boolean;
}

const fixtureDir = join(ROOT, "test", "fixtures", "payloads");
const fixtures = readdirSync(fixtureDir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(fixtureDir, f), "utf8")) as Fixture);
const valid = fixtures.filter((f) => f.valid);
const schemaIds = readdirSync(SCHEMAS)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.replace(/\.json$/, ""))
  .sort();
const examples = schemaIds.flatMap((id) =>
  ((JSON.parse(readFileSync(join(SCHEMAS, `${id}.json`), "utf8")).examples ?? []) as unknown[]).map((value, i) => ({
    name: `${id}.examples[${i}]`,
    schema: id,
    data: value,
  })),
);
/** A payload no schema of the older interface accepts: an entity kind that does not exist. */
const WRONG = { metadata_version: "4", metadata_serviceUid: "u", metadata_secretKey: "s", metadata_userId: "x", type: "spaceship", fields: {} };

const temp = mkdtempSync(join(tmpdir(), "verispec-peers-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The peer's outputs, generated once: [label, directory, module to import types from]. */
const peers = { orval: join(temp, "orval"), hey: join(temp, "hey"), quicktype: join(temp, "quicktype") };
const quicktypeOrder = [...new Set([...valid.map((f) => f.schema), ...examples.map((e) => e.schema), "v4.VerifyRequest"])].sort();
const logs: Record<string, string> = {};

beforeAll(async () => {
  mkdirSync(peers.quicktype);
  const results = await Promise.all([
    run(bin("orval"), ["--input", OPENAPI, "--output", join(peers.orval, "api.ts"), "--client", "fetch"]),
    run(bin("openapi-ts"), ["-i", OPENAPI, "-o", peers.hey]),
    // Sources in a known order: quicktype names each top-level type from its title, in that order.
    run(bin("quicktype"), [
      "--src-lang",
      "schema",
      "--lang",
      "typescript",
      "-o",
      join(peers.quicktype, "types.ts"),
      ...quicktypeOrder.map((id) => join(SCHEMAS, `${id}.json`)),
    ]),
  ]);
  for (const [i, name] of ["orval", "hey", "quicktype"].entries()) {
    const r = results[i]!;
    logs[name] = r.stdout + r.stderr;
    if (r.code !== 0) throw new Error(`${name} failed (exit ${r.code}):\n${logs[name]}`);
  }
}, 180_000);

/** A module assigning each payload to `T<schema id>`; the wrong payload under @ts-expect-error. */
function assignments(importLine: string, typeOf: (id: string) => string, payloads = true): string {
  const lines = [importLine, ""];
  const all = payloads ? [...valid, ...examples] : [];
  all.forEach((f, i) => lines.push(`// ${f.name}`, `export const p${i}: ${typeOf(f.schema)} = ${JSON.stringify(f.data)};`));
  lines.push(
    "// A kind that does not exist: the peer's type must refuse it.",
    "// @ts-expect-error",
    `export const wrong: ${typeOf("v4.VerifyRequest")} = ${JSON.stringify(WRONG)};`,
  );
  return `${lines.join("\n")}\n`;
}

function compile(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(temp.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : "";
    return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}

describe("peer generators on generated/", () => {
  it("orval, @hey-api/openapi-ts and quicktype generate without warnings", () => {
    expect(logs.orval).not.toMatch(/⚠|warn|error/i);
    expect(logs.hey).not.toMatch(/warn|error/i);
    expect(logs.quicktype).not.toMatch(/warn|error/i);
  });

  it("their output compiles with tsc --strict and types every valid fixture and schema example (and refuses a wrong one)", () => {
    expect(valid.length).toBeGreaterThan(30);
    expect(examples.length).toBeGreaterThan(5);
    const qtNames = [...readFileSync(join(peers.quicktype, "types.ts"), "utf8").matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!);
    const qtConverters = [...readFileSync(join(peers.quicktype, "types.ts"), "utf8").matchAll(/public static to(\w+)\(json: string\): (\w+)/g)].map(
      (m) => m[2]!,
    );
    expect(qtConverters.length).toBe(quicktypeOrder.length);
    // quicktype names a top-level string schema `string` (no type of its own).
    const qtType = (id: string) => {
      const t = qtConverters[quicktypeOrder.indexOf(id)]!;
      return /^[a-z]/.test(t) ? t : `Q.${t}`;
    };
    // @hey-api/openapi-ts types a request body whose schema has `writeOnly` properties (the credentials) as
    // `<Name>Writable`; `<Name>` is the readable side without them.
    const heyNames = new Set([...readFileSync(join(peers.hey, "types.gen.ts"), "utf8").matchAll(/^export type (\w+)/gm)].map((m) => m[1]!));
    const heyType = (id: string) => (heyNames.has(`${pascalId(id)}Writable`) ? `H.${pascalId(id)}Writable` : `H.${pascalId(id)}`);
    expect(qtNames.map((n) => `Q.${n}`)).toContain(qtType("v4.VerifyRequest"));
    writeFileSync(
      join(temp, "orval-check.ts"),
      assignments(`import type * as O from "./orval/api";`, (id) => `O.${pascalId(id)}`),
    );
    writeFileSync(join(temp, "hey-check.ts"), assignments(`import type * as H from "./hey/index";`, heyType));
    // quicktype's types describe its converters' output (a `date-time` string becomes a Date), so the
    // payloads go through `Convert` at run time (next test); statically, only the wrong kind is checked.
    writeFileSync(join(temp, "quicktype-check.ts"), assignments(`import type * as Q from "./quicktype/types";`, qtType, false));
    const diagnostics = compile([
      join(peers.orval, "api.ts"),
      join(peers.hey, "index.ts"),
      join(peers.quicktype, "types.ts"),
      ...["orval", "hey", "quicktype"].map((p) => join(temp, `${p}-check.ts`)),
    ]);
    expect(diagnostics).toEqual([]);
  }, 120_000);

  it("quicktype's runtime converters accept every valid fixture and reject the wrong payload", async () => {
    const source = readFileSync(join(peers.quicktype, "types.ts"), "utf8");
    const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
    const file = join(peers.quicktype, "types.mjs");
    writeFileSync(file, js);
    const { Convert } = (await import(pathToFileURL(file).href)) as { Convert: Record<string, (json: string) => unknown> };
    const converters = [...source.matchAll(/public static (to\w+)\(json: string\)/g)].map((m) => m[1]!);
    const converterOf = (id: string) => Convert[converters[quicktypeOrder.indexOf(id)]!]!;
    const refused = valid.filter((f) => {
      try {
        converterOf(f.schema)(JSON.stringify(f.data));
        return false;
      } catch {
        return true;
      }
    });
    expect(refused.map((f) => f.name)).toEqual([]);
    expect(() => converterOf("v4.VerifyRequest")(JSON.stringify(WRONG))).toThrow();
  });
});
