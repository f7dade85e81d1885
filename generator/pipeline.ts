// The straight line: load -> check -> model -> emit. Writing is the caller's choice (generate or check).
import { checkSpec } from "./check/index.js";
import type { EmitContext } from "./context.js";
import { SpecError } from "./diagnostics.js";
import { EMITTERS } from "./emitters.js";
import type { OutputFile } from "./emit/output.js";
import { loadSpec } from "./load/load-spec.js";
import { buildModel } from "./model/build-model.js";
import { PACKAGE_ROOT } from "./package-root.js";
import type { Model } from "./model/types.js";

export function modelFromSpec(specDir: string): Model {
  const spec = loadSpec(specDir);
  const diagnostics = checkSpec(spec);
  if (diagnostics.length > 0) throw new SpecError(diagnostics);
  return buildModel(spec);
}

const OWN: EmitContext = { root: PACKAGE_ROOT };

export function emitAll(model: Model, ctx: EmitContext = OWN): OutputFile[] {
  const files = EMITTERS.flatMap((emit) => emit(model, ctx));
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`two emitters wrote ${f.path}`);
    seen.add(f.path);
    if (!f.contents.endsWith("\n") || f.contents.includes("\r")) throw new Error(`${f.path}: output must use LF and end with a newline`);
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function generateFiles(specDir: string, ctx: EmitContext = OWN): OutputFile[] {
  return emitAll(modelFromSpec(specDir), ctx);
}
