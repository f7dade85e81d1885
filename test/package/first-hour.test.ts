// The first hour of a new user, second round (issue 36): the README names every optional package with the
// feature that needs it (the same list as package.json's optional peers), links the shared-sandbox guide,
// and the supported Node (package.json `engines`) installs every locked package without an EBADENGINE warning.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const readme = readFileSync(join(root, "README.md"), "utf8");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const semver = createRequire(import.meta.url)("semver") as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

describe("README: Install", () => {
  const table = /<!-- optional-peers:start -->\n([\s\S]*?)<!-- optional-peers:end -->/.exec(readme)?.[1] ?? "";
  const rows = table
    .split("\n")
    .filter((l) => /^\| `/.test(l))
    .map((l) =>
      l
        .split("|")
        .map((c) => c.trim())
        .filter(Boolean),
    );

  it("one table names each optional peer of package.json, with the feature that needs it, and nothing else", () => {
    const optional = Object.keys(manifest.peerDependencies)
      .filter((p) => manifest.peerDependenciesMeta[p]?.optional === true)
      .sort();
    expect(optional.length).toBeGreaterThanOrEqual(6);
    expect(rows.map((r) => r[0]!.replace(/`/g, "")).sort()).toEqual(optional);
    for (const r of rows) expect(r[1], r[0]).toMatch(/\w{4,}/);
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(optional);
  });

  it("the README's guide table links every guide of docs/, the shared sandbox's included", () => {
    expect(readme).toMatch(/\| \[Operating a shared sandbox\]\(docs\/operating-a-shared-sandbox\.md\) \|/);
  });
});

describe("the supported Node", () => {
  it("every package of package-lock.json accepts the lowest Node of `engines` (no EBADENGINE on npm ci)", () => {
    const lowest = semver.minVersion(manifest.engines.node)!.version;
    expect(lowest).toBe("20.19.0");
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(
        ([path, p]) => path !== "" && p.engines && !Array.isArray(p.engines) && typeof p.engines.node === "string" && !semver.satisfies(lowest, p.engines.node),
      )
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, "")}@${p.version} needs node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
