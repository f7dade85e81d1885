// The one printing kit for emitters that write TypeScript or JavaScript: literals, unions, property keys,
// JSDoc blocks, and a module's `.js` and `.d.ts` printed from one declaration list.
import { BANNER, type OutputFile } from "./output.js";

/** A JSON value as a source literal. */
export const lit = (v: unknown): string => JSON.stringify(v);

/** A union type of distinct parts; no parts is `never`. */
export const union = (parts: readonly string[]): string => (parts.length ? [...new Set(parts)].join(" | ") : "never");

export const isIdentifier = (k: string): boolean => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k);

/** An object key: bare when it is an identifier, quoted otherwise. */
export const propertyKey = (k: string): string => (isIdentifier(k) ? k : lit(k));

/**
 * A JSDoc block of paragraphs (empty ones dropped); `*\/` inside text cannot end the comment early. One
 * short line prints as `/** text *\/` unless `block`; nothing to say prints nothing.
 */
export function jsdoc(lines: readonly (string | undefined)[], indent: string, { block = false } = {}): string {
  const text = lines
    .filter((l): l is string => !!l)
    .join("\n\n")
    .replace(/\*\//g, "*\\/")
    .trim();
  if (!text && !block) return "";
  const body = text.split("\n");
  if (!block && body.length === 1 && !text.startsWith("@")) return `${indent}/** ${text} */\n`;
  return `${indent}/**\n${body.map((l) => `${indent} *${l ? ` ${l}` : ""}`).join("\n")}\n${indent} */\n`;
}

/** One declaration of a JavaScript module with its `.d.ts` twin. */
export interface Declaration {
  /** Comment lines printed above it in both files (e.g. a JSDoc line). */
  readonly doc?: readonly string[];
  readonly js: string;
  readonly dts: string;
}

/** `<base>.js` and `<base>.d.ts`: the banner, each file's imports, a blank line, then the declarations. */
export function moduleFiles(
  base: string,
  imports: { readonly js: readonly string[]; readonly dts: readonly string[] },
  decls: readonly Declaration[],
): OutputFile[] {
  const print = (side: "js" | "dts") => {
    const lines = [`// ${BANNER}`, ...imports[side]];
    if (decls.length) lines.push("");
    for (const d of decls) lines.push(...(d.doc ?? []), d[side]);
    return `${lines.join("\n")}\n`;
  };
  return [
    { path: `${base}.js`, contents: print("js") },
    { path: `${base}.d.ts`, contents: print("dts") },
  ];
}

/**
 * The type a `.d.ts` declares for a JSON value written `as const` in the `.js`: literals, readonly tuples
 * and readonly objects, one property a line (so a changed value is a one-line diff).
 */
export function constType(value: unknown, indent = ""): string {
  if (value === null || typeof value !== "object") return lit(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) return value.length ? `readonly [\n${value.map((v) => `${inner}${constType(v, inner)}`).join(",\n")}\n${indent}]` : "readonly []";
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.length) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}readonly ${propertyKey(k)}: ${constType(v, inner)};`).join("\n")}\n${indent}}`;
}
