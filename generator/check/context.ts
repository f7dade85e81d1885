// What every cross-reference check shares: the loaded spec, where a raw value stands (At), and the
// list the checks report into. The checks run after the meta-schema, so the shapes of the raw values
// are known; what they check is that names refer to something and that facts agree.
import { diagnostic, type Diagnostic, type DiagnosticCode, type Params } from "../diagnostics.js";
import { positionOf, specFile, type LoadedSpec, type SpecFile } from "../load/load-spec.js";
import type { At } from "../load/spec-access.js";

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
