// Diagnostics: one error type for every mistake in the spec, always with a source position.

export interface SourcePos {
  readonly file: string; // relative to the spec directory's parent, e.g. "spec/rules.yaml"
  readonly line: number; // 1-based
  readonly col: number; // 1-based
}

export interface Diagnostic {
  readonly pos: SourcePos;
  readonly found: string;
  readonly expected: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.pos.file}:${d.pos.line}:${d.pos.col}: found ${d.found}; expected ${d.expected}`;
}

/** A broken spec: one or more diagnostics. Printed without a stack; generation writes nothing. */
export class SpecError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join("\n"));
    this.name = "SpecError";
    this.diagnostics = diagnostics;
  }
}

/** A user mistake outside the spec (bad CLI call, unreadable file): one clear line, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Text safe to print on a terminal: control characters (C0, DEL, C1) and bidirectional overrides
 * become \xNN or \u{NNNN}, so quoted input cannot move the cursor, recolour or reorder the output.
 */
export function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

/** A file-system failure (Node's error with `code` and `path`) as one line: what failed and where. */
export function describeFsError(err: unknown): string | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!(e instanceof Error) || typeof e.code !== "string" || !/^E[A-Z]+$/.test(e.code) || typeof e.path !== "string") return undefined;
  const what = FS_CODES[e.code] ?? `cannot ${e.syscall ?? "access"} (${e.code})`;
  return `${what}: ${escapeControl(e.path)}`;
}

const FS_CODES: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "a path component is a file, not a directory",
  EISDIR: "a directory where a file was expected",
  ELOOP: "symbolic link loop",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on the device",
  EROFS: "read-only file system",
  EEXIST: "already exists",
  ENOTEMPTY: "directory not empty",
  EBUSY: "busy",
  EMFILE: "too many open files",
};

/** Short text for a YAML value in a message: `"abc"`, `42`, `a mapping`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}..."` : text;
}
