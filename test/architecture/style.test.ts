// The formatter and the linter (Biome, biome.jsonc) keep one style: `npm test` runs `biome check` (format and
// lint, a check: nothing is rewritten) over the tree, and fails with its findings, warnings included (a rule
// the recommended set reports as a warning is a finding to fix, not one to keep).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

describe("style", () => {
  it("biome check finds nothing, not even a warning (run `npx biome check .` to see where, `npx biome format --write .` to format)", () => {
    const run = spawnSync(
      process.execPath,
      [join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome"), "check", "--error-on-warnings", "--max-diagnostics=20", "--colors=off", "."],
      { cwd: ROOT, encoding: "utf8", timeout: 120_000 },
    );
    expect(run.error).toBeUndefined();
    expect(run.status, `${run.stdout}\n${run.stderr}`.slice(-6000)).toBe(0);
  }, 150_000);
});
