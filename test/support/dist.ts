// Vitest global setup: the tests that run the bin (bin/verispec.js imports dist/) and the pack test need
// dist/ built from the sources as they are now. There is no `prepare` (installing the tarball runs no
// script), so after `npm ci` or an edit this
// rebuilds it once, before any test runs.
import { build, distIsCurrent } from "../../generator/build.js";

export default function setup(): void {
  if (distIsCurrent()) return;
  process.stderr.write("dist/ is stale or missing: npm run build\n");
  build();
}
