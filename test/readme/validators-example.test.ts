// The validators guide's example (docs/validators.md) shows real output: the call and its commented result are read from the
// README and the result is compared with what the generated validator returns.
import { describe, expect, it } from "vitest";
import * as validators from "../../generated/validators/index.js";
import { docSection } from "../support/docs.js";

const section = docSection("validators");

/** The first `fn(args);` line of the section's ts block and the `// ...` lines right after it. */
function example(): { fn: string; args: string; result: string } {
  const block = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  const lines = block.split("\n");
  const i = lines.findIndex((l) => /^validate\w*\(.*\);$/.test(l));
  const [, fn, args] = /^(validate\w*)\((.*)\);$/.exec(lines[i]!)!;
  const result: string[] = [];
  for (const l of lines.slice(i + 1)) {
    if (!l.startsWith("//")) break;
    result.push(l.slice(2));
  }
  return { fn: fn!, args: args!, result: result.join("\n") };
}

describe("README validators example", () => {
  it("prints what the validator returns", () => {
    const { fn, args, result } = example();
    expect(result.length).toBeGreaterThan(20);
    // The README writes JavaScript literals (unquoted keys); evaluated here, they are compared as data.
    const literal = (text: string) => new Function(`return (${text});`)() as unknown;
    const call = (validators as unknown as Record<string, (data: unknown) => unknown>)[fn]!;
    expect(call(literal(args))).toEqual(literal(result));
  });
});
