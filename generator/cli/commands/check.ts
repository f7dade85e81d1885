// `verispec check`: regenerate in memory and compare with the output directory (exit 1 when stale).
import { generateFiles } from "../../pipeline.js";
import { compareWithDisk, hasDrift } from "../../write.js";
import type { CommandCall } from "../command-call.js";
import { requireSpecDir } from "./spec-dir.js";

export function check({ dirs, io }: CommandCall): Promise<number> {
  const files = generateFiles(requireSpecDir(dirs));
  const drift = compareWithDisk(dirs.out, files);
  if (!hasDrift(drift)) {
    io.stdout(`verispec: generated/ is current (${files.length} files)\n`);
    return Promise.resolve(0);
  }
  const lines = [
    ...drift.changed.map((c) => `changed: ${c.path}\n${c.diff}`),
    ...drift.missing.map((p) => `missing: ${p}`),
    ...drift.stale.map((p) => `no longer generated: ${p}`),
  ];
  io.stdout(`verispec: generated/ is stale; run 'npx verispec generate'\n${lines.join("\n")}\n`);
  return Promise.resolve(1);
}
