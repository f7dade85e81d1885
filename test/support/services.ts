// Suites that need a program outside Node (redis-server, chromium, postgresql, Python with a package).
// On a machine without it the suite is skipped with one line naming the program and the command that
// installs it, and the run still passes. Under VERISPEC_REQUIRE_SERVICES=1 (set by .ci/run, which
// installs them) a missing program fails the suite instead: CI never skips silently.
//
//   const redis = needProgram("redis-server", "apt-get install -y redis-server");
//   describe.skipIf(!redis.found)("...", () => { ... });   // redis.path is the executable
import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface Need {
  /** True when the program (and whatever else was asked for) is there. */
  readonly found: boolean;
  /** The executable, found on PATH (`which`); "" when missing. */
  readonly path: string;
}

export const requireServices = (env: NodeJS.ProcessEnv = process.env) => env.VERISPEC_REQUIRE_SERVICES === "1";

/** The executable `name` on PATH, as `which` finds it, or undefined. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Reports a missing program: one line and a skip, or (under VERISPEC_REQUIRE_SERVICES=1) an error. */
function missing(what: string, install: string): Need {
  const line = `${what} is not installed (${install}); skipping the suites that need it`;
  if (requireServices()) throw new Error(`VERISPEC_REQUIRE_SERVICES=1: ${line.replace(/; skipping.*$/, "")}`);
  process.stderr.write(`skip: ${line}\n`);
  return { found: false, path: "" };
}

/** A program the caller looked for itself (`path`: where it is, or undefined): the same one-line skip. */
export function needFound(name: string, path: string | undefined, install: string): Need {
  return path ? { found: true, path } : missing(name, install);
}

/** A program on PATH, e.g. `needProgram("redis-server", "apt-get install -y redis-server")`. */
export function needProgram(name: string, install: string): Need {
  return needFound(name, onPath(name), install);
}

/** `python3` able to import every module of `modules` (e.g. ["jsonschema"]). */
export function needPython(modules: readonly string[], install: string): Need {
  const python = onPath("python3");
  const what = modules.length ? `python3 with ${modules.join(", ")}` : "python3";
  if (!python) return missing(what, install);
  const probe = spawnSync(python, ["-c", modules.map((m) => `import ${m}`).join("\n") || "pass"], { encoding: "utf8" });
  return probe.status === 0 ? { found: true, path: python } : missing(what, install);
}
