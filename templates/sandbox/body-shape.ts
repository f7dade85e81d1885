// The shape of a JSON body, measured on its text before it is parsed (spec/sandbox.yaml requestArrays):
// its deepest nesting, how many values it holds, and the first array longer than the bound, with that
// array's path. One pass, no recursion and no objects made, so a 10 MiB body of five million array items
// is refused for the cost of reading its bytes, where parsing and validating it took 1.6 GB and 34 s.

export interface ShapeLimits {
  readonly maxItems: number;
  readonly maxValues: number;
  /** Deeper nesting is refused too (default: none), before a parse would build every level. */
  readonly maxDepth?: number;
}

/** What the text holds past the limits: an array over maxItems (its path), or more than maxValues values in all. */
export type ShapeProblem = { readonly kind: "items"; readonly path: (string | number)[] } | { readonly kind: "values" } | { readonly kind: "depth" };

interface Frame {
  readonly array: boolean;
  /** An array's items so far (0 until its first value starts). */
  items: number;
  /** An object's current key. */
  key: string | number;
  /** An object waits for a key (after `{` and `,`). */
  expectKey: boolean;
}

/** The key a JSON string literal spells; a malformed one (the parse refuses the body later) is its raw text. */
function keyText(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal.slice(1, -1);
  }
}

/** The path of the innermost frame's container: each enclosing frame's current key or index. */
function pathOf(frames: readonly Frame[]): (string | number)[] {
  return frames.slice(0, -1).map((f) => (f.array ? f.items - 1 : f.key));
}

/** The first problem of the text's shape, or undefined; JSON syntax is not checked here (the parse does). */
export function shapeProblem(text: string, limits: ShapeLimits): ShapeProblem | undefined {
  const frames: Frame[] = [];
  let values = 1;
  let inString = false;
  let keyStart = -1;
  const startValue = () => {
    const top = frames.at(-1);
    if (top?.array && top.items === 0) top.items = 1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === 34) {
        inString = false;
        if (keyStart >= 0) frames.at(-1)!.key = keyText(text.slice(keyStart, i + 1));
        keyStart = -1;
      }
      continue;
    }
    if (c === 32 || c === 10 || c === 13 || c === 9 || c === 58) continue; // whitespace, ':'
    const top = frames.at(-1);
    if (c === 34) {
      inString = true;
      if (top && !top.array && top.expectKey) {
        keyStart = i;
        top.expectKey = false;
      } else startValue();
    } else if (c === 91 || c === 123) {
      startValue();
      frames.push({ array: c === 91, items: 0, key: "", expectKey: c === 123 });
      if (frames.length > (limits.maxDepth ?? Infinity)) return { kind: "depth" };
    } else if (c === 93 || c === 125) frames.pop();
    else if (c === 44) {
      if (++values > limits.maxValues) return { kind: "values" };
      if (top?.array && ++top.items > limits.maxItems) return { kind: "items", path: pathOf(frames) };
      if (top && !top.array) top.expectKey = true;
    } else startValue();
  }
  return undefined;
}
