// Shared by the commands that read a spec: the directory must exist (one line and exit 2 otherwise).
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Dirs } from "../../context.js";
import { UsageError } from "../../diagnostics.js";

export function requireSpecDir(dirs: Dirs): string {
  if (!existsSync(dirs.spec)) throw new UsageError(`no spec directory at ${dirs.spec}`);
  if (!statSync(dirs.spec).isDirectory()) throw new UsageError(`--spec names a file, not a spec directory: ${dirs.spec}`);
  const meta = join(dirs.spec, "meta", "spec.schema.yaml");
  if (!existsSync(meta) || !statSync(meta).isFile()) {
    throw new UsageError(`not a verispec spec directory (no meta/spec.schema.yaml): ${dirs.spec}`);
  }
  return dirs.spec;
}
