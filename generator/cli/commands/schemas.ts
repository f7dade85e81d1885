// `verispec schemas`: the published schema ids, one a line.
import { publishedSchemaIds } from "../../emit/json-schemas.js";
import { modelFromSpec } from "../../pipeline.js";
import type { CommandCall } from "../table.js";
import { requireSpecDir } from "./spec-dir.js";

export function schemas({ dirs, io }: CommandCall): Promise<number> {
  io.stdout(`${publishedSchemaIds(modelFromSpec(requireSpecDir(dirs))).join("\n")}\n`);
  return Promise.resolve(0);
}
