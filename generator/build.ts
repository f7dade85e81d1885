// `npm run build` (run by `prepack`, and by the test setup when dist/ is stale): compiles generator/ and
// templates/ to dist/ with tsc (tsconfig.build.json), copies generated/'s modules (JavaScript and
// declarations already; the compiled CLI reads the validators' runtime bundle from that copy), and records a
// hash of its inputs in dist/.inputs so that a test run can tell a stale dist/.
// Development only: it runs from the sources with tsx and is not part of the package.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import { parse } from "yaml";
import { META_AJV_OPTIONS, metaSchemaHash, metaSchemaParts, type MetaSchema } from "./check/meta-schema.js";
import { PACKAGE_ROOT } from "./package-root.js";
import { filesUnder } from "./walk.js";

// A CommonJS default export, as ESM sees it.
type StandaloneCode = (ajv: InstanceType<typeof Ajv2020>, refs: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ?? standaloneModule) as unknown as StandaloneCode;

const INPUTS = ["generator", "templates", "generated", "spec/meta", "tsconfig.json", "tsconfig.build.json"];
const STAMP = join(PACKAGE_ROOT, "dist", ".inputs");

/** A hash of every file dist/ is built from (paths and contents). */
export function inputsHash(root = PACKAGE_ROOT): string {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    const files = statSync(join(root, input)).isDirectory() ? filesUnder(join(root, input), { skipDirs: ["docs"] }).map((f) => `${input}/${f}`) : [input];
    for (const file of files)
      hash
        .update(`${file}\0`)
        .update(readFileSync(join(root, file)))
        .update("\0");
  }
  return hash.digest("hex");
}

/** True when dist/ was built from the files as they are now. */
export function distIsCurrent(root = PACKAGE_ROOT): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === inputsHash(root);
}

/**
 * The package's own meta-schema (spec/meta/spec.schema.yaml) as Ajv standalone CommonJS, one export per
 * $def the files name, and the hash of the text it was compiled from (check/meta-schema.ts uses it only
 * for a byte-identical meta-schema).
 */
export function compiledMetaSchema(root = PACKAGE_ROOT): string {
  const text = readFileSync(join(root, "spec", "meta", "spec.schema.yaml"), "utf8");
  const meta = parse(text) as MetaSchema & Record<string, unknown>;
  const { schema, defs } = metaSchemaParts(meta);
  const ajv = new Ajv2020({ ...META_AJV_OPTIONS, code: { source: true, esm: false } });
  ajv.addSchema(schema);
  const id = schema.$id as string;
  const code = standaloneCode(ajv, Object.fromEntries(defs.map((d) => [d, `${id}#/$defs/${d}`])));
  return `// Compiled by npm run build from spec/meta/spec.schema.yaml (Ajv standalone).\n${code}\nexports.hash = ${JSON.stringify(metaSchemaHash(text))};\nexports.files = ${JSON.stringify(meta.files)};\n`;
}

export function build(root = PACKAGE_ROOT): void {
  const dist = join(root, "dist");
  rmSync(dist, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { cwd: root, stdio: "inherit" });
  copyGeneratedModules(root, dist);
  writeFileSync(join(dist, "generator", "check", "meta-schema.compiled.cjs"), compiledMetaSchema(root));
  writePgliteTemplate(dist);
  writeFileSync(STAMP, `${inputsHash(root)}\n`);
}

/**
 * The package's own entry points are generated/'s JavaScript and declarations, copied as they are: the
 * package's `verispec` is exactly what `verispec generate` writes for the package's own spec.
 */
function copyGeneratedModules(root: string, dist: string): void {
  const generated = join(root, "generated");
  for (const file of filesUnder(generated, { skipDirs: ["docs"] })) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    mkdirSync(dirname(join(dist, "generated", file)), { recursive: true });
    copyFileSync(join(generated, file), join(dist, "generated", file));
  }
}

/**
 * The sandbox's migrated PGlite data directory, dumped to dist/pglite-template/ (templates/sandbox/store/
 * template.ts): a new sandbox database loads it instead of running initdb. Built by the compiled module
 * in a child process (PGlite is asynchronous; the build is not).
 */
function writePgliteTemplate(dist: string): void {
  const module = pathToFileURL(join(dist, "templates", "sandbox", "store", "template.js")).href;
  const script = `const m = await import(${JSON.stringify(module)}); await m.writeTemplate(${JSON.stringify(join(dist, "pglite-template"))});`;
  execFileSync(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" });
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split(sep).join("/"))) build();
