// The README's validators example shows real output: the call and its commented result are read from the
// README and the result is compared with what the generated validator returns.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as validators from "../../generated/validators/index.js";

const root = new URL("../../", import.meta.url).pathname;
const readme = readFileSync(join(root, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("<!-- validators:start -->"), readme.indexOf("<!-- validators:end -->"));

/** The first `fn(args);` line of the section's js block and the `// ...` lines right after it. */
function example(): { fn: string; args: string; result: string } {
  const block = /```js\n([\s\S]*?)```/.exec(section)![1]!;
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
