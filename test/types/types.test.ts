// Runs the TypeScript compiler on the type fixtures. Each `@ts-expect-error` in them must meet a real
// error (tsc reports an unused one), so the fixtures fail when a type stops rejecting a wrong literal.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const fixture = join(root, "test/types/narrowing.ts");

function diagnostics(files: string[]): ts.Diagnostic[] {
  const { config } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram(files, { ...options, noEmit: true });
  return [...ts.getPreEmitDiagnostics(program)];
}
const format = (d: readonly ts.Diagnostic[]) =>
  d.map((x) => `${x.file?.fileName ?? ""}:${x.file && x.start !== undefined ? x.file.getLineAndCharacterOfPosition(x.start).line + 1 : 0}: ${ts.flattenDiagnosticMessageText(x.messageText, "\n")}`);

describe("generated types", () => {
  it("the narrowing fixture compiles: every expected error occurs, nothing else fails", () => {
    expect(format(diagnostics([fixture]))).toEqual([]);
  });

  it("without its @ts-expect-error lines, the fixture fails exactly on the lines they guarded", () => {
    const lines = readFileSync(fixture, "utf8").split("\n");
    const guarded: number[] = [];
    const stripped = lines.map((l, i) => {
      if (!l.trim().startsWith("// @ts-expect-error")) return l;
      guarded.push(i + 1 + 1); // the next line, 1-based
      return "//"; // keeps the line numbers
    });
    expect(guarded.length).toBeGreaterThanOrEqual(15);
    const copy = join(root, "test/types/.narrowing-stripped.ts");
    writeFileSync(copy, stripped.join("\n"));
    try {
      const errorLines = new Set(
        diagnostics([copy]).filter((d) => d.file?.fileName === copy).map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1),
      );
      for (const line of guarded) expect(errorLines, `line ${line}: ${lines[line - 1]}`).toContain(line);
    } finally {
      ts.sys.deleteFile?.(copy);
    }
  });

  it("the harness fails on an unused @ts-expect-error (it really type-checks)", () => {
    // Inside the project (like the fixture), so the same package.json and module settings apply.
    const file = join(root, "test/types/.unused-check.ts");
    writeFileSync(file, 'import type { UsState } from "../../generated/types.js";\n// @ts-expect-error\nexport const ok: UsState = "IL";\n');
    try {
      expect(format(diagnostics([file])).join("\n")).toMatch(/Unused '@ts-expect-error' directive/);
    } finally {
      ts.sys.deleteFile?.(file);
    }
  });
});
