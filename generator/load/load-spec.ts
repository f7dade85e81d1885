// Load: every YAML file under spec/ as a document that remembers where each value stands.
import { realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from "yaml";
import { diagnostic, SpecError, UsageError, type Diagnostic, type SourcePos } from "../diagnostics.js";
import type { PathSegment } from "../pointer.js";
import { readAtMost, tooLargeMessage } from "../read-bounded.js";
import { filesUnder } from "../walk.js";
import { specHashOf, type HashedFile } from "./spec-hash.js";

export type { PathSegment };

export interface SpecFile {
  /** Path relative to the spec directory, with "/" separators, e.g. "entities/trust.yaml". */
  readonly name: string;
  /** Path shown in diagnostics, e.g. "spec/entities/trust.yaml". */
  readonly displayPath: string;
  readonly data: unknown;
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
}

export interface LoadedSpec {
  readonly dir: string;
  readonly files: readonly SpecFile[];
  /** The content hash of the files read (spec-hash.ts). */
  readonly hash: string;
}

/** The YAML files of the spec, sorted; spec/meta/ holds the meta-schema, not spec data. */
function listYamlFiles(dir: string): string[] {
  return filesUnder(dir, { skipDirs: ["meta"] })
    .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
    .map((f) => join(dir, f));
}

/**
 * A spec file's text: one line instead of Node's error for a broken or looping symbolic link, for a file
 * that resolves outside the spec directory (a link to /proc/self/environ or a .npmrc is never read, so
 * never quoted), and for one over 10 MiB (/dev/zero included: read-bounded.ts).
 */
function readSpecText(specDir: string, path: string): string {
  const shown = displayPathOf(specDir, path);
  try {
    const real = realpathSync(path);
    const inside = relative(realpathSync(specDir), real);
    if (inside === "" || inside.startsWith("..") || isAbsolute(inside))
      throw new UsageError(`spec file ${shown} resolves outside the spec directory; refused (not read)`);
    const bytes = readAtMost(real);
    if (bytes === undefined) throw new UsageError(tooLargeMessage(`spec file ${shown}`, "verispec"));
    return bytes.toString("utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new UsageError(`symbolic link loop in the spec: ${path}`);
    if (code === "ENOENT") throw new UsageError(`broken symbolic link in the spec: ${path}`);
    throw err;
  }
}

export function displayPathOf(specDir: string, file: string): string {
  const rel = relative(join(specDir, ".."), file).split(sep).join("/");
  return rel.startsWith("..") ? file : rel;
}

export function parseSpecFile(specDir: string, file: string, text: string): SpecFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const displayPath = displayPathOf(specDir, file);
  // The first problem only: later ones are usually echoes of it.
  const problems = [...doc.errors, ...doc.warnings].slice(0, 1);
  if (problems.length > 0) {
    const diagnostics: Diagnostic[] = problems.map((e) => {
      const at = lines.linePos(e.pos[0]);
      return diagnostic("VS101", { file: displayPath, line: at.line, col: at.col }, { reason: e.message.split("\n")[0]! });
    });
    throw new SpecError(diagnostics);
  }
  const name = relative(specDir, file).split(sep).join("/");
  return { name, displayPath, data: toData(doc, lines, displayPath), doc, lines };
}

const MAX_ALIAS_COUNT = 100;

/** The document as plain data; aliases expanding past the limit (an "alias bomb") are a diagnostic. */
function toData(doc: Document.Parsed, lines: LineCounter, displayPath: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    let offset = 0;
    visit(doc, {
      Alias(_, node) {
        offset = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const at = lines.linePos(offset);
    throw new SpecError([diagnostic("VS103", { file: displayPath, line: at.line, col: at.col }, { limit: MAX_ALIAS_COUNT })]);
  }
}

/** Reads every spec file; a YAML syntax error anywhere stops here with its position. */
export function loadSpec(specDir: string): LoadedSpec {
  const files: SpecFile[] = [];
  const texts: HashedFile[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of listYamlFiles(specDir)) {
    try {
      const text = readSpecText(specDir, file);
      texts.push({ name: relative(specDir, file).split(sep).join("/"), text });
      files.push(parseSpecFile(specDir, file, text));
    } catch (err) {
      if (err instanceof SpecError) diagnostics.push(...err.diagnostics);
      else throw err;
    }
  }
  if (diagnostics.length > 0) throw new SpecError(diagnostics);
  return { dir: specDir, files, hash: specHashOf(texts) };
}

/**
 * Position of the value at `path` in a file; when the path goes deeper than the document (a missing
 * key), the position of the deepest node that exists. `key: true` points at a mapping key instead.
 */
export function positionOf(file: SpecFile, path: readonly PathSegment[], key = false): SourcePos {
  let node: Node | null | undefined = file.doc.contents as Node | null;
  let offset = node?.range?.[0] ?? 0;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      const keyNode = pair.key as Node;
      if (last && key) {
        offset = keyNode.range?.[0] ?? offset;
        node = undefined;
        break;
      }
      node = pair.value as Node | null;
      offset = node?.range?.[0] ?? keyNode.range?.[0] ?? offset;
    } else if (isSeq(node) && typeof seg === "number") {
      const item = node.items[seg] as Node | undefined;
      if (!item) break;
      node = item;
      offset = item.range?.[0] ?? offset;
    } else {
      break;
    }
  }
  const at = file.lines.linePos(offset);
  return { file: file.displayPath, line: at.line, col: at.col };
}

/** The spec file `name` (e.g. "rules.yaml"); a missing one is VS102. */
export function specFile(spec: LoadedSpec, name: string): SpecFile {
  const f = spec.files.find((x) => x.name === name);
  if (!f) throw new SpecError([diagnostic("VS102", { file: `spec/${name}`, line: 1, col: 1 }, { file: `spec/${name}` })]);
  return f;
}
