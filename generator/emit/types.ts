// Emits generated/ files for types (filled in by its issue).
import type { Model } from "../model/types.js";
import type { EmitContext } from "../pipeline.js";
import type { OutputFile } from "./output.js";

export function emitTypes(_model: Model, _ctx: EmitContext): OutputFile[] {
  return [];
}
