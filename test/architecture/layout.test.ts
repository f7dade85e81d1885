// CONTRIBUTING.md's Layout is the map a newcomer walks (issue 40): every folder of the source trees is named
// there with its one job, the files a change crosses are named, and nothing named there is gone.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function layoutBlock(): string {
  const text = readFileSync(join(ROOT, "CONTRIBUTING.md"), "utf8");
  const start = text.indexOf("## Layout");
  const section = text.slice(start, text.indexOf("\n## ", start + 1));
  return section.slice(section.indexOf("```\n") + 4, section.indexOf("\n```", section.indexOf("```\n") + 4));
}

/** The paths the Layout names: the first word of each line that starts with one. */
function namedPaths(block: string): string[] {
  return block
    .split("\n")
    .map((line) => /^([a-z][\w.-]*(?:\/[\w.-]+)*\/?)\s/.exec(line)?.[1])
    .filter((p): p is string => p !== undefined);
}

function folders(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${dir}/${e.name}/`, ...folders(`${dir}/${e.name}`, depth - 1)]);
}

/** Every folder the Layout must name: the source trees whole, the others one level down (test/ as one). */
function requiredFolders(): string[] {
  return [
    "spec/",
    "generator/",
    "templates/",
    "generated/",
    "test/",
    "bench/",
    "docs/",
    ...folders("generator", 9),
    ...folders("templates", 9),
    ...folders("spec", 1),
    ...folders("generated", 1),
    ...folders("bench", 1),
    ...folders("docs", 1),
  ];
}

/** The files every question about the sandbox or the spec's rules crosses (issue 40's walk). */
const CROSSED = [
  "generator/check/prose.ts",
  "generator/emit/sandbox.ts",
  "generator/emit/webhooks.ts",
  "generated/sandbox.js",
  "templates/sandbox/binding.ts",
  "templates/sandbox/server.ts",
  "templates/sandbox/handlers.ts",
  "templates/sandbox/service.ts",
  "spec/sandbox.yaml",
  "generator/write.ts",
];

describe("CONTRIBUTING.md's Layout", () => {
  const named = namedPaths(layoutBlock());

  it("names every folder of the source trees", () => {
    expect(named.length).toBeGreaterThan(30);
    expect(requiredFolders().filter((f) => !named.includes(f))).toEqual([]);
  });

  it("names the files a change of the spec or of the sandbox crosses", () => {
    expect(CROSSED.filter((f) => !named.includes(f))).toEqual([]);
  });

  it("names nothing that is gone", () => {
    expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it("is linked from README.md, and .ignore keeps generated/ minified validators out of a plain search", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("[CONTRIBUTING.md](CONTRIBUTING.md) (quick start, layout");
    expect(readFileSync(join(ROOT, ".ignore"), "utf8").split("\n")).toContain("generated/validators/");
  });
});
