// Whether one pattern provably accepts every string another accepts (`acceptsAll(wider, narrower)`), for
// `verispec diff`: a changed request pattern is breaking unless the new one accepts a superset of the old.
// Sound, not complete: "true" is a proof over a small regex subset (literals, escapes, classes, groups,
// alternation, quantifiers, ^ and $ at the ends); anything else, or any doubt, is "false" (not proven).
// Patterns are read as JSON Schema reads them: ECMA-262 with the `u` flag, unanchored unless ^ / $.

type Ranges = readonly (readonly [number, number])[];
type Node =
  | { readonly kind: "set"; readonly ranges: Ranges }
  | { readonly kind: "seq"; readonly items: readonly Node[] }
  | { readonly kind: "alt"; readonly options: readonly Node[] }
  | { readonly kind: "rep"; readonly node: Node; readonly min: number; readonly max: number };

const MAX_CP = 0x10ffff;
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

function normalize(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(ranges: Ranges): Ranges {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

const rangesWithin = (a: Ranges, b: Ranges) => normalize(a).every(([lo, hi]) => normalize(b).some(([l, h]) => l <= lo && hi <= h));

class Unsupported extends Error {}

/** A tiny recursive-descent reader of the subset; throws Unsupported on anything else. */
class Reader {
  private position = 0;
  private readonly cps: number[];
  constructor(text: string) {
    this.cps = [...text].map((c) => c.codePointAt(0)!);
  }
  private peek(): string | undefined {
    const char = this.cps[this.position];
    return char === undefined ? undefined : String.fromCodePoint(char);
  }
  private take(): string {
    const char = this.peek();
    if (char === undefined) throw new Unsupported();
    this.position += 1;
    return char;
  }
  get done(): boolean {
    return this.position >= this.cps.length;
  }
  atEndAnchor(): boolean {
    return this.position === this.cps.length - 1 && this.peek() === "$";
  }
  eat(char: string): boolean {
    if (this.peek() !== char) return false;
    this.position += 1;
    return true;
  }

  alternation(): Node {
    const options = [this.sequence()];
    while (this.eat("|")) options.push(this.sequence());
    return options.length === 1 ? options[0]! : { kind: "alt", options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (!this.done && this.peek() !== "|" && this.peek() !== ")" && !this.atEndAnchor()) {
      const item = this.quantified(this.atom());
      items.push(...(item.kind === "seq" ? item.items : [item])); // (?:ab)c reads as abc
    }
    return items.length === 1 ? items[0]! : { kind: "seq", items };
  }

  private atom(): Node {
    const char = this.take();
    if (char === "(") {
      if (this.eat("?")) {
        if (!this.eat(":")) throw new Unsupported(); // lookarounds, named groups
      }
      const inner = this.alternation();
      if (!this.eat(")")) throw new Unsupported();
      return inner;
    }
    if (char === "[") return this.characterClass();
    if (char === ".") return { kind: "set", ranges: complement(LINE_TERMINATORS) };
    if (char === "\\") return { kind: "set", ranges: this.escape(false) };
    if ("^$*+?{})|]".includes(char)) throw new Unsupported();
    const codePoint = char.codePointAt(0)!;
    return { kind: "set", ranges: [[codePoint, codePoint]] };
  }

  private quantified(node: Node): Node {
    let min: number;
    let max: number;
    if (this.eat("*")) [min, max] = [0, Infinity];
    else if (this.eat("+")) [min, max] = [1, Infinity];
    else if (this.eat("?")) [min, max] = [0, 1];
    else if (this.peek() === "{") {
      this.take();
      const lower = this.number();
      let upper = lower;
      if (this.eat(",")) upper = this.peek() === "}" ? Infinity : this.number();
      if (!this.eat("}") || upper < lower) throw new Unsupported();
      [min, max] = [lower, upper];
    } else return node;
    this.eat("?"); // lazy: the same language
    return { kind: "rep", node, min, max };
  }

  private number(): number {
    let text = "";
    while (this.peek() !== undefined && /[0-9]/.test(this.peek()!)) text += this.take();
    if (text === "") throw new Unsupported();
    return Number(text);
  }

  /** After a backslash: a class escape or one character. */
  private escape(inClass: boolean): Ranges {
    const char = this.take();
    const classes: Record<string, Ranges> = { d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE) };
    if (classes[char]) return classes[char];
    const controls: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, f: 0x0c, 0: 0 };
    if (controls[char] !== undefined) return [[controls[char], controls[char]]];
    if (char === "u") {
      let hex = "";
      if (this.eat("{")) {
        while (this.peek() !== "}") hex += this.take();
        this.take();
      } else for (let k = 0; k < 4; k++) hex += this.take();
      if (!/^[0-9A-Fa-f]{1,6}$/.test(hex)) throw new Unsupported();
      const codePoint = parseInt(hex, 16);
      return [[codePoint, codePoint]];
    }
    if (char === "x") {
      const hex = this.take() + this.take();
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new Unsupported();
      return [[parseInt(hex, 16), parseInt(hex, 16)]];
    }
    if (char === "-" && inClass) return [[0x2d, 0x2d]];
    // Syntax characters escaped stand for themselves (the `u` flag allows no other identity escape).
    if (!"^$\\.*+?()[]{}|/".includes(char)) throw new Unsupported(); // \b, \B, \p{..}, back-references
    const codePoint = char.codePointAt(0)!;
    return [[codePoint, codePoint]];
  }

  private characterClass(): Node {
    const negated = this.eat("^");
    const ranges: [number, number][] = [];
    const single = (): Ranges => {
      const char = this.take();
      if (char === "\\") return this.escape(true);
      const codePoint = char.codePointAt(0)!;
      return [[codePoint, codePoint]];
    };
    while (!this.eat("]")) {
      const first = single();
      if (this.peek() === "-" && this.cps[this.position + 1] !== undefined && String.fromCodePoint(this.cps[this.position + 1]!) !== "]") {
        this.take();
        const last = single();
        if (first.length !== 1 || last.length !== 1 || first[0]![0] !== first[0]![1] || last[0]![0] !== last[0]![1] || last[0]![0] < first[0]![0])
          throw new Unsupported();
        ranges.push([first[0]![0], last[0]![0]]);
      } else ranges.push(...first.map(([a, b]): [number, number] => [a, b]));
    }
    return { kind: "set", ranges: negated ? complement(ranges) : normalize(ranges) };
  }
}

interface Parsed {
  readonly start: boolean;
  readonly end: boolean;
  readonly body: Node;
}

function parse(pattern: string): Parsed | undefined {
  try {
    const reader = new Reader(pattern);
    const start = reader.eat("^");
    const body = reader.alternation();
    const end = reader.eat("$");
    return reader.done ? { start, end, body } : undefined;
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}

const asRep = (n: Node): { node: Node; min: number; max: number } => (n.kind === "rep" ? n : { node: n, min: 1, max: 1 });
const itemsOf = (n: Node): readonly Node[] => (n.kind === "seq" ? n.items : [n]);

/** Whether a node accepts the empty string. */
function nullable(node: Node): boolean {
  if (node.kind === "set") return false;
  if (node.kind === "rep") return node.min === 0 || nullable(node.node);
  if (node.kind === "seq") return node.items.every(nullable);
  return node.options.some(nullable);
}

/** L(a) ⊆ L(b), proven structurally (false: not proven). */
function within(inner: Node, outer: Node): boolean {
  if (inner.kind === "alt") return inner.options.every((o) => within(o, outer));
  if (outer.kind === "alt" && outer.options.some((o) => within(inner, o))) return true;
  if (inner.kind === "set" && outer.kind === "set") return rangesWithin(inner.ranges, outer.ranges);
  const [innerItems, outerItems] = [itemsOf(inner), itemsOf(outer)];
  if (innerItems.length === 1 && outerItems.length === 1) {
    const [innerRep, outerRep] = [asRep(inner), asRep(outer)];
    if (innerRep.node === inner && outerRep.node === outer) return false; // two non-repeats of different kinds
    return outerRep.min <= innerRep.min && innerRep.max <= outerRep.max && within(innerRep.node, outerRep.node);
  }
  return seqWithin(innerItems, outerItems);
}

/**
 * A sequence within another: consecutive runs of `a`'s items, in order, each within one item of `b`;
 * the items of `b` left over accept the empty string (`5` within `5(-4)?`, `ab|c` within `(?:ab|c)Z?`).
 */
function seqWithin(inner: readonly Node[], outer: readonly Node[]): boolean {
  const memo = new Map<string, boolean>();
  // Runs longer than one item only into an alternation (its options are compared), and never the whole
  // of `a` into the whole of `b` (the call this one came from).
  const runs = (i: number, j: number) =>
    Array.from({ length: inner.length - i }, (_, n) => i + n + 1).filter(
      (k) => k === i + 1 || (outer[j]!.kind === "alt" && !(k - i === inner.length && outer.length === 1)),
    );
  const go = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const result =
      (i === inner.length && outer.slice(j).every(nullable)) ||
      (j < outer.length && nullable(outer[j]!) && go(i, j + 1)) ||
      (j < outer.length && runs(i, j).some((k) => within(k === i + 1 ? inner[i]! : { kind: "seq", items: inner.slice(i, k) }, outer[j]!) && go(k, j + 1)));
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

/**
 * Whether `wider` provably accepts every string `narrower` accepts (identical text counts). An anchor in
 * `wider` that `narrower` lacks narrows; one `wider` drops widens.
 */
export function acceptsAll(wider: string, narrower: string): boolean {
  if (wider === narrower) return true;
  const [widerParsed, narrowerParsed] = [parse(wider), parse(narrower)];
  if (!widerParsed || !narrowerParsed) return false;
  if ((widerParsed.start && !narrowerParsed.start) || (widerParsed.end && !narrowerParsed.end)) return false;
  return within(narrowerParsed.body, widerParsed.body);
}
