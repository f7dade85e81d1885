// Declarations grouped into namespaces, printed.
import type { Decl } from "./declarations.js";

/** Renders declarations grouped into `export declare namespace` blocks (type-only: nothing at runtime). */
export function render(decls: readonly Decl[]): string {
  interface Node {
    text: string[];
    children: Map<string, Node>;
  }
  const root: Node = { text: [], children: new Map() };
  for (const d of decls) {
    let node = root;
    for (const n of d.ns) {
      if (!node.children.has(n)) node.children.set(n, { text: [], children: new Map() });
      node = node.children.get(n)!;
    }
    node.text.push(d.text("  ".repeat(d.ns.length)));
  }
  const print = (node: Node, depth: number): string[] => {
    const indent = "  ".repeat(depth);
    const out = [...node.text];
    for (const [name, child] of node.children) {
      out.push(`${indent}${depth === 0 ? "export declare" : "export"} namespace ${name} {\n${print(child, depth + 1).join("\n")}${indent}}\n`);
    }
    return out;
  };
  return print(root, 0).join("\n");
}
