// Load sides: a side of the diff is a spec directory, or a git revision of the repository the working
// directory is in. A revision's spec/ is read with `git ls-tree` and `git show` into a temporary
// directory (the work tree and the index are never touched), then goes through the same load -> check
// -> model stages as `verispec generate`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { checkSpec } from "../check/index.js";
import { SpecError, UsageError, type SourcePos } from "../diagnostics.js";
import { loadSpec, positionOf, type LoadedSpec, type PathSegment } from "../load/load-spec.js";
import { buildModel } from "../model/build-model.js";
import type { Model } from "../model/types.js";

export interface Side {
  /** What the user named: a directory as given, or a revision such as `HEAD~1`. */
  readonly label: string;
  /** The commit a revision resolved to (absent for a directory). */
  readonly commit?: string;
  readonly model: Model;
  readonly spec: LoadedSpec;
}

/** Load -> check -> model of one spec directory. A broken spec throws SpecError with its positions. */
export function sideFromDir(dir: string, label: string, commit?: string): Side {
  const spec = loadSpec(dir);
  const diagnostics = checkSpec(spec);
  if (diagnostics.length > 0) throw new SpecError(diagnostics);
  return { label, ...(commit ? { commit } : {}), model: buildModel(spec), spec };
}

function git(cwd: string, args: readonly string[]): string {
  return execFileSync("git", [...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 });
}

function gitOrNull(cwd: string, args: readonly string[]): string | null {
  try {
    return git(cwd, args);
  } catch {
    return null;
  }
}

/**
 * Copies `<rev>:<specPath>` into `<tmp>/spec` (named spec so positions read `spec/<file>:line`) and
 * returns the commit and the directory; the caller removes `tmp`.
 */
export function checkoutSpec(repo: string, rev: string, specPath: string, tmp: string): { commit: string; dir: string } {
  const commit = gitOrNull(repo, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`])?.trim();
  if (!commit) throw new UsageError(`${JSON.stringify(rev)} is neither a spec directory nor a git revision of ${repo}`);
  const names = git(repo, ["ls-tree", "-r", "-z", "--name-only", commit, "--", `${specPath}/`])
    .split("\0")
    .filter(Boolean);
  if (names.length === 0) throw new UsageError(`revision ${rev} (${commit.slice(0, 12)}) has no ${specPath}/ directory`);
  const dir = join(tmp, "spec");
  for (const name of names) {
    const rel = name.slice(specPath.length + 1);
    const target = join(dir, ...rel.split("/"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, execFileSync("git", ["show", `${commit}:${name}`], { cwd: repo, maxBuffer: 256 * 1024 * 1024 }));
  }
  return { commit, dir };
}

/**
 * A side from what the user typed: an existing directory is a spec directory; anything else is a git
 * revision of the repository around `cwd`, whose spec directory is `specDir`'s place in that repository.
 */
export function loadSide(arg: string, cwd: string, specDir: string): Side {
  const asDir = resolve(cwd, arg);
  if (existsSync(asDir) && statSync(asDir).isDirectory()) return sideFromDir(asDir, arg);
  const top = gitOrNull(cwd, ["rev-parse", "--show-toplevel"])?.trim();
  if (!top) throw new UsageError(`${JSON.stringify(arg)} is not a directory, and ${cwd} is not in a git repository`);
  const rel = relative(top, specDir).split(sep).join("/");
  const specPath = rel === "" || rel.startsWith("..") ? "spec" : rel;
  const tmp = mkdtempSync(join(tmpdir(), "verispec-diff-"));
  try {
    const { commit, dir } = checkoutSpec(top, arg, specPath, tmp);
    try {
      return sideFromDir(dir, arg, commit);
    } catch (err) {
      if (err instanceof SpecError) throw new SpecError(err.diagnostics.map((d) => ({ ...d, pos: { ...d.pos, file: `${arg}:${d.pos.file}` } })));
      throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Position of `path` in the side's spec file whose display path or name is `file`. */
export function locate(side: Side, file: string, path: readonly PathSegment[], key = false): SourcePos | undefined {
  const specFile = side.spec.files.find((x) => x.displayPath === file || x.name === file);
  return specFile ? positionOf(specFile, path, key) : undefined;
}
