// The JavaScript of a hand-written runtime (templates/<folder>/*.ts) for output that plain `node` must
// import: the folder bundled into one module by esbuild, a dev dependency pinned in the lockfile. Only
// from the sources (tsx): compiled (dist/), esbuild is not a runtime dependency, and the emitter reads the
// package's own generated copy instead (the pack test generates from the installed package and compares
// with generated/: the same bytes either way).
import { createRequire } from "node:module";
import { join } from "node:path";

/**
 * Named exports of templates/<folder>/ (export name -> template file) as one ESM module with what they
 * reach. Node 20 takes about 0.3-0.5 ms to load each module of an import graph, more than most of these
 * files take to run, so a generated validator imports one runtime module instead of five.
 */
export function templateBundle(root: string, folder: string, exports: Readonly<Record<string, string>>): string {
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  const entry = Object.entries(exports)
    .map(([name, file]) => `export { ${name} } from "./${file}";`)
    .join("\n");
  const { outputFiles } = esbuild.buildSync({
    stdin: { contents: entry, resolveDir: join(root, "templates", folder), sourcefile: `templates/${folder}/bundle.ts`, loader: "ts" },
    // Comments name the template files relative to the package root: no machine's path in the output.
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    charset: "ascii",
    legalComments: "none",
    logLevel: "silent",
  });
  return outputFiles[0]!.text.replace(/\r\n/g, "\n");
}
