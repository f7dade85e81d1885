// What each export of the compiled validators module reaches. Ajv's standalone module is a flat list of
// side-effect-free top-level declarations (imports, constants, functions); an export needs exactly the
// declarations it names, transitively. The validators emitter uses this to give each schema id a module
// of its own holding only its code (importing one validator no longer compiles all of them), and to
// leave out of the shared module what no export reaches.
interface Declaration {
  readonly text: string;
  readonly declares: readonly string[];
  readonly names: ReadonlySet<string>;
  readonly isImport: boolean;
}

export interface Reach {
  /** The code of the declarations reachable from `exports`, in their original order. */
  code(exports: readonly string[], options?: { readonly unexport?: boolean }): string;
}

const IDENTIFIER_START = /[A-Za-z_$]/;
const IDENTIFIER_PART = /[\w$]/;
const HEADS: readonly RegExp[] = [/^(?:export )?const ([A-Za-z_$][\w$]*) =/, /^function ([A-Za-z_$][\w$]*)\(/, /^import \* as ([A-Za-z_$][\w$]*) from /];

/** A `/` after one of these starts a regular expression literal (Ajv's `key.replace(/~/g, "~0")`), not a division. */
const REGEXP_BEFORE = /[(,=:[!&|?{};]/;

function previousCharacter(code: string, i: number): string {
  let j = i - 1;
  while (j >= 0 && /\s/.test(code[j]!)) j--;
  return j < 0 ? ";" : code[j]!;
}

/** The index of the last character of the regular expression literal starting at `i` (its flags included). */
function endOfRegExp(code: string, i: number): number {
  let inClass = false;
  for (i++; i < code.length; i++) {
    const c = code[i]!;
    if (c === "\\") i++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) break;
    else if (c === "\n") break;
  }
  if (code[i] !== "/") throw new Error("validators: an unterminated regular expression in the compiled code");
  while (IDENTIFIER_PART.test(code[i + 1] ?? " ")) i++;
  return i;
}

/**
 * Splits the compiled code into its top-level statements. Ajv's output has no template literals and no
 * line comments inside statements, so strings, block comments, regular expression literals and bracket
 * depth are all a scanner must know; anything else it meets is refused rather than guessed at.
 */
function declarationsOf(code: string): Declaration[] {
  const out: Declaration[] = [];
  let depth = 0;
  let start = -1;
  let names = new Set<string>();
  let commaAtTop = false;
  const finish = (end: number) => {
    const text = code.slice(start, end);
    const head = HEADS.map((h) => h.exec(text)).find((m) => m !== null);
    if (!head || commaAtTop) throw new Error(`validators: unexpected top-level statement in the compiled code: ${text.slice(0, 80)}`);
    out.push({ text, declares: [head[1]!], names, isImport: text.startsWith("import ") });
    start = -1;
    names = new Set();
    commaAtTop = false;
  };
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (start < 0) {
      if (/\s/.test(c)) continue;
      if (c === "/" && code[i + 1] === "/") {
        i = code.indexOf("\n", i);
        if (i < 0) break;
        continue;
      }
      start = i;
    }
    if (c === '"' || c === "'") {
      for (i++; code[i] !== c; i++) {
        if (i >= code.length) throw new Error("validators: an unterminated string in the compiled code");
        if (code[i] === "\\") i++;
      }
    } else if (c === "`") throw new Error("validators: a template literal in the compiled code");
    else if (c === "/" && code[i + 1] === "*") i = code.indexOf("*/", i + 2) + 1;
    else if (c === "/" && code[i + 1] === "/") throw new Error("validators: a line comment inside a statement of the compiled code");
    else if (c === "/" && REGEXP_BEFORE.test(previousCharacter(code, i))) i = endOfRegExp(code, i);
    else if (c === "{" || c === "(" || c === "[") depth++;
    else if (c === "}" || c === ")" || c === "]") {
      depth--;
      if (depth === 0 && c === "}" && code.startsWith("function ", start)) finish(i + 1);
    } else if (c === "," && depth === 0) commaAtTop = true;
    else if (c === ";" && depth === 0) finish(i + 1);
    else if (IDENTIFIER_START.test(c) && !IDENTIFIER_PART.test(code[i - 1] ?? " ")) {
      // Every identifier of the statement: a superset of its free names, which is all reachability
      // needs (a local sharing a top-level name keeps one declaration too many, never one too few).
      let j = i + 1;
      while (j < code.length && IDENTIFIER_PART.test(code[j]!)) j++;
      names.add(code.slice(i, j));
      i = j - 1;
    }
  }
  if (start >= 0 || depth !== 0) throw new Error("validators: the compiled code ends inside a statement");
  return out;
}

export function reachOf(code: string): Reach {
  const declarations = declarationsOf(code);
  const where = new Map<string, number>();
  declarations.forEach((d, i) => d.declares.forEach((name) => where.set(name, i)));
  return {
    code(exports, { unexport = false } = {}) {
      const seen = new Set<number>();
      const stack: number[] = [];
      for (const name of exports) {
        const i = where.get(name);
        if (i === undefined) throw new Error(`validators: the compiled code declares no ${name}`);
        seen.add(i);
        stack.push(i);
      }
      while (stack.length > 0) {
        for (const name of declarations[stack.pop()!]!.names) {
          const i = where.get(name);
          if (i !== undefined && !seen.has(i)) {
            seen.add(i);
            stack.push(i);
          }
        }
      }
      const kept = [...seen].sort((a, b) => a - b).map((i) => declarations[i]!);
      const imports = kept.filter((d) => d.isImport).map((d) => d.text);
      const body = kept.filter((d) => !d.isImport).map((d) => (unexport ? d.text.replace(/^export /, "") : d.text));
      return [...imports, body.join("")].join("\n");
    },
  };
}
