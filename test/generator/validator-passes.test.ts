// Each rewrite of Ajv's standalone output (generator/emit/validators/passes.ts) on a small sample of the
// text Ajv writes: what it changes, and that it leaves other text alone. The golden test and the
// validator tests check the passes together on the real output.
import { describe, expect, it } from "vitest";
import {
  asciiOnly,
  compactErrors,
  dropPlaceholderErrors,
  enumSets,
  hoistLongStrings,
  onePush,
  OUTPUT_PASSES,
  propertyChains,
  pureRegExps,
  requiresToImports,
  splitInstancePaths,
  unescapeSchemaPaths,
} from "../../generator/emit/validators/passes.js";

const push = (n: number, fields: string) => `const err${n} = {${fields}};(vErrors ??= []).push(err${n});errors++;`;

describe("the output passes of the validators emitter", () => {
  it("run in a fixed order, every pass named once", () => {
    expect(OUTPUT_PASSES.map((p) => p.name)).toEqual([
      "unescapeSchemaPaths",
      "pureRegExps",
      "enumSets",
      "propertyChains",
      "onePush",
      "dropPlaceholderErrors",
      "splitInstancePaths",
      "hoistLongStrings",
      "compactErrors",
      "requiresToImports",
      "asciiOnly",
    ]);
  });

  it.each([
    ["unescapeSchemaPaths", unescapeSchemaPaths, 'schemaPath:"#/$defs/a~1b/properties/c~0d"', 'schemaPath:"#/$defs/a/b/properties/c~d"'],
    ["pureRegExps", pureRegExps, 'const pattern0 = new RegExp("^a$", "u");', 'const pattern0 = /*#__PURE__*/ new RegExp("^a$", "u");'],
    ["onePush", onePush, "if(vErrors === null){vErrors = [err3];}else {vErrors.push(err3);}", "(vErrors ??= []).push(err3);"],
    ["dropPlaceholderErrors", dropPlaceholderErrors, "const err7 = {};(vErrors ??= []).push(err7);errors++;", "errors++;"],
    ["asciiOnly", asciiOnly, 'const s = "a\u00e9\u4e2d";', 'const s = "a\\u00e9\\u4e2d";'],
  ] as const)("%s", (_name, pass, given, want) => {
    expect(pass(given)).toBe(want);
    expect(pass("const untouched = 1;")).toBe("const untouched = 1;");
  });

  it("enumSets: a loop of deep `equal` over a string enum becomes one Set lookup", () => {
    const code =
      'const schema5 = {"enum":["AUS","NZL"]};function validate1(data){valid2 = false;for(const v0 of schema5.enum){if(func0(data, v0)){valid2 = true;break;}}}export const x = 1;';
    const out = enumSets(code);
    expect(out).toContain("valid2 = schema5_set.has(data);");
    expect(out).toContain('const schema5 = {"enum":["AUS","NZL"]};const schema5_set = /*#__PURE__*/ new Set(schema5.enum);');
    expect(out).not.toContain("for(const v0");
  });

  it("propertyChains: a key checked against a schema's declared properties by hasOwnProperty becomes a chain of comparisons", () => {
    const code =
      'const func4 = Object.prototype.hasOwnProperty;const schema9 = {"type":"object","properties":{"a\\"b":{"pattern":"}]"},"fields":{"properties":{"x":{},"y":{}}}}};' +
      "function validate1(data){for(const key0 in data){if(!(func4.call(schema9.properties, key0))){e++;}}" +
      "for(const key1 in data.fields){if(!(func4.call(schema9.properties.fields.properties, key1))){e++;}}}";
    const out = propertyChains(code);
    expect(out).toContain('if(!((key0 === "a\\"b" || key0 === "fields"))){e++;}');
    expect(out).toContain('if(!((key1 === "x" || key1 === "y"))){e++;}');
    expect(out).not.toContain("func4.call");
    expect(propertyChains("const untouched = 1;")).toBe("const untouched = 1;");
    expect(() => propertyChains("const func4 = Object.prototype.hasOwnProperty;func4.call(schema1.properties, key0)")).toThrow(/no constant schema1/);
  });

  it("splitInstancePaths: an error below the function's place carries its two parts", () => {
    const code = push(1, 'instancePath:instancePath+"/a",schemaPath:"#/x",keyword:"type",params:{}');
    expect(splitInstancePaths(code)).toBe(push(1, 'instancePath:instancePath+"/a",base:instancePath,at:"/a",schemaPath:"#/x",keyword:"type",params:{}'));
  });

  it("hoistLongStrings: a long literal is written once, as a constant", () => {
    const long = `"${"a".repeat(130)}"`;
    const out = hoistLongStrings(`f(${long});g(${long});h("short");`);
    expect(out).toBe(`const str0 = ${long};\nf(str0);g(str0);h("short");`);
  });

  it("compactErrors: error statements become table rows, read on first use", () => {
    const one = (n: number) =>
      `function validate${n}(data, {instancePath=""}={}){${push(0, 'instancePath,schemaPath:"#/type",keyword:"type",params:{type: "string"}')}}`;
    const out = compactErrors(one(0) + one(1));
    expect(out).toContain('const validate0_errors = /*#__PURE__*/ $errorTable(0, \'[["#/type",0,{"type":"string"}]]\');');
    // Each table numbers its errors on from the one before: an error's number (`row`) is unique in the module.
    expect(out).toContain('const validate1_errors = /*#__PURE__*/ $errorTable(1, \'[["#/type",0,{"type":"string"}]]\');');
    expect(out).toContain("(vErrors ??= []).push($spent(this) ? $OVER : $err(validate0_errors,instancePath,0));errors++;");
    // Past the caller's budget every error is one shared placeholder: counted, not built.
    expect(out).toContain('const $OVER = Object.freeze({instancePath: "", schemaPath: "", keyword: "$overBudget", params: Object.freeze({})});');
    expect(out).toContain("function $spent(c){return c != null && c.$errorBudget !== undefined && c.$errorBudget-- <= 0;}");
    expect(out).not.toMatch(/const err\d+ = \{/);
  });

  it("requiresToImports: each require becomes an import of verispec's runtime module; an unknown one throws", () => {
    expect(requiresToImports('const f = require("verispec:formats").fullFormats;f.uri(x);')).toBe(
      'import * as runtime0 from "./runtime.js";\nconst f = runtime0.fullFormats;f.uri(x);',
    );
    // Two specifiers of one runtime module: one import.
    expect(requiresToImports('const f = require("verispec:formats").fullFormats;const a = require("verispec:abn").abnChecksum;f.uri(x);a(y);')).toBe(
      'import * as runtime0 from "./runtime.js";\nconst f = runtime0.fullFormats;const a = runtime0.abnChecksum;f.uri(x);a(y);',
    );
    expect(() => requiresToImports('require("fs")')).toThrow(/requires fs/);
    // The runtime has no deep equal: a validator that called Ajv's would stop the generator.
    expect(() => requiresToImports('const func0 = require("ajv/dist/runtime/equal").default;func0(a, b);')).toThrow(
      /requires ajv\/dist\/runtime\/equal, which has no runtime module/,
    );
  });

  it("requiresToImports: a required binding nothing reads is dropped (Ajv's equal after enumSets)", () => {
    const code =
      'const func0 = require("ajv/dist/runtime/equal").default;const func01 = 1;const formats0 = require("verispec:formats").fullFormats.uri;formats0(s);';
    expect(requiresToImports(code)).toBe('import * as runtime0 from "./runtime.js";\nconst func01 = 1;const formats0 = runtime0.fullFormats.uri;formats0(s);');
  });
});
