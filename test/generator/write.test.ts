// Writing is atomic: all files or none, and an existing generated/ survives a failed write.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listFiles, shortDiff, writeAtomically } from "../../generator/write.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("writeAtomically", () => {
  it("replaces the whole directory: old files that are no longer generated go", () => {
    dir = mkdtempSync(join(tmpdir(), "verispec-write-"));
    const out = join(dir, "generated");
    writeAtomically(out, [{ path: "old.txt", contents: "old\n" }]);
    writeAtomically(out, [{ path: "a/b.json", contents: "{}\n" }]);
    expect(listFiles(out)).toEqual([".verispec-manifest", "a/b.json"]);
    expect(readdirSync(dir)).toEqual(["generated"]);
  });

  it("keeps docs/ (built by `verispec docs`) across generations", () => {
    dir = mkdtempSync(join(tmpdir(), "verispec-write-"));
    const out = join(dir, "generated");
    writeAtomically(out, [{ path: "x.json", contents: "0\n" }]);
    // `verispec docs` writes docs/ into verispec's own output only (its manifest present).
    mkdirSync(join(out, "docs"), { recursive: true });
    writeFileSync(join(out, "docs", "index.html"), "<html></html>\n");
    writeAtomically(out, [{ path: "x.json", contents: "1\n" }]);
    expect(listFiles(out)).toEqual([".verispec-manifest", "docs/index.html", "x.json"]);
  });

  it("writes nothing and leaves the old output when one file cannot be written", () => {
    dir = mkdtempSync(join(tmpdir(), "verispec-write-"));
    const out = join(dir, "generated");
    writeAtomically(out, [{ path: "keep.txt", contents: "keep\n" }]);
    // "a" as a file and "a/b" below it cannot both exist: the second write fails.
    expect(() =>
      writeAtomically(out, [
        { path: "a", contents: "x\n" },
        { path: "a/b", contents: "y\n" },
      ]),
    ).toThrow();
    expect(listFiles(out)).toEqual([".verispec-manifest", "keep.txt"]);
    expect(readFileSync(join(out, "keep.txt"), "utf8")).toBe("keep\n");
    expect(readdirSync(dir)).toEqual(["generated"]);
    expect(existsSync(join(dir, "a"))).toBe(false);
  });
});

describe("shortDiff", () => {
  it("shows the first differing lines with their numbers", () => {
    expect(shortDiff("a\nb\nc\n", "a\nB\nc\n")).toBe("  line 2 - b\n  line 2 + B");
  });
});
