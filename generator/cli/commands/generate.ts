// `verispec generate`: the spec in, every generated file out, atomically. With --watch, again on every
// change of the spec directory: one line a run (the files written, or the diagnostics), debounced, and a
// broken spec does not end the watch; SIGINT (Ctrl-C) or SIGTERM ends it with exit 0.
import { watch, type FSWatcher } from "node:fs";
import { relative } from "node:path";
import { describeFsError, SpecError, UsageError } from "../../diagnostics.js";
import { generateFiles } from "../../pipeline.js";
import { writeAtomically } from "../../write.js";
import type { CommandCall } from "../command-call.js";
import { requireSpecDir } from "./spec-dir.js";

/** Changes closer together than this are one run (an editor writes a file in several steps). */
export const WATCH_DEBOUNCE_MS = 150;

function generateOnce({ dirs }: CommandCall): string {
  const files = generateFiles(requireSpecDir(dirs));
  writeAtomically(dirs.out, files);
  return `verispec: wrote ${files.length} files to ${dirs.out}`;
}

export function generate(call: CommandCall): Promise<number> {
  if (call.values.watch) return watchSpec(call);
  call.io.stdout(`${generateOnce(call)}\n`);
  return Promise.resolve(0);
}

/** One watched run: its line on stdout, or the diagnostics (or the one-line error) on stderr. */
function watchedRun(call: CommandCall): void {
  const at = new Date().toISOString().slice(11, 19);
  try {
    call.io.stdout(`[${at}] ${generateOnce(call)}\n`);
  } catch (err) {
    if (err instanceof SpecError) call.io.stderr(`[${at}] verispec: not generated, ${err.diagnostics.length} diagnostic(s); still watching\n${err.message}\n`);
    else if (err instanceof UsageError || describeFsError(err) !== undefined)
      call.io.stderr(`[${at}] verispec: ${err instanceof UsageError ? err.message : describeFsError(err)}; still watching\n`);
    else throw err;
  }
}

function watchSpec(call: CommandCall): Promise<number> {
  const specDir = requireSpecDir(call.dirs);
  watchedRun(call);
  call.io.stdout(`verispec: watching ${relative(call.io.cwd, specDir) || "."} for changes (Ctrl-C to stop)\n`);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    // Recursive watching works on Linux from Node 20 (and on macOS and Windows natively).
    const watcher: FSWatcher = watch(specDir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => watchedRun(call), WATCH_DEBOUNCE_MS);
    });
    const stop = (code: number) => {
      clearTimeout(timer);
      watcher.close();
      process.off("SIGINT", interrupted);
      process.off("SIGTERM", interrupted);
      resolve(code);
    };
    const interrupted = () => stop(0);
    watcher.on("error", (err) => {
      call.io.stderr(`verispec: stopped watching ${specDir}: ${err.message}\n`);
      stop(2);
    });
    process.once("SIGINT", interrupted);
    process.once("SIGTERM", interrupted);
  });
}
