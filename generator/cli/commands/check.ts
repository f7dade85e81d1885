// `verispec check`: regenerate in memory and compare with the output directory (exit 1 when stale): one line
// per stale file, and the spec hash the output was generated from beside the spec's own, so that CI names
// a spec edited without regenerating (or an update of verispec that changed the output).
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { MANIFEST } from "../../emit/json-schemas.js";
import { generateFiles } from "../../pipeline.js";
import type { OutputFile } from "../../emit/output.js";
import { compareWithDisk, hasDrift } from "../../write.js";
import type { CommandCall } from "../command-call.js";
import { requireSpecDir } from "./spec-dir.js";

/** The spec hash recorded in an output directory's manifest, if it has one. */
function recordedHash(out: string): string | undefined {
  const path = join(out, MANIFEST);
  if (!existsSync(path)) return undefined;
  try {
    const hash = (JSON.parse(readFileSync(path, "utf8")) as { specHash?: unknown }).specHash;
    return typeof hash === "string" ? hash : undefined;
  } catch {
    return undefined;
  }
}

const hashOf = (files: readonly OutputFile[]) => (JSON.parse(files.find((f) => f.path === MANIFEST)!.contents) as { specHash: string }).specHash;

export function check({ dirs, io, values }: CommandCall): Promise<number> {
  const files = generateFiles(requireSpecDir(dirs));
  const drift = compareWithDisk(dirs.out, files);
  const shown = relative(io.cwd, dirs.out) || ".";
  const hash = hashOf(files);
  if (!hasDrift(drift)) {
    io.stdout(`verispec: ${shown}/ is current (${files.length} files, specHash ${hash})\n`);
    return Promise.resolve(0);
  }
  const old = recordedHash(dirs.out);
  const lines = [
    ...drift.changed.map((c) => `changed: ${shown}/${c.path}${values.diff ? `\n${c.diff}` : ""}`),
    ...drift.missing.map((p) => `missing: ${shown}/${p}`),
    ...drift.stale.map((p) => `no longer generated: ${shown}/${p}`),
  ];
  const from = old === undefined ? "" : old === hash ? ` (specHash ${hash} both)` : ` (generated from specHash ${old}; the spec is now specHash ${hash})`;
  io.stdout(`verispec: ${shown}/ is stale${from}; run 'npx verispec generate'\n${lines.join("\n")}\n`);
  return Promise.resolve(1);
}
