// Checks of a request body's text and value that every HTTP layer of the sandbox makes (server.ts on
// node:http, verispec/msw on the Fetch API): no Node built-in here.

/**
 * How deeply the JSON text nests arrays and objects, read without recursion (JSON.stringify and the
 * checks after it recurse: a body of 10^5 nested arrays would overflow the stack in them).
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) max = Math.max(max, ++depth);
    else if (c === 93 || c === 125) depth--;
  }
  return max;
}

/** The paths of every string (value or key) holding U+0000, which Postgres text cannot store; walked without recursion. */
export function nulPaths(value: unknown): (string | number)[][] {
  const out: (string | number)[][] = [];
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\0")) out.push(path);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        if (k.includes("\0")) out.push([...path, k]);
        else stack.push({ value: child, path: [...path, k] });
      }
    }
  }
  return out;
}
