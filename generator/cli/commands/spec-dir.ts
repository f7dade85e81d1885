// Shared by the commands that read a spec: the directory must exist (one line and exit 2 otherwise).
import { existsSync } from "node:fs";
import type { Dirs } from "../../context.js";
import { UsageError } from "../../diagnostics.js";

export function requireSpecDir(dirs: Dirs): string {
  if (!existsSync(dirs.spec)) throw new UsageError(`no spec directory at ${dirs.spec}`);
  return dirs.spec;
}
