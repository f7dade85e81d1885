// What a command receives: a leaf module, so the command table and the commands it loads import it
// instead of each other (no import circle through the table).
import type { Dirs, Io } from "../context.js";

/** What a command's `run` receives: the parsed call. */
export interface CommandCall {
  readonly io: Io;
  readonly dirs: Dirs;
  /** Positional arguments, already counted against `positionals`. */
  readonly positionals: readonly string[];
  /** Parsed option values (--spec, --out and the command's own). */
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  /** The raw arguments after the command name (for a command that parses its own: `options: "own"`). */
  readonly args: readonly string[];
}
