// `npm run build` (run by `prepare` after `npm ci` and by `prepack`): compiles generator/, templates/
// and generated/ to dist/ with tsc (tsconfig.build.json), copies the generated validators (JavaScript
// already), and records a hash of its inputs in dist/.inputs so that a test run can tell a stale dist/.
// Development only: it runs from the sources with tsx and is not part of the package.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, sep } from "node:path";
import { PACKAGE_ROOT } from "./package-root.js";
import { filesUnder } from "./walk.js";

const INPUTS = ["generator", "templates", "generated", "tsconfig.json", "tsconfig.build.json"];
const STAMP = join(PACKAGE_ROOT, "dist", ".inputs");

/** A hash of every file dist/ is built from (paths and contents). */
export function inputsHash(root = PACKAGE_ROOT): string {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    const files = statSync(join(root, input)).isDirectory() ? filesUnder(join(root, input), { skipDirs: ["docs"] }).map((f) => `${input}/${f}`) : [input];
    for (const file of files) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update("\0");
  }
  return hash.digest("hex");
}

/** True when dist/ was built from the files as they are now. */
export function distIsCurrent(root = PACKAGE_ROOT): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === inputsHash(root);
}

export function build(root = PACKAGE_ROOT): void {
  const dist = join(root, "dist");
  rmSync(dist, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { cwd: root, stdio: "inherit" });
  cpSync(join(root, "generated", "validators"), join(dist, "generated", "validators"), { recursive: true });
  writeFileSync(STAMP, `${inputsHash(root)}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split(sep).join("/"))) build();
