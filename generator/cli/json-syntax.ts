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
  new Scanner(text).document();
}

/** A JSON text read by hand, stopping (Stop) at the first offset that breaks the grammar. */
class Scanner {
  private i = 0;
  private readonly stack: Array<"}" | "]"> = [];

  constructor(private readonly text: string) {}

  private fail(problem: string): never {
    throw new Stop(this.i, this.i >= this.text.length ? "unexpected end of input" : problem);
  }

  private skipWhitespace(): void {
    while (this.i < this.text.length && WHITESPACE.has(this.text[this.i]!)) this.i++;
  }

  private string(): void {
    const text = this.text;
    this.i++; // the opening quote
    for (;;) {
      const c = text[this.i];
      if (c === undefined) return this.fail("unterminated string");
      if (c === '"') return void this.i++;
      if (c < " ") return this.fail("control character in a string (escape it)");
      if (c !== "\\") {
        this.i++;
        continue;
      }
      const next = text[this.i + 1];
      if (next !== undefined && SHORT_ESCAPES.has(next)) this.i += 2;
      else if (next === "u" && ((HEX4.lastIndex = this.i + 2), HEX4.test(text))) this.i += 6;
      else return this.fail("invalid escape in a string");
    }
  }

  private propertyName(): void {
    this.skipWhitespace();
    if (this.text[this.i] !== '"') this.fail("expected a property name in double quotes");
    this.string();
    this.skipWhitespace();
    if (this.text[this.i] !== ":") this.fail("expected ':' after a property name");
    this.i++;
  }

  private scalar(): void {
    const c = this.text[this.i];
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      NUMBER.lastIndex = this.i;
      if (!NUMBER.test(this.text)) this.fail("invalid number");
      return void (this.i = NUMBER.lastIndex);
    }
    for (const word of ["true", "false", "null"]) if (this.text.startsWith(word, this.i)) return void (this.i += word.length);
    this.fail("expected a value");
  }

  /** A value where one is expected: true when it opened a container that is not empty (its first member comes next). */
  private value(): boolean {
    this.skipWhitespace();
    const open = this.text[this.i];
    if (open !== "{" && open !== "[") {
      this.scalar();
      return false;
    }
    this.i++;
    this.skipWhitespace();
    const close = open === "{" ? "}" : "]";
    if (this.text[this.i] !== close) {
      this.stack.push(close);
      if (close === "}") this.propertyName();
      return true;
    }
    this.i++;
    return false;
  }

  /** After a value: close containers, or a comma and the next member; false at the end of the document. */
  private afterValue(): boolean {
    for (;;) {
      this.skipWhitespace();
      const close = this.stack.at(-1);
      if (close === undefined) {
        if (this.i < this.text.length) this.fail("unexpected text after the document");
        return false;
      }
      if (this.text[this.i] === close) {
        this.i++;
        this.stack.pop();
        continue;
      }
      if (this.text[this.i] !== ",") this.fail(`expected ',' or '${close}'`);
      this.i++;
      if (close === "}") this.propertyName();
      return true;
    }
  }

  document(): void {
    for (;;) {
      if (this.value()) continue;
      if (!this.afterValue()) return;
    }
  }
}
