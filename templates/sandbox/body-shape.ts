// The shape of a JSON body, measured on its bytes as they arrive, before it is parsed (spec/sandbox.yaml
// requestArrays): its nesting, how many values it holds, and the first array longer than the bound, with
// that array's path. One pass over each chunk, no recursion and no objects made (only an object's keys are
// decoded, for the path), so a 10 MiB body of five million array items is refused for the cost of reading
// its bytes, a chunk at a time between other clients' requests, where parsing and validating it took
// 1.6 GB and 34 s. JSON's structural characters are ASCII; UTF-8 never uses those bytes inside a character.

export interface ShapeLimits {
  readonly maxItems: number;
  readonly maxValues: number;
  /** Deeper nesting is refused too (default: none), before a parse would build every level. */
  readonly maxDepth?: number;
}

/** What the body holds past the limits: an array over maxItems (its path), more than maxValues values, or too deep. */
export type ShapeProblem = { readonly kind: "items"; readonly path: (string | number)[] } | { readonly kind: "values" } | { readonly kind: "depth" };

interface Frame {
  readonly array: boolean;
  /** An array's items so far (0 until its first value starts). */
  items: number;
  /** An object's current key: its bytes between the quotes (decoded only when a path names it). */
  key: string | Uint8Array;
  /** An object waits for a key (after `{` and `,`). */
  expectKey: boolean;
}

/** The key a JSON string's bytes (between its quotes) spell; a malformed one (the parse refuses the body later) is its raw text. */
function keyText(bytes: Uint8Array | string): string {
  if (typeof bytes === "string") return bytes;
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8");
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** A body's shape, fed chunk by chunk; `feed` answers the first problem (and every later call the same). */
export class ShapeScanner {
  private readonly frames: Frame[] = [];
  private top: Frame | undefined;
  private values = 1;
  private inString = false;
  private escaped = false;
  /** The bytes of the key being read, chunk by chunk; undefined outside a key. */
  private key: Buffer[] | undefined;
  private problem: ShapeProblem | undefined;

  constructor(private readonly limits: ShapeLimits) {}

  feed(chunk: Uint8Array): ShapeProblem | undefined {
    if (this.problem) return this.problem;
    let keyFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) {
          this.inString = false;
          if (this.key) this.endKey(chunk.subarray(keyFrom, i));
        }
        continue;
      }
      if (c === 32 || c === 10 || c === 13 || c === 9 || c === 58) continue; // whitespace, ':'
      if (c === 34) {
        this.inString = true;
        if (this.top && !this.top.array && this.top.expectKey) {
          this.key = [];
          keyFrom = i + 1;
          this.top.expectKey = false;
        } else this.startValue();
      } else if (c === 91 || c === 123) {
        this.startValue();
        this.top = { array: c === 91, items: 0, key: "", expectKey: c === 123 };
        this.frames.push(this.top);
        if (this.frames.length > (this.limits.maxDepth ?? Infinity)) return (this.problem = { kind: "depth" });
      } else if (c === 93 || c === 125) {
        this.frames.pop();
        this.top = this.frames[this.frames.length - 1];
      } else if (c === 44) {
        if (++this.values > this.limits.maxValues) return (this.problem = { kind: "values" });
        if (this.top?.array && ++this.top.items > this.limits.maxItems) return (this.problem = { kind: "items", path: this.path() });
        if (this.top && !this.top.array) this.top.expectKey = true;
      } else this.startValue();
    }
    if (this.key && this.inString) this.key.push(Buffer.from(chunk.subarray(keyFrom)));
    return undefined;
  }

  private startValue(): void {
    if (this.top?.array && this.top.items === 0) this.top.items = 1;
  }

  /** The key just read: kept as its bytes (a view of the chunk, no copy when the key lies within one chunk). */
  private endKey(last: Uint8Array): void {
    this.top!.key = this.key!.length ? Buffer.concat([...this.key!, last]) : last;
    this.key = undefined;
  }

  /** The path of the innermost container: each enclosing one's current key or index. */
  private path(): (string | number)[] {
    return this.frames.slice(0, -1).map((f) => (f.array ? f.items - 1 : keyText(f.key)));
  }
}

/** The first problem of a whole text's shape, or undefined; JSON syntax is not checked here (the parse does). */
export function shapeProblem(text: string, limits: ShapeLimits): ShapeProblem | undefined {
  return new ShapeScanner(limits).feed(Buffer.from(text, "utf8"));
}
