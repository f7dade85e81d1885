// Ready to publish: the files list is what a user needs and nothing else, `npm publish --dry-run` is clean,
// the manifest says where the project lives, and the word `seed` (an internal name of the service's
// specification) appears in no file of the tarball and no diagnostic a spec author can meet.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { CATALOG } from "../../generator/diagnostics.js";

const root = new URL("../../", import.meta.url).pathname;
const env = { ...process.env, npm_config_update_notifier: "false" };
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown> & { files: string[]; scripts: Record<string, string> };
// The tarball's file list, read without packing (dist/ is current: test/support/dist.ts).
const packed = (
  JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
  ) as { files: { path: string }[] }[]
)[0]!.files.map((f) => f.path);
const SEED = /\bseed\b/i;
const TEMPLATE = /^dist\/pglite-template\/pglite-\d+-[0-9a-f]{16}\.tar$/;

describe("the package's files", () => {
  it("are the entry points, the CLI, the spec, the templates, the guides, and nothing of the repository's own", () => {
    const top = [...new Set(packed.map((p) => (p.includes("/") ? `${p.slice(0, p.indexOf("/"))}/` : p)))].sort();
    expect(top).toEqual(["README.md", "bin/", "dist/", "docs/", "generated/", "package.json", "spec/", "templates/"]);
    expect(packed.filter((p) => /\.test\.[jt]s$|^docs\/engineering\/|^test\/|^bench\/|^generator\//.test(p))).toEqual([]);
    for (const p of ["dist/generator/cli/bin.js", "generated/ajv-vocabulary.d.cts", "docs/sandbox.md", "spec/meta/spec.schema.yaml"])
      expect(packed, p).toContain(p);
  });

  it("say nothing of `seed`: no file of the tarball has the word", () => {
    const hits = packed.filter((p) => !TEMPLATE.test(p) && SEED.test(readFileSync(join(root, p), "utf8")));
    expect(hits).toEqual([]);
  });

  it("the PGlite template (Postgres's own data directory, archived) has the word only in Postgres's catalog: setseed()'s description", () => {
    const template = packed.filter((p) => TEMPLATE.test(p));
    expect(template).toHaveLength(1);
    const text = readFileSync(join(root, template[0]!), "latin1");
    expect([...text.matchAll(new RegExp(SEED.source, "gi"))].map((m) => text.slice(m.index - 11, m.index + 4))).toEqual(["set random seed"]);
  });
});

describe("diagnostics", () => {
  it("no diagnostic message says `seed`: the catalog and the meta-schema's words (keys, descriptions)", () => {
    for (const [code, entry] of Object.entries(CATALOG)) expect(JSON.stringify(entry), code).not.toMatch(SEED);
    const meta = parse(readFileSync(join(root, "spec", "meta", "spec.schema.yaml"), "utf8")) as unknown;
    // Every key and string of the meta-schema (what VS2xx messages quote), comments aside.
    const words: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === "string") words.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) words.push(k), walk(x);
    };
    walk(meta);
    expect(words.filter((w) => SEED.test(w))).toEqual([]);
    expect(words).toContain("source");
  });
});

describe("publishing", () => {
  it("the manifest names the repository, the issue tracker, the home page and keywords, and runs nothing on install", () => {
    expect(manifest.repository).toMatchObject({ type: "git", url: expect.stringMatching(/^git\+https:\/\//) });
    expect(manifest.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect((manifest.keywords as string[]).length).toBeGreaterThanOrEqual(5);
    for (const script of ["prepare", "preinstall", "install", "postinstall"]) expect(manifest.scripts[script], script).toBeUndefined();
    expect(manifest.scripts.prepack).toBe("npm run build");
  });

  it("npm publish --dry-run is clean: no warning but the one about not being logged in", () => {
    const r = spawnSync("npm", ["publish", "--dry-run", "--ignore-scripts"], { cwd: root, env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const warnings = r.stderr.split("\n").filter((l) => /^npm (warn|error)/i.test(l) && !/requires you to be logged in/.test(l));
    expect(warnings).toEqual([]);
    expect(r.stderr + r.stdout).toContain(`verispec@${manifest.version as string}`);
  }, 120_000);
});
