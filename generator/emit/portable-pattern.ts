// A pattern every regular-expression engine reads alike, for openapi.json: OpenAPI tools (Spectral, and
// any JavaScript tool that calls `new RegExp(pattern)`) compile patterns without the `u` flag, where a
// class holding astral-plane characters (two UTF-16 units each) is a different class or a syntax error.
// The portable form keeps every Basic Multilingual Plane item of such a class exactly and admits any
// astral character, written so that JavaScript with and without `u` and Python `re` all mean that:
// - `[\uD800-\uDBFF][\uDC00-\uDFFF]`: an astral character as UTF-16 units (without `u`; never matches
//   with `u` or in Python, where a well-formed pair is one code point);
// - `[^\u0000-\uFFFF]`: an astral code point (with `u` and in Python; never matches without `u`).

/** Any astral character, in every engine (see above). */
export const ANY_ASTRAL = "[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[^\\u0000-\\uFFFF]";

const isAstral = (token: string) => token.length > 1 && !token.startsWith("\\") && token.codePointAt(0)! > 0xffff;

/** The tokens of a class body: escapes (`\uXXXX`, `\x`) and single code points. */
function classTokens(body: string): string[] {
  return body.match(/\\u[0-9A-Fa-f]{4}|\\[\s\S]|[\s\S]/gu) ?? [];
}

/** A non-negated class without its astral items (single characters and ranges), as class text. */
function bmpItems(body: string): string {
  const tokens = classTokens(body);
  let out = "";
  for (let i = 0; i < tokens.length; i++) {
    const range = tokens[i + 1] === "-" && i + 2 < tokens.length;
    const item = range ? [tokens[i]!, tokens[i + 2]!] : [tokens[i]!];
    if (range) i += 2;
    const astral = item.filter(isAstral).length;
    if (astral === item.length) continue;
    if (astral > 0) throw new Error(`a class range crosses from the Basic Multilingual Plane into the astral planes: ${item.join("-")}`);
    out += item.join("-");
  }
  return out;
}

/** Index of the `]` that closes the class opened at `start`. */
function classEnd(chars: readonly string[], start: number): number {
  for (let i = start + 1; i < chars.length; i++) {
    if (chars[i] === "\\") i++;
    else if (chars[i] === "]" && i > start + 1) return i;
  }
  throw new Error("a character class is not closed");
}

/**
 * The portable form of an ECMA-262 (`u`) pattern, or undefined when the pattern already means the same
 * everywhere (it holds no astral character). Only non-negated classes may hold astral characters.
 */
export function portablePattern(pattern: string): string | undefined {
  if (!/[\u{10000}-\u{10FFFF}]/u.test(pattern)) return undefined;
  const chars = Array.from(pattern);
  let out = "";
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === "\\") {
      out += c + (chars[++i] ?? "");
    } else if (c === "[") {
      const end = classEnd(chars, i);
      const body = chars.slice(i + 1, end).join("");
      if (body.startsWith("^") && /[\u{10000}-\u{10FFFF}]/u.test(body)) throw new Error("a negated class holds astral characters");
      const bmp = /[\u{10000}-\u{10FFFF}]/u.test(body) ? bmpItems(body) : undefined;
      out += bmp === undefined ? `[${body}]` : `(?:${bmp ? `[${bmp}]|` : ""}${ANY_ASTRAL})`;
      i = end;
    } else if (isAstral(c)) {
      throw new Error("an astral character outside a class");
    } else {
      out += c;
    }
  }
  return out;
}
