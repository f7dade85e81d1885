// Fixture builder for the diff tests: a copy of the real spec with YAML edits applied (comments and
// layout kept), in a temporary directory named spec/ so positions read `spec/<file>:line`.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument, type Document } from "yaml";

export const REAL_SPEC = join(import.meta.dirname, "..", "..", "spec");

/** One edit of one spec file: `doc` is the parsed file (yaml Document API), or delete the file. */
export type Edit =
  | { readonly file: string; readonly apply: (doc: Document) => void }
  | { readonly file: string; readonly remove: true }
  | { readonly file: string; readonly create: string }
  | { readonly file: string; readonly reword: readonly [from: string, to: string] };

export const set = (file: string, path: readonly unknown[], value: unknown): Edit => ({ file, apply: (d) => d.setIn(path, d.createNode(value)) });
export const del = (file: string, path: readonly unknown[]): Edit => ({
  file,
  apply: (d) => {
    if (!d.hasIn(path)) throw new Error(`fixture: nothing at ${file} ${path.join(".")}`);
    d.deleteIn(path);
  },
});
/** Replaces text in a file wherever it stands (prose that restates a number edited with the number). */
export const reword = (file: string, from: string, to: string): Edit => ({ file, reword: [from, to] });
/** Replaces a list value with `fn(old)`. */
export const mapList = (file: string, path: readonly unknown[], fn: (old: unknown[]) => unknown[]): Edit => ({
  file,
  apply: (d) => {
    const old = (d.getIn(path) as { toJSON(): unknown[] } | undefined)?.toJSON();
    if (!Array.isArray(old)) throw new Error(`fixture: no list at ${file} ${path.join(".")}`);
    const node = d.createNode(fn(old));
    (node as { flow?: boolean }).flow = true;
    d.setIn(path, node);
  },
});

const made: string[] = [];

/** A copy of the real spec with the edits applied; returns the spec directory. */
export function specWith(edits: readonly Edit[]): string {
  const root = mkdtempSync(join(tmpdir(), "verispec-diff-fixture-"));
  made.push(root);
  const dir = join(root, "spec");
  cpSync(REAL_SPEC, dir, { recursive: true });
  for (const e of edits) {
    const file = join(dir, ...e.file.split("/"));
    if ("remove" in e) rmSync(file);
    else if ("create" in e) writeFileSync(file, e.create);
    else if ("reword" in e) {
      const text = readFileSync(file, "utf8");
      if (!text.includes(e.reword[0])) throw new Error(`fixture: no ${JSON.stringify(e.reword[0])} in ${e.file}`);
      writeFileSync(file, text.split(e.reword[0]).join(e.reword[1]));
    } else {
      const doc = parseDocument(readFileSync(file, "utf8"));
      e.apply(doc);
      writeFileSync(file, doc.toString({ lineWidth: 0 }));
    }
  }
  return dir;
}

export function removeFixtures(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** The observed default attempt cap set to `n` in both its homes (statuses.yaml, limits.yaml), prose with it. */
export const defaultCap = (n: number): Edit[] => [
  set("statuses.yaml", ["attempts", "observedDefaultCap"], n),
  set("limits.yaml", ["limits", "verificationAttempts", "observedDefault"], n),
  reword("limits.yaml", "(5 observed as default", `(${n} observed as default`),
  reword("statuses.yaml", "default cap observed is 5", `default cap observed is ${n}`),
];
