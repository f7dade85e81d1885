// `verispec validate` on input it cannot check: text that is not JSON is located (line, column) and never
// quoted; a UTF-8 byte order mark is accepted; a document over the documented size is refused with one
// line, before it is read whole (a 50 MB file, an endless standard input).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_DOCUMENT_BYTES } from "../../generator/cli/commands/validate.js";
import { locateJsonSyntaxError } from "../../generator/cli/json-syntax.js";
import { main } from "../../generator/cli/main.js";
import { VALIDATE_USAGE } from "../../generator/cli/usage.js";
import { propertyRuns } from "../support/runs.js";
import { ROOT } from "./helpers.js";

async function run(args: string[], stdin = "") {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["validate", ...args], { stdout: (s) => out.push(s), stderr: (s) => err.push(s), env: {}, cwd: ROOT, stdin: async () => stdin });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

const dir = mkdtempSync(join(tmpdir(), "verispec-validate-input-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

describe("text that is not JSON", () => {
  const SECRET = "sk_live_51HxQ2pLmN0tJs0nAtAll";

  it("a secret file passed by mistake: where parsing failed, none of its text", async () => {
    for (const [args, stdin] of [
      [["v5.Envelope", file("secret.txt", `${SECRET}\n`)], ""],
      [["v5.Envelope", "-"], SECRET],
    ] as const) {
      const r = await run([...args], stdin);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/is not JSON: expected a value at line 1, column 1\n$/);
      expect(r.stderr.split("\n")).toHaveLength(2);
      for (const piece of [SECRET.slice(0, 4), "sk_", "'s'"]) expect(r.stderr).not.toContain(piece);
    }
  });

  it.each([
    ['{\n  "a": 1,\n  "b": tru\n}', "expected a value at line 3, column 8"],
    ['{"a": 1,}', "expected a property name in double quotes at line 1, column 9"],
    ["[1, 2", "unexpected end of input at line 1, column 6"],
    ['{"a": "x\ty"}', "control character in a string (escape it) at line 1, column 9"],
    ['{"é": 1} trailing', "unexpected text after the document at line 1, column 10"],
    ['\n\n  {"a" 1}', "expected ':' after a property name at line 3, column 8"],
  ])("%j: %s", async (text, where) => {
    const r = await run(["v5.Envelope", "-"], text);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`verispec: standard input is not JSON: ${where}\n`);
  });

  it("the locator agrees with JSON.parse on what is JSON (property: valid JSON and one-character edits of it)", () => {
    const edited = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom("", "{", "}", "[", "]", ",", ":", '"', "\\", "-", "0", "e", ".", " ", "\t", "t", "\u0001", "\u2028"),
        fc.boolean(),
      )
      .map(([json, at, piece, replace]) => {
        const i = at % (json.length + 1);
        return json.slice(0, i) + piece + json.slice(replace ? i + 1 : i);
      });
    fc.assert(
      fc.property(fc.oneof(fc.json(), edited), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        expect(locateJsonSyntaxError(text) === undefined, JSON.stringify(text)).toBe(parses);
      }),
      { numRuns: propertyRuns(3000) },
    );
  });

  it("deep nesting is located without overflowing the stack", () => {
    expect(locateJsonSyntaxError("[".repeat(1_000_000))).toEqual({ line: 1, column: 1_000_001, problem: "unexpected end of input" });
    expect(locateJsonSyntaxError(`${'{"a":'.repeat(200_000)}1${"}".repeat(200_000)}`)).toBeUndefined();
  });
});

describe("a UTF-8 byte order mark", () => {
  it("is not part of the JSON text: the document is checked (file and standard input)", async () => {
    const withBom = '\uFEFF{"website":"https://x.example"}';
    expect(await run(["v5.VerificationCreateRequest", file("bom.json", withBom)])).toEqual({ code: 0, stdout: '{"valid":true}\n', stderr: "" });
    expect(await run(["v5.VerificationCreateRequest", "-"], withBom)).toEqual({ code: 0, stdout: '{"valid":true}\n', stderr: "" });
    // Only a leading one: a second mark is text that is not JSON.
    expect((await run(["v5.VerificationCreateRequest", "-"], `\uFEFF${withBom}`)).code).toBe(2);
  });
});

describe(`a document larger than ${MAX_DOCUMENT_BYTES} bytes`, () => {
  const refusal = /^verispec: .* is larger than 10,485,760 bytes \(10 MiB\), the most 'verispec validate' reads\n$/;

  it("the size is documented in the command's help", () => {
    expect(MAX_DOCUMENT_BYTES).toBe(10 * 1024 * 1024);
    expect(VALIDATE_USAGE).toContain(`10 MiB (${MAX_DOCUMENT_BYTES.toLocaleString("en-US")} bytes`);
  });

  it("a 50 MB file: one line, exit 2, refused by its size (a sparse file: nothing to read)", async () => {
    const big = join(dir, "big.json");
    writeFileSync(big, "");
    truncateSync(big, 50 * 1024 * 1024);
    const r = await run(["v5.Envelope", big]);
    expect(r).toEqual({ code: 2, stdout: "", stderr: expect.stringMatching(refusal) });
  });

  it("a file of exactly the limit is read (and then judged as JSON)", async () => {
    const exact = file("exact.json", `[${" ".repeat(MAX_DOCUMENT_BYTES - 2)}]`);
    expect(await run(["v5.Envelope", exact])).toMatchObject({ code: 1, stderr: "" });
  });

  it("standard input over the limit (the test's own io)", async () => {
    const r = await run(["v5.Envelope", "-"], " ".repeat(MAX_DOCUMENT_BYTES + 1));
    expect(r).toEqual({ code: 2, stdout: "", stderr: expect.stringMatching(refusal) });
  });

  it("the real process: an endless standard input is refused once it passes the limit, not read to the end", async () => {
    const child = spawn(process.execPath, [join(ROOT, "bin", "verispec.js"), "validate", "v5.Envelope", "-"], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    const write = () => {
      while (!child.stdin.destroyed && child.stdin.write(chunk)) written += chunk.length;
    };
    child.stdin.on("drain", write);
    child.stdin.on("error", () => {}); // EPIPE once the CLI stopped reading: expected
    write();
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(refusal);
    expect(written).toBeLessThan(64 * 1024 * 1024); // it stopped reading: the writer was never let go further
  }, 60_000);
});
