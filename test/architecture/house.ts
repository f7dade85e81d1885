// The house rules of generator/ and templates/ (issue 26), measured with the TypeScript compiler API:
// function lengths, import circles, and imports that run sideways or back up the generator's floors.
// `npx tsx test/architecture/house.ts` prints the figures; house.test.ts holds them to the rules.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const MAX_FUNCTION_LINES = 80;

/** Source files of the house: generator/ and templates/, tests aside. */
export function houseFiles(root = ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")) out.push(path);
    }
  };
  walk("generator");
  walk("templates");
  return out.sort();
}

function parse(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

/** Every function-like node with its line span (a nested function counts inside its parent too). */
export function functionSizes(root = ROOT, files = houseFiles(root)): FunctionSize[] {
  const out: FunctionSize[] = [];
  for (const file of files) {
    const source = parse(root, file);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        out.push({ file, name: functionName(node), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

export interface ImportEdge {
  from: string;
  to: string;
}

/** Relative imports, re-exports and dynamic imports (type-only ones too) between files of the house. */
export function importEdges(root = ROOT, files = houseFiles(root)): ImportEdge[] {
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const source = parse(root, file);
    const add = (spec: ts.Expression | undefined): void => {
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith(".")) return;
      const target = relative(root, resolve(root, dirname(file), spec.text)).replace(/\.js$/, ".ts");
      if (known.has(target)) edges.push({ from: file, to: target });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
      // `await import("./x.js")` loads lazily but still ties the two modules together.
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
      else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal as ts.Expression);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/** Strongly connected components of more than one file (or a file importing itself): the import circles. */
export function importCircles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  const strongConnect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (next.get(v) ?? []).includes(v)) circles.push(component.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) strongConnect(v);
  return circles;
}

/**
 * The generator's floors, lowest first. A file may import its own floor or a lower one; check, model and
 * emit are stages that share only what lies below them (emit reads the model's types, nothing of check).
 */
const FLOORS: Array<[floor: string, rank: number, test: (file: string) => boolean]> = [
  ["base", 0, (f) => /^generator\/(pointer|walk|read-bounded|diagnostics|context|package-root)\.ts$/.test(f)],
  ["load", 1, (f) => f.startsWith("generator/load/")],
  ["check", 2, (f) => f.startsWith("generator/check/")],
  ["model", 3, (f) => f.startsWith("generator/model/")],
  ["emit", 4, (f) => f.startsWith("generator/emit/") || f === "generator/emitters.ts"],
  ["write", 5, (f) => f === "generator/write.ts" || f === "generator/pipeline.ts"],
  ["tools", 6, (f) => f.startsWith("generator/diff/") || f.startsWith("generator/conform/")],
  ["cli", 7, (f) => f.startsWith("generator/cli/") || f === "generator/build.ts"],
];

/** Stage -> the stages beside or below it it may not import (besides any higher floor). */
const SIDEWAYS: Record<string, string[]> = { check: ["model", "emit"], model: ["check", "emit"], emit: ["check"] };

export function floorOf(file: string): { floor: string; rank: number } | undefined {
  const hit = FLOORS.find(([, , test]) => test(file));
  return hit ? { floor: hit[0], rank: hit[1] } : undefined;
}

export interface LayerBreach extends ImportEdge {
  kind: "upward" | "sideways" | "unplaced" | "templates->generator";
}

export function layerBreaches(edges: ImportEdge[]): LayerBreach[] {
  const out: LayerBreach[] = [];
  for (const edge of edges) {
    if (edge.from.startsWith("templates/")) {
      if (edge.to.startsWith("generator/")) out.push({ ...edge, kind: "templates->generator" });
      continue;
    }
    if (!edge.to.startsWith("generator/")) continue;
    const from = floorOf(edge.from);
    const to = floorOf(edge.to);
    if (!from || !to) out.push({ ...edge, kind: "unplaced" });
    else if (to.rank > from.rank) out.push({ ...edge, kind: "upward" });
    else if (SIDEWAYS[from.floor]?.includes(to.floor)) out.push({ ...edge, kind: "sideways" });
  }
  return out;
}

export const SQL_PATTERN = /\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX))\b/s;

/** String and template literals that hold SQL, in templates/ outside templates/sandbox/store/ (file:line). */
export function sqlOutsideStore(root = ROOT, files = houseFiles(root)): string[] {
  const out: string[] = [];
  for (const file of files.filter((f) => f.startsWith("templates/") && !f.startsWith("templates/sandbox/store/"))) {
    const source = parse(root, file);
    const visit = (node: ts.Node): void => {
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) && SQL_PATTERN.test(node.getText(source))) {
        out.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

export interface HouseFigures {
  files: number;
  longest: FunctionSize;
  overLimit: FunctionSize[];
  circles: string[][];
  breaches: LayerBreach[];
  sql: string[];
}

export function measureHouse(root = ROOT): HouseFigures {
  const files = houseFiles(root);
  const sizes = functionSizes(root, files).sort((a, b) => b.lines - a.lines);
  const edges = importEdges(root, files);
  return {
    files: files.length,
    longest: sizes[0]!,
    overLimit: sizes.filter((s) => s.lines > MAX_FUNCTION_LINES),
    circles: importCircles(edges),
    breaches: layerBreaches(edges),
    sql: sqlOutsideStore(root, files),
  };
}

/** Two-letter names that are words or conventions of the trade (an id, a database, a transaction, ms). */
const SHORT_WORDS = new Set([
  "id",
  "at",
  "db",
  "tx",
  "io",
  "ms",
  "ok",
  "to",
  "of",
  "on",
  "in",
  "by",
  "up",
  "os",
  "fs",
  "ts",
  "no",
  "is",
  "as",
  "or",
  "if",
  "do",
  "go",
  "me",
  "we",
  "it",
  "ip",
  "pg",
  "js",
]);

/**
 * Declared names of one or two letters (issue 40: names that hide what they are), as file:line name:
 * variables, parameters, functions and class members, leaving out a one-line lambda's parameters, the
 * variables of a loop's head, `_` and the two-letter words of SHORT_WORDS.
 */
export function shortDeclarations(root = ROOT, files = houseFiles(root)): string[] {
  const out: string[] = [];
  for (const file of files) {
    const source = parse(root, file);
    const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
    const oneLineLambda = (fn: ts.Node) => (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && lineOf(fn.getStart(source)) === lineOf(fn.getEnd());
    const inLoopHead = (node: ts.Node) => {
      const loop = node.parent?.parent;
      return loop !== undefined && (ts.isForStatement(loop) || ts.isForOfStatement(loop) || ts.isForInStatement(loop)) && loop.initializer === node.parent;
    };
    const record = (name: ts.BindingName | ts.PropertyName): void => {
      if (ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name)) {
        for (const element of name.elements) if (ts.isBindingElement(element)) record(element.name);
      } else if (ts.isIdentifier(name) && name.text.length <= 2 && name.text !== "_" && !SHORT_WORDS.has(name.text))
        out.push(`${file}:${lineOf(name.getStart(source))} ${name.text}`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isParameter(node) && !oneLineLambda(node.parent)) record(node.name);
      else if (ts.isVariableDeclaration(node) && !inLoopHead(node)) record(node.name);
      else if ((ts.isFunctionDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) record(node.name);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const f = measureHouse();
  const show = (s: FunctionSize) => `${s.file}:${s.line} ${s.name} ${s.lines} lines`;
  console.log(`files ${f.files}; longest function: ${show(f.longest)}`);
  console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${f.overLimit.length}`);
  for (const s of f.overLimit) console.log(`  ${show(s)}`);
  // templates/ keeps each file under 300 lines (issue 40): the ones still over it.
  const long = houseFiles()
    .filter((file) => file.startsWith("templates/"))
    .map((file) => ({ file, lines: readFileSync(join(ROOT, file), "utf8").split("\n").length - 1 }))
    .filter((x) => x.lines > 300);
  console.log(`templates/ files over 300 lines: ${long.length}`);
  for (const x of long) console.log(`  ${x.file} ${x.lines} lines`);
  console.log(`import circles: ${f.circles.length}`);
  for (const c of f.circles) console.log(`  ${c.join(" <-> ")}`);
  console.log(`layer breaches: ${f.breaches.length}`);
  for (const b of f.breaches) console.log(`  ${b.kind}: ${b.from} -> ${b.to}`);
  console.log(`SQL statements outside templates/sandbox/store/: ${f.sql.length}`);
  for (const at of f.sql) console.log(`  ${at}`);
  console.log(`short declarations (one or two letters, see shortDeclarations): ${shortDeclarations().length}`);
}
