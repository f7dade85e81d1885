// A generate killed at any step (SIGKILL, no cleanup of any kind) is recovered at the next start:
// the old or the new complete set, never a mix, never nothing. A child process per step: slow, so
// `npm run mutate` leaves this file out (write-safety.test.ts throws at the same steps in-process).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listFiles, recoverInterrupted, WORK_DIR, writeAtomically } from "../../generator/write.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "verispec-kill-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const files = (label: string) => ["a.json", "b/c.json", "b/d.json", "e.ts"].map((path) => ({ path, contents: `${label} ${path}\n` }));
const contentsOf = (out: string) => Object.fromEntries(listFiles(out).map((p) => [p, readFileSync(join(out, p), "utf8")]));
function expectedSet(label: string): Record<string, string> {
  const scratch = join(dir, `expected-${label}`);
  writeAtomically(scratch, files(label), { cwd: dir });
  const set = contentsOf(scratch);
  rmSync(scratch, { recursive: true });
  return { ...set, "docs/index.html": "<html></html>\n" };
}

describe("a generate killed at any step", () => {
  const child = join(import.meta.dirname, "write-fault-child.ts");
  const kill = (out: string, at: number) => spawnSync(process.execPath, ["--import", "tsx", child, out, String(at), "new"], { encoding: "utf8" });

  it("is recovered at the next start: the old or the new complete set, never a mix, never nothing", () => {
    const out = join(dir, "generated");
    const old = expectedSet("old");
    const fresh = expectedSet("new");
    const outcomes: string[] = [];
    for (let at = 0; ; at++) {
      rmSync(out, { recursive: true, force: true });
      writeAtomically(out, files("old"), { cwd: dir });
      mkdirSync(join(out, "docs"));
      writeFileSync(join(out, "docs", "index.html"), "<html></html>\n");
      const run = kill(out, at);
      if (run.status === 0) break; // past the last step: the write finished
      expect(run.signal).toBe("SIGKILL");
      recoverInterrupted(out);
      const now = contentsOf(out);
      outcomes.push(isDeepStrictEqual(now, old) ? "old" : "new");
      expect([old, fresh]).toContainEqual(now);
      expect(readdirSync(dir).sort()).toEqual(["generated"]);
    }
    // Killed after each file, after moving the old output aside (between the two renames), after
    // moving docs/, and after the swap: the last two land on the new set.
    expect(outcomes.length).toBe(files("x").length + 1 + 3 + 1);
    expect(outcomes.at(-1)).toBe("new");
    expect(outcomes.filter((o) => o === "old").length).toBe(outcomes.length - 2);
    expect(existsSync(join(dir, WORK_DIR))).toBe(false);
  }, 60_000);
});
