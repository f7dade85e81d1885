// Output directory safety: verispec writes only into a directory that is absent, empty or its own;
// a refused directory is left byte for byte; a killed run is recovered at the next start.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isVerispecOutput, listFiles, MANIFEST, OutputError, recoverInterrupted, WORK_DIR, writeAtomically } from "../../generator/write.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "verispec-safety-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const files = (label: string) => ["a.json", "b/c.json", "b/d.json", "e.ts"].map((path) => ({ path, contents: `${label} ${path}\n` }));
const contentsOf = (out: string) => Object.fromEntries(listFiles(out).map((p) => [p, readFileSync(join(out, p), "utf8")]));
/** What writing `label` leaves: its files, the manifest, and the docs/ page kept across generations. */
function expectedSet(label: string): Record<string, string> {
  const scratch = join(dir, `expected-${label}`);
  writeAtomically(scratch, files(label), { cwd: dir });
  const set = contentsOf(scratch);
  rmSync(scratch, { recursive: true });
  return { ...set, "docs/index.html": "<html></html>\n" };
}

function snapshot(root: string): Record<string, string> {
  return contentsOf(root);
}

describe("writeAtomically refuses what verispec did not write", () => {
  const refused = (out: string) => {
    let err: unknown;
    try {
      writeAtomically(out, files("new"), { cwd: dir });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OutputError);
    expect((err as Error).message).not.toContain("\n");
    expect((err as Error).message.endsWith(`: ${out}`)).toBe(true);
    return (err as Error).message;
  };

  it("a project root (with .git and uncommitted files), left untouched", () => {
    const project = join(dir, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    writeFileSync(join(project, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(project, "notes.txt"), "uncommitted\n");
    const before = snapshot(dir);
    expect(refused(project)).toContain("did not write");
    expect(snapshot(dir)).toEqual(before);
    expect(readdirSync(dir)).toEqual(["project"]);
  });

  it("a spec directory", () => {
    const spec = join(dir, "spec");
    mkdirSync(spec);
    writeFileSync(join(spec, "rules.yaml"), "a: 1\n");
    refused(spec);
    expect(readFileSync(join(spec, "rules.yaml"), "utf8")).toBe("a: 1\n");
  });

  it("a file, and a path under a file", () => {
    const file = join(dir, "some-file.txt");
    writeFileSync(file, "mine\n");
    expect(refused(file)).toContain("refusing to replace a file");
    expect(refused(join(file, "generated"))).toContain("under a file");
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    expect(readdirSync(dir)).toEqual(["some-file.txt"]);
  });

  it("a verispec directory to which the user added a file", () => {
    const out = join(dir, "generated");
    writeAtomically(out, files("old"), { cwd: dir });
    writeFileSync(join(out, "b", "mine.txt"), "mine\n");
    expect(refused(out)).toContain("(b/mine.txt)");
    expect(readFileSync(join(out, "b", "mine.txt"), "utf8")).toBe("mine\n");
  });

  it("a directory holding only a user's docs/page.md: docs/ is verispec's only in its own output", () => {
    const out = join(dir, "site");
    mkdirSync(join(out, "docs"), { recursive: true });
    writeFileSync(join(out, "docs", "page.md"), "# mine\n");
    expect(refused(out)).toContain(`no ${MANIFEST}`);
    expect(readdirSync(out)).toEqual(["docs"]);
    expect(readFileSync(join(out, "docs", "page.md"), "utf8")).toBe("# mine\n");
  });

  it("a directory holding only empty folders is not empty: they are kept", () => {
    const out = join(dir, "folders");
    mkdirSync(join(out, "keep", "deeper"), { recursive: true });
    mkdirSync(join(out, "other"));
    expect(refused(out)).toContain(`no ${MANIFEST}`);
    expect(readdirSync(out).sort()).toEqual(["keep", "other"]);
    expect(readdirSync(join(out, "keep"))).toEqual(["deeper"]);
  });

  it("a verispec directory to which the user added an empty folder", () => {
    const out = join(dir, "generated");
    writeAtomically(out, files("old"), { cwd: dir });
    mkdirSync(join(out, "b", "mine"));
    mkdirSync(join(out, "drafts"));
    expect(refused(out)).toContain("holding a folder verispec did not write (b/mine/)");
    rmSync(join(out, "b", "mine"), { recursive: true });
    expect(refused(out)).toContain("(drafts/)");
    expect(existsSync(join(out, "drafts"))).toBe(true);
    // A folder verispec lists (emptied by the user) is its own: written again.
    rmSync(join(out, "drafts"), { recursive: true });
    rmSync(join(out, "b"), { recursive: true });
    mkdirSync(join(out, "b"));
    writeAtomically(out, files("new"), { cwd: dir });
    expect(readFileSync(join(out, "b", "c.json"), "utf8")).toBe("new b/c.json\n");
  });

  it("a manifest without verispec's banner does not count", () => {
    const out = join(dir, "generated");
    mkdirSync(out);
    writeFileSync(join(out, MANIFEST), "a.json\nnotes.txt\n");
    writeFileSync(join(out, "notes.txt"), "mine\n");
    refused(out);
  });

  it("a symbolic link, and the working directory", () => {
    const real = join(dir, "real");
    mkdirSync(real);
    symlinkSync(real, join(dir, "link"));
    expect(refused(join(dir, "link"))).toContain("symbolic link");
    expect(() => writeAtomically(real, files("new"), { cwd: real })).toThrow(/working directory/);
    expect(() => writeAtomically(dir, files("new"), { cwd: real })).toThrow(/working directory/);
  });

  it("accepts an absent, an empty, and its own directory (docs/ kept); leaves nothing beside it", () => {
    const out = join(dir, "generated");
    writeAtomically(out, files("one"), { cwd: dir });
    mkdirSync(join(out, "docs"));
    writeFileSync(join(out, "docs", "index.html"), "<html></html>\n");
    writeAtomically(out, files("two"), { cwd: dir });
    expect(contentsOf(out)).toEqual(expectedSet("two"));
    mkdirSync(join(dir, "empty"));
    writeAtomically(join(dir, "empty"), files("x"), { cwd: dir });
    expect(readdirSync(dir).sort()).toEqual(["empty", "generated"]);
  });

  it("accepts an output written before the manifest existed (only its own files, with the banner)", () => {
    const out = join(dir, "generated");
    mkdirSync(out);
    writeFileSync(join(out, "e.ts"), "// generated by verispec; do not edit\n");
    writeFileSync(join(out, "a.json"), "{}\n");
    writeAtomically(out, files("new"), { cwd: dir });
    expect(readFileSync(join(out, "a.json"), "utf8")).toBe("new a.json\n");
  });
});

describe("a write that fails part-way", () => {
  // Every step of a write, made to throw: the old output must be back, complete, with nothing beside it.
  // Steps: five files (four and the manifest), moving the old output aside, moving docs/ across.
  it.each([0, 1, 2, 3, 4, 5, 6])("failing at step %i leaves the old output and no leftovers", (failAt) => {
    const out = join(dir, "generated");
    writeAtomically(out, files("old"), { cwd: dir });
    mkdirSync(join(out, "docs"));
    writeFileSync(join(out, "docs", "index.html"), "<html></html>\n");
    const old = expectedSet("old");
    let steps = 0;
    const fail = () => {
      if (steps++ === failAt) throw new Error("injected");
    };
    expect(() => writeAtomically(out, files("new"), { cwd: dir, onStep: fail })).toThrow("injected");
    expect(contentsOf(out)).toEqual(old);
    expect(readdirSync(dir)).toEqual(["generated"]);
  });
});

describe("recovery", () => {
  it("folders beside the output merely named like leftovers are the user's: left as they are", () => {
    const out = join(dir, "generated");
    mkdirSync(join(dir, ".generated.tmp-1-2"));
    writeFileSync(join(dir, ".generated.tmp-1-2", "a.json"), "half\n");
    mkdirSync(join(dir, ".generated.old-1-2"));
    writeFileSync(join(dir, ".generated.old-1-2", "a.json"), "old\n");
    const before = snapshot(dir);
    recoverInterrupted(out);
    expect(snapshot(dir)).toEqual(before);
  });

  it("issue 23: .user.old-backup/ beside a refused --out user stays; .newout.old-mine/ is not renamed to newout", async () => {
    const { main } = await import("../../generator/cli/main.js");
    const project = join(dir, "project");
    mkdirSync(join(project, "user"), { recursive: true });
    writeFileSync(join(project, "user", "notes.txt"), "mine\n");
    for (const leftover of [".user.old-backup", ".newout.old-mine", join(WORK_DIR, "user.old-backup"), join(WORK_DIR, "newout.old-mine")]) {
      mkdirSync(join(project, leftover), { recursive: true });
      writeFileSync(join(project, leftover, "keep.txt"), "mine\n");
    }
    const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: project, stdin: async () => "" };
    const spec = join(import.meta.dirname, "..", "..", "spec");
    const before = snapshot(project);
    expect(await main(["generate", "--spec", spec, "--out", "user"], io)).toBe(2);
    expect(snapshot(project)).toEqual(before);
    expect(await main(["generate", "--spec", spec, "--out", "newout"], io)).toBe(0);
    for (const leftover of [".user.old-backup", ".newout.old-mine", join(WORK_DIR, "user.old-backup"), join(WORK_DIR, "newout.old-mine")])
      expect(readFileSync(join(project, leftover, "keep.txt"), "utf8")).toBe("mine\n");
    expect(existsSync(join(project, "newout", "keep.txt"))).toBe(false);
    expect(isVerispecOutput(join(project, "newout"))).toBe(true);
  });

  it("temporary folders ignore themselves for git", () => {
    const out = join(dir, "generated");
    let seen = "";
    writeAtomically(out, files("new"), {
      cwd: dir,
      onStep: () => {
        seen ||= readFileSync(join(dir, WORK_DIR, ".gitignore"), "utf8");
      },
    });
    expect(seen).toBe("*\n");
  });
});

describe("a failure after the swap", () => {
  it.each([7, 8])("at step %i leaves the new output complete", (failAt) => {
    const out = join(dir, "generated");
    writeAtomically(out, files("old"), { cwd: dir });
    mkdirSync(join(out, "docs"));
    writeFileSync(join(out, "docs", "index.html"), "<html></html>\n");
    let steps = 0;
    const fail = () => {
      if (steps++ === failAt) throw new Error("injected");
    };
    expect(() => writeAtomically(out, files("new"), { cwd: dir, onStep: fail })).toThrow("injected");
    recoverInterrupted(out);
    expect(contentsOf(out)).toEqual(expectedSet("new"));
    expect(readdirSync(dir)).toEqual(["generated"]);
  });
});

describe("verispec generate --out", () => {
  it.each([".", "spec", "some-file.txt", "some-file.txt/generated"])("--out %s: one line, exit 2, nothing touched", async (out) => {
    const { main } = await import("../../generator/cli/main.js");
    const project = join(dir, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    mkdirSync(join(project, "spec"));
    writeFileSync(join(project, "spec", "note.yaml"), "a: 1\n");
    writeFileSync(join(project, "some-file.txt"), "mine\n");
    const before = snapshot(dir);
    const err: string[] = [];
    const io = { stdout: () => undefined, stderr: (t: string) => void err.push(t), env: {}, cwd: project, stdin: async () => "" };
    expect(await main(["generate", "--spec", join(import.meta.dirname, "..", "..", "spec"), "--out", out], io)).toBe(2);
    expect(err.join("")).toMatch(/^verispec: [^\n]+: \/[^\n]+\n$/);
    expect(snapshot(dir)).toEqual(before);
  });
});

describe("verispec's own directory", () => {
  it("accepts an unlisted file at a path this run writes (a new output file that arrived by a merge)", () => {
    const out = join(dir, "generated");
    writeAtomically(out, files("old").slice(0, 2), { cwd: dir });
    writeFileSync(join(out, "e.ts"), "from a merge\n");
    writeAtomically(out, files("new"), { cwd: dir });
    expect(readFileSync(join(out, "e.ts"), "utf8")).toBe("new e.ts\n");
  });
});

describe("verispec docs --out", () => {
  it("refuses a directory verispec did not write, even with an openapi.json in it", async () => {
    const { main } = await import("../../generator/cli/main.js");
    const project = join(dir, "project");
    mkdirSync(join(project, "docs"), { recursive: true });
    writeFileSync(join(project, "openapi.json"), "{}\n");
    writeFileSync(join(project, "docs", "index.html"), "<p>mine</p>\n");
    const before = snapshot(dir);
    const err: string[] = [];
    const io = { stdout: () => undefined, stderr: (t: string) => void err.push(t), env: {}, cwd: join(import.meta.dirname, "..", ".."), stdin: async () => "" };
    expect(await main(["docs", "--out", project], io)).toBe(2);
    expect(err.join("")).toBe(
      `verispec: refusing to write docs/ into a directory verispec did not write (no ${MANIFEST}; run 'npx verispec generate'): ${project}\n`,
    );
    expect(snapshot(dir)).toEqual(before);
  });
});
