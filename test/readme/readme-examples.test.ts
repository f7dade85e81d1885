// Every code example of README.md and the guides under docs/ compiles as a whole, as written: each ```ts
// block is one TypeScript module and each ```js block one JavaScript module (checked by tsc with checkJs),
// importing from "verispec" (or a project's own "./generated/...") resolved to the generated output (the package's own entry points are dist/,
// built by `npm run build`). No fragment may call what it did not import or declare.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { docFiles, docSection } from "../support/docs.js";

const root = new URL("../../", import.meta.url).pathname;
const examples = docFiles()
  .filter(([path]) => !path.startsWith("docs/engineering/"))
  .flatMap(([path, text]) =>
    [...text.matchAll(/```(ts|js)\n([\s\S]*?)```/g)].map((m) => ({
      path,
      line: text.slice(0, m.index).split("\n").length,
      lang: m[1] as "ts" | "js",
      code: m[2]!,
    })),
  );

const SOURCES = {
  verispec: ["./generated/index.d.ts"],
  "verispec/validators": ["./generated/validators/index.d.ts"],
  "verispec/webhooks": ["./generated/webhooks.d.ts"],
  "verispec/webhooks/*": ["./generated/runtime/webhooks/*.d.ts"],
  "verispec/sandbox": ["./templates/sandbox/api.ts"],
};
// The JavaScript examples are checked loosely (not strict, as a .js file is), so against the package's
// declarations (dist/, what an installed package has) rather than the strict TypeScript sources.
const DECLARATIONS = {
  verispec: ["./dist/generated/index.d.ts"],
  "verispec/validators": ["./dist/generated/validators/index.d.ts"],
  "verispec/webhooks": ["./dist/generated/webhooks.d.ts"],
  "verispec/webhooks/*": ["./dist/generated/runtime/webhooks/*.d.ts"],
  "verispec/sandbox": ["./dist/templates/sandbox/api.d.ts"],
  "verispec/msw": ["./dist/templates/msw/index.d.ts"],
};

/** tsc's diagnostics for the given examples, each as `<doc>:<line> <message>`. */
function compile(list: typeof examples, extra: ts.CompilerOptions): string[] {
  const { config } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  // Inside test/ so the project's package.json ("type": "module": top-level await) applies.
  const files = list.map((e, i) => {
    const file = join(root, `test/readme/.doc-example-${i}.${e.lang}`);
    // A project's own output (`./generated/...`, docs/your-own-spec.md, the tour) is the repository's generated/.
    const code = e.code.replaceAll('from "./generated/', 'from "../../generated/');
    writeFileSync(file, /^\s*export /m.test(code) ? code : `${code}\nexport {};\n`);
    return { file, e };
  });
  try {
    const program = ts.createProgram(
      files.map((f) => f.file),
      { ...options, noEmit: true, paths: SOURCES, ...extra },
    );
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const at = files.find((f) => f.file === d.file?.fileName);
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const where = at ? `${at.e.path}:${at.e.line + 1 + line}` : (d.file?.fileName ?? "");
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
  } finally {
    for (const f of files) rmSync(f.file, { force: true });
  }
}

describe("the documentation's code examples", () => {
  it("has the client examples", () => {
    const client = docSection("client");
    for (const name of [
      "client.verify(",
      "client.idForm(",
      "client.getVerificationStatus(",
      "client.submitRequestedActions(",
      "client.v5.createVerification(",
      "client.v5.getVerification(",
    ])
      expect(client, name).toContain(name);
    expect(examples.filter((e) => e.lang === "ts").length).toBeGreaterThanOrEqual(8);
    expect(examples.filter((e) => e.path === "README.md" && e.lang === "js").length).toBe(2);
  });

  it("every ```ts block type-checks as a whole module (strict)", () => {
    expect(
      compile(
        examples.filter((e) => e.lang === "ts"),
        {},
      ),
    ).toEqual([]);
  }, 120_000);

  it("every ```js block type-checks as a whole module (checkJs, not strict)", () => {
    expect(
      compile(
        examples.filter((e) => e.lang === "js"),
        { allowJs: true, checkJs: true, strict: false, noImplicitAny: false, skipLibCheck: true, paths: DECLARATIONS },
      ),
    ).toEqual([]);
  }, 120_000);
});
