// The one directory walker: every file under a directory, as "/"-separated paths relative to it, in
// sorted order (the same on every machine). Missing directory: no files.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface WalkOptions {
  /** Directory names not to descend into (e.g. "meta" for spec/meta/). */
  readonly skipDirs?: readonly string[];
}

export function filesUnder(dir: string, options: WalkOptions = {}): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!options.skipDirs?.includes(entry.name)) walk(path);
      } else out.push(path);
    }
  };
  walk("");
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
