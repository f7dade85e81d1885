// Golden: generated/ is committed, and regenerating gives exactly the same bytes, file for file.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateFiles } from "../../generator/pipeline.js";
import { listFiles, writeAtomically } from "../../generator/write.js";
import { ROOT, SPEC } from "./helpers.js";

const committed = join(ROOT, "generated");
const temp = mkdtempSync(join(tmpdir(), "verispec-golden-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("golden", () => {
  const files = generateFiles(SPEC, { root: ROOT });
  const out = join(temp, "generated");
  writeAtomically(out, files);

  it("writes the same set of files as generated/ holds (docs/ is built by `verispec docs`)", () => {
    expect(listFiles(out)).toEqual(listFiles(committed).filter((p) => !p.startsWith("docs/")));
  });

  it.each(listFiles(out))("%s is byte-identical", (path) => {
    expect(readFileSync(join(out, path), "utf8")).toBe(readFileSync(join(committed, path), "utf8"));
  });

  it("is deterministic: a second run gives the same bytes", () => {
    const again = generateFiles(SPEC, { root: ROOT });
    expect(again.map((f) => [f.path, f.contents])).toEqual(files.map((f) => [f.path, f.contents]));
  });

  it("uses LF endings and a final newline everywhere", () => {
    for (const f of files) {
      expect(f.contents.endsWith("\n"), f.path).toBe(true);
      expect(f.contents.includes("\r"), f.path).toBe(false);
    }
  });
});
