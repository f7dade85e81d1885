// Where the package's own files are, found from this module's URL and never from the working
// directory: generator/ in the sources, dist/generator/ once compiled (npm run build).
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** True when running the compiled JavaScript of dist/, false when running the TypeScript sources. */
export const COMPILED = basename(dirname(here)) === "dist";

/** The package root: package.json, spec/, templates/ (the TypeScript sources), generated/. */
export const PACKAGE_ROOT = COMPILED ? resolve(here, "..", "..") : resolve(here, "..");

/** Where the compiled JavaScript of the package lives (dist/), whichever way this runs. */
export const DIST = resolve(PACKAGE_ROOT, "dist");

/** The package's own generated JavaScript modules (validators, webhooks): dist/generated/ once compiled. */
export const OWN_GENERATED = COMPILED ? resolve(DIST, "generated") : resolve(PACKAGE_ROOT, "generated");
