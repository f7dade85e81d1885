// Vitest global setup: a fresh directory for the in-process sandbox tests' database template
// (test/sandbox/inprocess.ts). The first test file that needs a database initialises PGlite once, applies
// the migrations and dumps the data directory there; every other file loads that dump (about 1 s instead
// of initdb's 4 s). Removed at the end of the run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "verispec-pglite-template-"));
  process.env.VERISPEC_PGLITE_TEMPLATE = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    delete process.env.VERISPEC_PGLITE_TEMPLATE;
  };
}
