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
