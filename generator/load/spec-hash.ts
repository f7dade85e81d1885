// The content hash of a spec: the one identity the generated entry (`specHash`), the sandbox's start line,
// `conform`'s report and `verispec check` all print, so that two parts built from different specs are
// visible as such. SHA-256 over each file's path (relative, "/" separated) and text, in path order; the
// first 16 hex digits (64 bits) name a spec well enough to tell two apart and stay readable in a line.
import { createHash } from "node:crypto";

export interface HashedFile {
  /** Path relative to the spec directory, "/" separated. */
  readonly name: string;
  readonly text: string;
}

export function specHashOf(files: readonly HashedFile[]): string {
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) hash.update(`${f.name}\0`).update(f.text).update("\0");
  return hash.digest("hex").slice(0, 16);
}
