// The generated validators are real ESM that plain `node` imports, without Ajv compiling at start-up,
// deterministic, and split so that a bundle of one validator holds only what it reaches.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { emitValidators } from "../../generator/emit/validators/index.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { schemaIds, validateV4EntitiesTrust, validateV5VerificationCreateRequest } from "../../generated/validators/index.js";
import { ROOT } from "./helpers.js";

const GENERATED = join(ROOT, "generated");
const jsFiles = (dir: string) =>
  readdirSync(join(GENERATED, dir))
    .filter((f) => f.endsWith(".js"))
    .map((f) => join(GENERATED, dir, f));

describe("generated/validators", () => {
  it("plain node (no tsx) imports index.js and validates", () => {
    const script = `import("./generated/validators/index.js").then((m) => console.log(JSON.stringify(m.validate("v5.VerificationCreateRequest", { website: "" }))))`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, errors: [{ message: "Website is required.", code: "too_small", path: ["website"] }] });
  });
  it("has no require( and imports nothing from ajv", () => {
    const files = jsFiles("validators");
    expect(files.map((f) => f.slice(f.lastIndexOf("/") + 1))).toContain("runtime.js");
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(/\brequire\(/);
      expect(text, file).not.toMatch(/from "ajv/);
    }
  });
  it("one validator's module loads three modules in all: itself, runtime.js and errors.js", () => {
    // Node 20 spends 0.3-0.5 ms loading each module of a graph: the runtime is one bundled module.
    const importsOf = (file: string) => [...readFileSync(file, "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(importsOf(join(GENERATED, "validators", "runtime.js"))).toEqual([]);
    expect(importsOf(join(GENERATED, "validators", "errors.js"))).toEqual([]);
    for (const id of schemaIds) {
      const specifiers = new Set(importsOf(join(GENERATED, "validators", `${id}.js`)));
      expect(
        [...specifiers].filter((s) => s !== "./runtime.js" && s !== "./errors.js"),
        id,
      ).toEqual([]);
      expect(specifiers.has("./runtime.js"), id).toBe(true);
    }
  });
  it("ships the runtime's code once: runtime.js, typed by the declarations of generated/runtime/validators/, which holds no code", () => {
    const runtime = readdirSync(join(GENERATED, "runtime", "validators"));
    expect(runtime).toContain("validator.d.ts");
    expect(runtime.filter((f) => !f.endsWith(".d.ts"))).toEqual([]);
    // runtime.d.ts declares every export of runtime.js, each from a declaration file that exists.
    const exported = [...readFileSync(join(GENERATED, "validators", "runtime.js"), "utf8").matchAll(/^export \{([^}]*)\}/gm)].flatMap((m) =>
      m[1]!.split(",").map(
        (s) =>
          s
            .trim()
            .split(/\s+as\s+/)
            .pop()!,
      ),
    );
    const declared = [
      ...readFileSync(join(GENERATED, "validators", "runtime.d.ts"), "utf8").matchAll(/^export \{ (\w+) \} from "\.\.\/runtime\/validators\/([\w-]+)\.js";$/gm),
    ];
    expect(declared.map((m) => m[1]).sort()).toEqual(exported.filter(Boolean).sort());
    for (const m of declared) expect(runtime).toContain(`${m[2]}.d.ts`);
  });
  it("exports one function per schema id and per entity kind, and schemaIds", () => {
    // Against the published JSON Schemas (another emitter's output), not the function that made the list.
    const published = readdirSync(join(GENERATED, "schemas"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -5));
    expect([...schemaIds].sort()).toEqual(published.sort());
    expect(schemaIds).toContain("v4.entities.Trust");
    expect(typeof validateV4EntitiesTrust).toBe("function");
    expect(validateV5VerificationCreateRequest({ website: "https://x.example" })).toEqual({ valid: true });
    for (const id of schemaIds) expect(readdirSync(join(GENERATED, "validators"))).toContain(`${id}.d.ts`);
  });
  it("is the same bytes on every run and every file ends with a newline", () => {
    const model = modelFromSpec(join(ROOT, "spec"));
    const a = emitValidators(model, { root: ROOT });
    const b = emitValidators(modelFromSpec(join(ROOT, "spec")), { root: ROOT });
    expect(a).toEqual(b);
    for (const f of a) {
      expect(f.contents.endsWith("\n")).toBe(true);
      expect(readFileSync(join(GENERATED, f.path), "utf8")).toBe(f.contents);
    }
  });
  it("a bundle of one small validator holds only the code it reaches", async () => {
    const bundle = async (entry: string) =>
      (await build({ entryPoints: [join(GENERATED, "validators", entry)], bundle: true, write: false, format: "esm", minify: true, logLevel: "silent" }))
        .outputFiles[0]!.text;
    const small = await bundle("v4.Gender.js");
    const large = await bundle("v4.VerifyRequest.js");
    // The shared runtime and error table are in both; the compiled code of other schemas is not.
    expect(small.length * 3).toBeLessThan(large.length);
    for (const code of ["image/jpeg", "[0-9]{6,13}"]) {
      expect(large).toContain(code); // the Data URI and NZBN patterns
      expect(small).not.toContain(code);
    }
  });
});
