// Helpers for generator tests: a scratch copy of spec/ that a test may break.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");
export const SPEC = join(ROOT, "spec");

export interface ScratchSpec {
  readonly dir: string;
  readonly spec: string;
  /** Replaces `from` (which must occur exactly once) in a spec file. */
  edit(file: string, from: string, to: string): void;
  write(file: string, text: string): void;
  remove(): void;
}

export function scratchSpec(): ScratchSpec {
  const dir = mkdtempSync(join(tmpdir(), "verispec-spec-"));
  const spec = join(dir, "spec");
  cpSync(SPEC, spec, { recursive: true });
  return {
    dir,
    spec,
    edit(file, from, to) {
      const path = join(spec, file);
      const text = readFileSync(path, "utf8");
      const count = text.split(from).length - 1;
      if (count !== 1) throw new Error(`${file}: expected one occurrence of ${JSON.stringify(from)}, found ${count}`);
      writeFileSync(path, text.replace(from, to));
    },
    write(file, text) {
      writeFileSync(join(spec, file), text);
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The v5 `name` maximum lowered from 199 to 99 ("fewer than 100 characters"), with the texts that state it
 * and the service's message (the prose check refuses a number left behind): what the README's "Change the
 * spec" does (test/package/).
 */
export function lowerNameLimit(p: Pick<ScratchSpec, "edit">): void {
  p.edit("rules.yaml", "maxLength: 199", "maxLength: 99");
  p.edit("rules.yaml", "Fewer than 200 characters.", "Fewer than 100 characters.");
  p.edit("v5.yaml", "Fewer than 200 characters.", "Fewer than 100 characters.");
  p.edit("limits.yaml", "fewer than 200 characters", "fewer than 100 characters");
  p.edit("errors.yaml", "Name must be less than 200 characters.", "Name must be less than 100 characters.");
}
