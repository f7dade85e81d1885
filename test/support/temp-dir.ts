// Tests leave nothing behind in the temp directory (issue 13): every test process gets one fresh
// TMPDIR for the run (os.tmpdir() reads it), and at the end the run fails, naming them, if anything is
// left in it; then it is removed. Other processes sharing /tmp cannot disturb the check.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const run = mkdtempSync(join(tmpdir(), "verispec-test-run-"));
  process.env.TMPDIR = run;
  return () => {
    // tsx keeps its compile cache in $TMPDIR/tsx-<uid> by design: a tool's cache, not a test's leftover.
    const left = readdirSync(run)
      .filter((e) => !/^tsx-\d+$/.test(e))
      .sort();
    rmSync(run, { recursive: true, force: true });
    if (!left.length) return;
    // An error thrown here is printed but does not change vitest's exit code; the exit code must.
    process.stderr.write(`verispec: tests left ${left.length} entries in the temp directory: ${left.join(", ")}\n`);
    process.exitCode = 1;
  };
}
