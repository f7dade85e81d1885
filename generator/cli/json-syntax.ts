// Where a text stops being JSON (RFC 8259, what JSON.parse accepts), said without quoting any of it: a
// file passed by mistake may hold a secret, and JSON.parse's own message can quote the start of the input.
// Iterative (an explicit stack), so a deeply nested text cannot overflow the call stack.

export interface JsonSyntaxProblem {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in characters (code points) from the start of the line. */
  readonly column: number;
  /** What was expected there, in fixed words. */
  readonly problem: string;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const SHORT_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;

class Stop {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/** The first syntax error of `text`, or undefined when it is JSON. */
export function locateJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  try {
    scan(text);
    return undefined;
  } catch (stop) {
    if (!(stop instanceof Stop)) throw stop;
    return { ...lineAndColumn(text, stop.offset), problem: stop.problem };
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  let line = 1;
  for (let i = before.indexOf("\n"); i !== -1; i = before.indexOf("\n", i + 1)) line++;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}

function scan(text: string): void {
  let i = 0;
  const stack: Array<"}" | "]"> = [];
  const fail = (problem: string): never => {
    throw new Stop(i, i >= text.length ? "unexpected end of input" : problem);
  };
  const skipWhitespace = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      const c = text[i];
      if (c === undefined) return fail("unterminated string");
      if (c === '"') return void i++;
      if (c < " ") return fail("control character in a string (escape it)");
      if (c !== "\\") {
        i++;
        continue;
      }
      const next = text[i + 1];
      if (next !== undefined && SHORT_ESCAPES.has(next)) i += 2;
      else if (next === "u" && ((HEX4.lastIndex = i + 2), HEX4.test(text))) i += 6;
      else return fail("invalid escape in a string");
    }
  };
  const propertyName = () => {
    skipWhitespace();
    if (text[i] !== '"') fail("expected a property name in double quotes");
    string();
    skipWhitespace();
    if (text[i] !== ":") fail("expected ':' after a property name");
    i++;
  };
  const scalar = () => {
    const c = text[i];
    if (c === '"') return string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail("invalid number");
      return void (i = NUMBER.lastIndex);
    }
    for (const word of ["true", "false", "null"]) if (text.startsWith(word, i)) return void (i += word.length);
    fail("expected a value");
  };

  for (;;) {
    // A value is expected here.
    skipWhitespace();
    const open = text[i];
    if (open === "{" || open === "[") {
      i++;
      skipWhitespace();
      const close = open === "{" ? "}" : "]";
      if (text[i] !== close) {
        stack.push(close);
        if (close === "}") propertyName();
        continue;
      }
      i++;
    } else {
      scalar();
    }
    // After a value: close containers, or a comma and the next value.
    for (;;) {
      skipWhitespace();
      const close = stack.at(-1);
      if (close === undefined) {
        if (i < text.length) fail("unexpected text after the document");
        return;
      }
      if (text[i] === close) {
        i++;
        stack.pop();
        continue;
      }
      if (text[i] !== ",") fail(`expected ',' or '${close}'`);
      i++;
      if (close === "}") propertyName();
      break;
    }
  }
}
