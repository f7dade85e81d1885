// Copies the hand-written runtime (templates/) into generated/runtime/, with the banner.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { filesUnder } from "../walk.js";
import type { Model } from "../model/types.js";
import type { EmitContext } from "../context.js";
import { BANNER, type OutputFile } from "./output.js";

/** Template folders copied verbatim; each is real, type-checked TypeScript with its own tests. */
export const RUNTIME_FOLDERS = ["client", "lifecycle", "webhooks", "validators"] as const;

export function emitRuntime(_model: Model, ctx: EmitContext): OutputFile[] {
  const templates = join(ctx.root, "templates");
  const out: OutputFile[] = [];
  for (const folder of RUNTIME_FOLDERS) {
    // A runtime not written yet has no files.
    const files = filesUnder(join(templates, folder)).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    for (const file of files) {
      const path = `runtime/${folder}/${file}`;
      const text = readFileSync(join(templates, folder, file), "utf8").replace(/\r\n/g, "\n");
      out.push({ path, contents: `// ${BANNER}\n${text.endsWith("\n") ? text : `${text}\n`}` });
    }
  }
  return out;
}
