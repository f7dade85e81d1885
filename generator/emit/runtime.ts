// The hand-written runtime (templates/<folder>/*.ts) as a project imports it: JavaScript with a .d.ts beside
// each module, under generated/runtime/<folder>/, so that plain Node, TypeScript and bundlers import the
// output with no TypeScript toolchain. The runtime is copied, not imported from the package: a project's
// generated/ is self-contained and matches the package it was generated with (`verispec check` flags it
// after an update of verispec changed the runtime). From the sources (tsx), the templates are compiled here
// by the TypeScript compiler API with tsconfig.build.json's options (TypeScript is a dev dependency);
// compiled (dist/), TypeScript is not installed, and the copy is the package's own generated/runtime/, which
// `npm run build` put in dist/generated/ (the golden check keeps it equal to what the sources give).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import type { EmitContext } from "../context.js";
import type { Model } from "../model/types.js";
import { COMPILED, DIST } from "../package-root.js";
import { filesUnder } from "../walk.js";
import { BANNER, type OutputFile } from "./output.js";

/** Template folders shipped as the runtime; each is real, type-checked TypeScript with its own tests. */
export const RUNTIME_FOLDERS = ["client", "lifecycle", "webhooks", "validators"] as const;

const isModule = (f: string) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts");
const withBanner = (text: string) => `// ${BANNER}\n${text.replace(/\r\n/g, "\n").replace(/\n*$/, "\n")}`;

/** The runtime's .js and .d.ts files, compiled from templates/ with the TypeScript compiler API. */
function compileTemplates(root: string): OutputFile[] {
  const ts = createRequire(import.meta.url)("typescript") as typeof import("typescript");
  const templates = join(root, "templates");
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n")); } });
  if (!config) throw new Error("tsconfig.build.json: not readable");
  const outDir = join(root, ".runtime-out"); // never written: emit goes to the callback below
  const options = { ...config.options, noEmit: false, declaration: true, rootDir: templates, outDir };
  const roots = RUNTIME_FOLDERS.flatMap((folder) => filesUnder(join(templates, folder)).filter(isModule).map((f) => join(templates, folder, f)));
  const out: OutputFile[] = [];
  const program = ts.createProgram(roots, options);
  const result = program.emit(undefined, (fileName, text) => {
    out.push({ path: `runtime/${relative(outDir, fileName).split(sep).join("/")}`, contents: withBanner(text) });
  });
  if (result.emitSkipped) throw new Error("templates/: the runtime did not compile");
  return out;
}

/** Compiled: the package's own copy (dist/generated/runtime/), which already carries the banner. */
function shippedRuntime(): OutputFile[] {
  const dir = join(DIST, "generated", "runtime");
  return filesUnder(dir).map((f) => ({ path: `runtime/${f}`, contents: readFileSync(join(dir, f), "utf8") }));
}

const compiled = new Map<string, readonly OutputFile[]>();

export function emitRuntime(_model: Model, ctx: EmitContext): OutputFile[] {
  if (COMPILED) return shippedRuntime();
  // One compilation a process: the runtime does not depend on the spec.
  if (!compiled.has(ctx.root)) compiled.set(ctx.root, compileTemplates(ctx.root));
  return [...compiled.get(ctx.root)!].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
