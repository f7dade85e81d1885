// What each export of the compiled validators module reaches. Ajv's standalone module is a flat list of
// side-effect-free top-level declarations (imports, constants, functions); an export needs exactly the
// declarations it names, transitively. The validators emitter uses this to give each schema id a module
// of its own holding only its code (importing one validator no longer compiles all of them), and to
// leave out of the shared module what no export reaches.
import ts from "typescript";

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

function declarationsOf(code: string): Declaration[] {
  const file = ts.createSourceFile("validators.js", code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS);
  return file.statements.map((statement) => {
    const declares: string[] = [];
    if (ts.isFunctionDeclaration(statement) && statement.name) declares.push(statement.name.text);
    else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) declares.push(d.name.text);
    } else if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declares.push(bindings.name.text);
      else if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) declares.push(e.name.text);
    } else throw new Error(`validators: unexpected top-level statement in the compiled code: ${statement.getText(file).slice(0, 80)}`);
    // Every identifier in the statement: a superset of its free names, which is all reachability needs
    // (a local that shares a top-level name only keeps one declaration too many).
    const names = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) names.add(node.text);
      ts.forEachChild(node, visit);
    };
    visit(statement);
    return { text: code.slice(statement.getStart(file), statement.end), declares, names, isImport: ts.isImportDeclaration(statement) };
  });
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
