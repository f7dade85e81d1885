// The CLI: finds the command in the table, parses its arguments, runs it, and turns user mistakes into
// one clear line and exit 2 (a spec mistake: its diagnostics). Internal errors keep their stack.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Dirs, Io } from "../context.js";
import { describeFsError, SpecError, UsageError } from "../diagnostics.js";
import { PACKAGE_ROOT } from "../package-root.js";
import { COMMANDS, mainUsage, type Command } from "./table.js";
import type { CommandCall } from "./command-call.js";

function usageError(io: Io, usage: string, message: string): number {
  io.stderr(`verispec: ${message}\n\n${usage}\n`);
  return 2;
}

/**
 * --spec and --out against the working directory. Without --spec: ./spec when it exists, else the
 * package's own spec (so `npx verispec generate` works in any directory).
 */
export function resolveDirs(cwd: string, spec?: string, out?: string): Dirs {
  const local = resolve(cwd, "spec");
  const specDir = spec !== undefined ? resolve(cwd, spec) : existsSync(local) ? local : resolve(PACKAGE_ROOT, "spec");
  return { spec: specDir, out: resolve(cwd, out ?? "generated"), outGiven: out !== undefined };
}

async function runCommand(command: Command, args: readonly string[], io: Io): Promise<number> {
  if (command.options === "own") return command.run({ io, dirs: resolveDirs(io.cwd), positionals: [], values: {}, args });
  let parsed: { values: CommandCall["values"]; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: command.positionals !== undefined,
      strict: true,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    return usageError(io, command.usage, (err as Error).message);
  }
  if (parsed.values.help) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  if (command.positionals && parsed.positionals.length !== command.positionals.count) return usageError(io, command.usage, command.positionals.message);
  const values = parsed.values as Record<string, string | undefined>;
  const dirs = resolveDirs(io.cwd, values.spec, values.out);
  return command.run({ io, dirs, positionals: parsed.positionals, values: parsed.values, args });
}

/** Runs one CLI call; returns the exit code. Never throws for user mistakes. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    io.stdout(`${mainUsage()}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return usageError(io, mainUsage(), `unknown command ${JSON.stringify(name)}`);
  try {
    return await runCommand(command, rest, io);
  } catch (err) {
    if (err instanceof SpecError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      io.stderr(`verispec: ${err.message}\n`);
      return 2;
    }
    // Any other file-system failure (unreadable file, full disk, ...): one line, not a stack.
    const fs = describeFsError(err);
    if (fs !== undefined) {
      io.stderr(`verispec: ${fs}\n`);
      return 2;
    }
    throw err;
  }
}
