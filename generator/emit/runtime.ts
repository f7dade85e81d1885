// Copies the hand-written runtime (templates/) into generated/runtime/, with the banner.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Model } from "../model/types.js";
import type { EmitContext } from "../context.js";
import { BANNER, type OutputFile } from "./output.js";

/** Template folders copied verbatim; each is real, type-checked TypeScript with its own tests. */
export const RUNTIME_FOLDERS = ["client", "webhooks", "validators"] as const;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const full = join(d, e);
      if (statSync(full).isDirectory()) walk(full);
      else if (e.endsWith(".ts") && !e.endsWith(".test.ts")) out.push(full);
    }
  };
  walk(dir);
  return out;
}

export function emitRuntime(_model: Model, ctx: EmitContext): OutputFile[] {
  const templates = join(ctx.root, "templates");
  const out: OutputFile[] = [];
  for (const folder of RUNTIME_FOLDERS) {
    let files: string[];
    try {
      files = filesUnder(join(templates, folder));
    } catch {
      continue; // a runtime not written yet
    }
    for (const file of files) {
      const path = `runtime/${relative(templates, file).split(sep).join("/")}`;
      const text = readFileSync(file, "utf8").replace(/\r\n/g, "\n");
      out.push({ path, contents: `// ${BANNER}\n${text.endsWith("\n") ? text : `${text}\n`}` });
    }
  }
  return out;
}
