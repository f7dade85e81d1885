// The JavaScript of a hand-written runtime (templates/<folder>/*.ts) for output that plain `node` must
// import: the folder bundled into one module by esbuild, a dev dependency pinned in the lockfile.
// Compiled (dist/), `npm run build` has already bundled it, and esbuild is not a runtime dependency; from
// the sources (tsx), it is bundled here with the same settings: the same bytes either way (the pack test
// generates from the installed package and compares with generated/).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { COMPILED, DIST } from "../package-root.js";

/** Where `npm run build` writes the bundle of templates/<folder>/ (under dist/). */
export const bundlePath = (folder: string) => join("templates", folder, "bundle.js");

/**
 * Named exports of templates/<folder>/ (export name -> template file) as one ESM module with what they
 * reach. Node 20 takes about 0.3-0.5 ms to load each module of an import graph, more than most of these
 * files take to run, so a generated validator imports one runtime module instead of five. Compiled, the
 * copy `npm run build` wrote (`bundlePath`).
 */
export function templateBundle(root: string, folder: string, exports: Readonly<Record<string, string>>): string {
  if (COMPILED) return readFileSync(join(DIST, bundlePath(folder)), "utf8").replace(/\r\n/g, "\n");
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
