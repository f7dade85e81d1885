// The commands behind the CLI: each takes resolved directories and an Io, and returns an exit code.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Io } from "./cli.js";
import { UsageError } from "./diagnostics.js";
import { publishedSchemaIds } from "./emit/json-schemas.js";
import { emitAll, modelFromSpec } from "./pipeline.js";
import { compareWithDisk, hasDrift, writeAtomically } from "./write.js";

export interface Dirs {
  readonly root: string;
  readonly spec: string;
  readonly out: string;
}

export function resolveDirs(cwd: string, spec?: string, out?: string): Dirs {
  return { root: cwd, spec: resolve(cwd, spec ?? "spec"), out: resolve(cwd, out ?? "generated") };
}

function requireSpecDir(dirs: Dirs): void {
  if (!existsSync(dirs.spec)) throw new UsageError(`no spec directory at ${dirs.spec}`);
}

export function runGenerate(dirs: Dirs, io: Io): number {
  requireSpecDir(dirs);
  const files = emitAll(modelFromSpec(dirs.spec), { root: dirs.root });
  writeAtomically(dirs.out, files);
  io.stdout(`verispec: wrote ${files.length} files to ${dirs.out}\n`);
  return 0;
}

export function runCheck(dirs: Dirs, io: Io): number {
  requireSpecDir(dirs);
  const files = emitAll(modelFromSpec(dirs.spec), { root: dirs.root });
  const drift = compareWithDisk(dirs.out, files);
  if (!hasDrift(drift)) {
    io.stdout(`verispec: generated/ is current (${files.length} files)\n`);
    return 0;
  }
  const lines = [
    ...drift.changed.map((c) => `changed: ${c.path}\n${c.diff}`),
    ...drift.missing.map((p) => `missing: ${p}`),
    ...drift.stale.map((p) => `no longer generated: ${p}`),
  ];
  io.stdout(`verispec: generated/ is stale; run 'npx verispec generate'\n${lines.join("\n")}\n`);
  return 1;
}

export function runSchemas(dirs: Dirs, io: Io): number {
  requireSpecDir(dirs);
  io.stdout(`${publishedSchemaIds(modelFromSpec(dirs.spec)).join("\n")}\n`);
  return 0;
}

export async function runValidate(dirs: Dirs, id: string, file: string, io: Io): Promise<number> {
  const { validateCommand } = await import("./commands/validate.js");
  return validateCommand(dirs.out, id, file, io);
}

/** `verispec webhook ...`, with the kit generated from the spec (generated/webhooks.ts). */
export async function runWebhook(args: readonly string[], io: Io): Promise<number> {
  const [{ webhookCommand }, kit] = await Promise.all([import("./commands/webhook.js"), import("../generated/webhooks.js")]);
  return webhookCommand([...args], { stdout: io.stdout, stderr: io.stderr, env: io.env }, kit);
}
