// What every model builder shares: the checked spec and its files' raw documents.
import { specFile, type LoadedSpec, type SpecFile } from "../load/load-spec.js";
import { rawAt, type Raw } from "../load/spec-access.js";

export class ModelContext {
  constructor(readonly spec: LoadedSpec) {}

  file(name: string): SpecFile {
    return specFile(this.spec, name);
  }

  /** The whole raw document of a spec file. */
  root(name: string): Raw {
    return rawAt({ file: this.file(name), path: [] });
  }
}
