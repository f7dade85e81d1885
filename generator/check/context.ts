// What every cross-reference check shares: the loaded spec, where a raw value stands (At), and the
// list the checks report into. The checks run after the meta-schema, so the shapes of the raw values
// are known; what they check is that names refer to something and that facts agree.
import { diagnostic, type Diagnostic, type DiagnosticCode, type Params } from "../diagnostics.js";
import { positionOf, specFile, type LoadedSpec, type SpecFile } from "../load/load-spec.js";
import type { PathSegment } from "../pointer.js";

export type Raw = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- shapes are guaranteed by the meta-schema

/** Where a raw value came from. */
export interface At {
  readonly file: SpecFile;
  readonly path: readonly PathSegment[];
}

export const at = (a: At, ...more: PathSegment[]): At => ({ file: a.file, path: [...a.path, ...more] });

/** The raw value at `a`. */
export function rawAt(a: At): Raw {
  let v: unknown = a.file.data;
  for (const s of a.path) v = (v as Raw)[s as string];
  return v as Raw;
}

export class Checks {
  readonly diagnostics: Diagnostic[] = [];
  constructor(readonly spec: LoadedSpec) {}

  file(name: string): SpecFile {
    return specFile(this.spec, name);
  }

  /** The whole raw document of a spec file, and where it stands. */
  root(name: string): At {
    return { file: this.file(name), path: [] };
  }

  /** Reports `code` at `a` (at its key when `key`). */
  report(code: DiagnosticCode, a: At, params: Params = {}, key = false): void {
    this.diagnostics.push(diagnostic(code, positionOf(a.file, a.path, key), params));
  }
}
