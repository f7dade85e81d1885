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

/** Short text for a YAML value in a message: `"abc"`, `42`, `a mapping`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}..."` : text;
}
