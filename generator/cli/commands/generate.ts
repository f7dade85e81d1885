// `verispec generate`: the spec in, every generated file out, atomically.
import { generateFiles } from "../../pipeline.js";
import { writeAtomically } from "../../write.js";
import type { CommandCall } from "../command-call.js";
import { requireSpecDir } from "./spec-dir.js";

export function generate({ dirs, io }: CommandCall): Promise<number> {
  const files = generateFiles(requireSpecDir(dirs));
  writeAtomically(dirs.out, files);
  io.stdout(`verispec: wrote ${files.length} files to ${dirs.out}\n`);
  return Promise.resolve(0);
}
