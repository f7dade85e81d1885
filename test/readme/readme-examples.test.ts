// The README's client examples are type-checked as written: every ```ts block between the
// <!-- client:start --> and <!-- client:end --> markers is one module importing from "verispec",
// resolved to the generated sources (the package's own entry point is dist/, built by `npm run build`).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const readme = readFileSync(join(root, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("<!-- client:start -->"), readme.indexOf("<!-- client:end -->"));
const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe("README client examples", () => {
  it("the client section has its examples", () => {
    expect(section.length).toBeGreaterThan(1000);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const name of ["client.verify(", "client.idForm(", "client.getVerificationStatus(", "client.submitRequestedActions(", "client.v5.createVerification(", "client.v5.getVerification("])
      expect(blocks.join("\n"), name).toContain(name);
  });

  it("every ```ts block type-checks against the generated client", () => {
    const { config } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
    // Inside test/ so the project's package.json ("type": "module": top-level await) applies.
    const files = blocks.map((code, i) => {
      const file = join(root, `test/readme/.readme-example-${i}.ts`);
      writeFileSync(file, code.includes("export ") ? code : `${code}\nexport {};\n`);
      return file;
    });
    try {
      const program = ts.createProgram(files, { ...options, noEmit: true, paths: { verispec: ["./generated/index.ts"] } });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : "";
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
      expect(problems).toEqual([]);
    } finally {
      for (const f of files) rmSync(f, { force: true });
    }
  });
});
