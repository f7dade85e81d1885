// Write: the one place that touches generated/. All files or none: everything is written to a
// temporary directory beside the target, then swapped in with renames.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { OutputFile } from "./emit/output.js";
import { filesUnder } from "./walk.js";

export function writeAtomically(outDir: string, files: readonly OutputFile[]): void {
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const stamp = `${process.pid}-${Date.now()}`;
  const temp = join(parent, `.${baseName(outDir)}.tmp-${stamp}`);
  const old = join(parent, `.${baseName(outDir)}.old-${stamp}`);
  try {
    for (const f of files) {
      const target = join(temp, f.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, f.contents);
    }
    if (files.length === 0) mkdirSync(temp, { recursive: true });
    if (existsSync(outDir)) {
      const docs = join(outDir, "docs"); // built by `verispec docs`, kept across generations
      if (existsSync(docs) && !existsSync(join(temp, "docs"))) renameSync(docs, join(temp, "docs"));
      renameSync(outDir, old);
    }
    renameSync(temp, outDir);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    if (existsSync(old) && !existsSync(outDir)) renameSync(old, outDir);
    throw err;
  }
  rmSync(old, { recursive: true, force: true });
}

function baseName(path: string): string {
  return path.split(sep).filter(Boolean).pop() ?? "generated";
}

/** Every file under a directory, as relative "/" paths, sorted. */
export const listFiles = (dir: string): string[] => filesUnder(dir);

/** generated/docs/ is written by `verispec docs` (an external renderer), not by generate. */
const isBuiltElsewhere = (path: string) => path.startsWith("docs/");

export interface Drift {
  readonly missing: string[];
  readonly stale: string[];
  readonly changed: { path: string; diff: string }[];
}

/** Compares what would be generated with what is on disk. */
export function compareWithDisk(outDir: string, files: readonly OutputFile[]): Drift {
  const wanted = new Map(files.map((f) => [f.path, f.contents]));
  const onDisk = new Set(listFiles(outDir));
  const drift: Drift = { missing: [], stale: [], changed: [] };
  for (const [path, contents] of wanted) {
    if (!onDisk.has(path)) drift.missing.push(path);
    else {
      const current = readFileSync(join(outDir, path), "utf8");
      if (current !== contents) drift.changed.push({ path, diff: shortDiff(current, contents) });
    }
  }
  for (const path of onDisk) if (!wanted.has(path) && !isBuiltElsewhere(path)) drift.stale.push(path);
  drift.missing.sort();
  drift.stale.sort();
  return drift;
}

/** The first differing lines, a few of them: enough to see what changed without a diff tool. */
export function shortDiff(current: string, wanted: string, maxLines = 6): string {
  const a = current.split("\n");
  const b = wanted.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length) && out.length < maxLines * 2; i++) {
    if (a[i] !== b[i]) {
      if (a[i] !== undefined) out.push(`  line ${i + 1} - ${clip(a[i]!)}`);
      if (b[i] !== undefined) out.push(`  line ${i + 1} + ${clip(b[i]!)}`);
    }
  }
  return out.join("\n");
}

const clip = (s: string) => (s.length > 120 ? `${s.slice(0, 117)}...` : s);

export const hasDrift = (d: Drift) => d.missing.length + d.stale.length + d.changed.length > 0;
