// The JavaScript of a hand-written runtime template (templates/<folder>/*.ts), for output that plain
// `node` must import. Compiled (dist/), the build has already transpiled it: tsc writes
// dist/templates/<folder>/*.js, and TypeScript is not a runtime dependency. From the sources (tsx), it is
// transpiled here with TypeScript, a dev dependency, with the same settings: the same bytes either way
// (the pack test generates from the installed package and compares with generated/).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { COMPILED, DIST } from "../package-root.js";
import { filesUnder } from "../walk.js";

export interface TemplateJs {
  /** File name of the template, e.g. "abn.ts". */
  readonly file: string;
  readonly js: string;
}

/** The settings of tsconfig.json that decide emitted bytes for these files. */
const COMPILER_OPTIONS = { target: "ES2022", module: "ESNext", verbatimModuleSyntax: true, removeComments: false, newLine: "lf" } as const;

function transpile(file: string, source: string): string {
  const ts = createRequire(import.meta.url)("typescript") as typeof import("typescript");
  const { options } = ts.convertCompilerOptionsFromJson(COMPILER_OPTIONS, ".");
  return ts.transpileModule(source, { fileName: file, compilerOptions: options }).outputText;
}

/** Every non-test .ts of templates/<folder>/ (under `root`), sorted, with its JavaScript. */
export function templateJavaScript(root: string, folder: string): TemplateJs[] {
  const dir = join(root, "templates", folder);
  return filesUnder(dir)
    .filter((f) => !f.includes("/") && f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((file) => {
      const js = COMPILED
        ? readFileSync(join(DIST, "templates", folder, file.replace(/\.ts$/, ".js")), "utf8")
        : transpile(file, readFileSync(join(dir, file), "utf8").replace(/\r\n/g, "\n"));
      return { file, js: js.replace(/\r\n/g, "\n") };
    });
}

/** Where `npm run build` writes the bundle of templates/<folder>/ (under dist/). */
export const bundlePath = (folder: string) => join("templates", folder, "bundle.js");

/**
 * Named exports of templates/<folder>/ (export name -> template file) as one ESM module with what they
 * reach. Node 20 takes about 0.3-0.5 ms to load each module of an import graph, more than most of these
 * files take to run, so a generated validator imports one runtime module instead of five. Bundled with
 * esbuild, a dev dependency pinned in the lockfile like TypeScript: from the sources here, compiled from
 * the copy `npm run build` wrote (`bundlePath`), the same bytes either way.
 */
export function templateBundle(root: string, folder: string, exports: Readonly<Record<string, string>>): string {
  if (COMPILED) return readFileSync(join(DIST, bundlePath(folder)), "utf8").replace(/\r\n/g, "\n");
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  const entry = Object.entries(exports).map(([name, file]) => `export { ${name} } from "./${file}";`).join("\n");
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
