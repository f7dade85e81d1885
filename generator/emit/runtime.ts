// The hand-written runtime (templates/<folder>/*.ts) as a project imports it: JavaScript with a .d.ts beside
// each module, under generated/runtime/<folder>/, so that plain Node, TypeScript and bundlers import the
// output with no TypeScript toolchain. The runtime is copied, not imported from the package: a project's
// generated/ is self-contained and matches the package it was generated with (`verispec check` flags it
// after an update of verispec changed the runtime). From the sources (tsx), the templates are compiled here
// by the TypeScript compiler API with tsconfig.build.json's options (TypeScript is a dev dependency);
// compiled (dist/), TypeScript is not installed, and the copy is the package's own generated/runtime/, which
// `npm run build` put in dist/generated/ (the golden check keeps it equal to what the sources give).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import type { EmitContext } from "../context.js";
import type { Model } from "../model/types.js";
import { COMPILED, DIST } from "../package-root.js";
import { filesUnder } from "../walk.js";
import { BANNER, type OutputFile } from "./output.js";

/** Template folders shipped as the runtime; each is real, type-checked TypeScript with its own tests. */
export const RUNTIME_FOLDERS = ["client", "lifecycle", "webhooks", "validators"] as const;

/**
 * Folders whose code ships once, elsewhere, as one bundled module: only their declarations are written
 * here. The validators' code is generated/validators/runtime.js (emit/validators/index.ts, runtimeBundle),
 * the one module every validator imports; a second, per-file copy here would be code no entry runs.
 */
export const DECLARATIONS_ONLY: ReadonlySet<string> = new Set(["validators"]);

/** Whether a runtime file (`runtime/<folder>/<file>`) is written: all of it, or a declaration of a bundled folder. */
const shipped = (path: string) => path.endsWith(".d.ts") || !DECLARATIONS_ONLY.has(path.split("/")[1]!);

const isModule = (f: string) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts");
const withBanner = (text: string) => `// ${BANNER}\n${text.replace(/\r\n/g, "\n").replace(/\n*$/, "\n")}`;

/** The runtime's .js and .d.ts files, compiled from templates/ with the TypeScript compiler API. */
function compileTemplates(root: string): OutputFile[] {
  const ts = createRequire(import.meta.url)("typescript") as typeof import("typescript");
  const templates = join(root, "templates");
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.build.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.build.json: not readable");
  const outDir = join(root, ".runtime-out"); // never written: emit goes to the callback below
  const options = { ...config.options, noEmit: false, declaration: true, rootDir: templates, outDir };
  const roots = RUNTIME_FOLDERS.flatMap((folder) =>
    filesUnder(join(templates, folder))
      .filter(isModule)
      .map((f) => join(templates, folder, f)),
  );
  const out: OutputFile[] = [];
  const program = ts.createProgram(roots, options);
  const result = program.emit(undefined, (fileName, text) => {
    const path = `runtime/${relative(outDir, fileName).split(sep).join("/")}`;
    if (shipped(path)) out.push({ path, contents: withBanner(text) });
  });
  if (result.emitSkipped) throw new Error("templates/: the runtime did not compile");
  return out;
}

/** Compiled: the package's own copy (dist/generated/runtime/), which already carries the banner. */
function shippedRuntime(): OutputFile[] {
  const dir = join(DIST, "generated", "runtime");
  return filesUnder(dir).map((f) => ({ path: `runtime/${f}`, contents: readFileSync(join(dir, f), "utf8") }));
}

/** A hash of what the compilation reads: the runtime's templates, the build options and the compiler's version. */
function sourcesKey(root: string): string {
  const hash = createHash("sha256").update(createRequire(import.meta.url)("typescript/package.json").version as string);
  hash.update(readFileSync(join(root, "tsconfig.json"))).update(readFileSync(join(root, "tsconfig.build.json")));
  hash.update(`declarations only: ${[...DECLARATIONS_ONLY].join(",")}\0`); // what is kept of the output
  for (const folder of RUNTIME_FOLDERS)
    for (const f of filesUnder(join(root, "templates", folder)).filter(isModule))
      hash
        .update(`${folder}/${f}\0`)
        .update(readFileSync(join(root, "templates", folder, f)))
        .update("\0");
  return hash.digest("hex").slice(0, 32);
}

/**
 * The compilation type-checks the runtime (a .d.ts needs the types), which takes seconds; the sources'
 * callers (npm run generate, the golden check, every test that generates) share one result a content
 * key, kept under node_modules/.cache/verispec/ of the checkout and written atomically.
 */
function cachedCompile(root: string): OutputFile[] {
  const dir = join(root, "node_modules", ".cache", "verispec");
  const file = join(dir, `runtime-${sourcesKey(root)}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as OutputFile[];
  const files = compileTemplates(root);
  mkdirSync(dir, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(files));
  renameSync(temp, file);
  return files;
}

const compiled = new Map<string, readonly OutputFile[]>();

export function emitRuntime(_model: Model, ctx: EmitContext): OutputFile[] {
  if (COMPILED) return shippedRuntime();
  // One compilation a process at most: the runtime does not depend on the spec.
  if (!compiled.has(ctx.root)) compiled.set(ctx.root, cachedCompile(ctx.root));
  return [...compiled.get(ctx.root)!].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
