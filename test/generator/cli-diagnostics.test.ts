// Every file-system or YAML failure of the CLI is one line `verispec: <what>: <path>` (or a spec
// diagnostic `file:line:col`) and exit 2, never a stack trace; quoted input is escaped.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Io } from "../../generator/context.js";
import { main } from "../../generator/cli/main.js";
import { readdirSync } from "node:fs";
import { describeFsError, describeValue, escapeControl, redactSecrets } from "../../generator/diagnostics.js";
import { ROOT, SPEC } from "./helpers.js";

const temp = mkdtempSync(join(tmpdir(), "verispec-diag-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function specCopy(name: string): string {
  const dir = join(temp, name);
  cpSync(SPEC, dir, { recursive: true });
  return dir;
}

async function run(args: string[], cwd = temp): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const io: Io = { stdout: () => undefined, stderr: (t) => void err.push(t), env: {}, cwd, stdin: async () => "" };
  return { code: await main(args, io), err: err.join("") };
}

const setups: Record<string, () => string[]> = {
  "--spec naming a file": () => ["check", "--spec", join(SPEC, "limits.yaml")],
  "--spec naming a folder without meta/": () => {
    mkdirSync(join(temp, "no-meta"));
    writeFileSync(join(temp, "no-meta", "a.yaml"), "a: 1\n");
    return ["check", "--spec", join(temp, "no-meta")];
  },
  "--out under a file": () => {
    writeFileSync(join(temp, "a-file"), "x\n");
    return ["generate", "--spec", SPEC, "--out", join(temp, "a-file", "generated")];
  },
  "a symbolic link loop in spec/": () => {
    const dir = specCopy("loop");
    symlinkSync("b.yaml", join(dir, "a.yaml"));
    symlinkSync("a.yaml", join(dir, "b.yaml"));
    return ["check", "--spec", dir];
  },
  "a dangling symbolic link in spec/": () => {
    const dir = specCopy("dangling");
    symlinkSync("nowhere.yaml", join(dir, "gone.yaml"));
    return ["check", "--spec", dir];
  },
  "a YAML alias bomb": () => {
    const dir = specCopy("bomb");
    const level = (name: string, prev: string) => `${name}: &${name} [${Array(9).fill(`*${prev}`).join(", ")}]`;
    writeFileSync(
      join(dir, "bomb.yaml"),
      ["a0: &a0 [x, x, x, x, x, x, x, x, x]", level("a1", "a0"), level("a2", "a1"), level("a3", "a2")].map((line) => `${line}\n`).join(""),
    );
    return ["check", "--spec", dir];
  },
  "a spec file linking outside the spec directory": () => {
    const dir = specCopy("outside");
    writeFileSync(join(temp, "dot-npmrc"), "//registry.npmjs.org/:_authToken=npm_SECRETsecretSECRETsecret0123\n");
    rmSync(join(dir, "countries.yaml"));
    symlinkSync(join(temp, "dot-npmrc"), join(dir, "countries.yaml"));
    return ["check", "--spec", dir];
  },
  "a spec file linking to /dev/zero": () => {
    const dir = specCopy("zero");
    symlinkSync("/dev/zero", join(dir, "zero.yaml"));
    return ["generate", "--spec", dir, "--out", join(temp, "zero-out")];
  },
  "a spec file linking to /proc/self/environ": () => {
    const dir = specCopy("environ");
    rmSync(join(dir, "limits.yaml"));
    symlinkSync("/proc/self/environ", join(dir, "limits.yaml"));
    return ["check", "--spec", dir];
  },
  "a spec file over 10 MiB": () => {
    const dir = specCopy("huge");
    writeFileSync(join(dir, "huge.yaml"), `a: "${"x".repeat(10 * 1024 * 1024)}"\n`);
    return ["check", "--spec", dir];
  },
  "a directory where the meta-schema file should be": () => {
    const dir = specCopy("meta-dir");
    rmSync(join(dir, "meta", "spec.schema.yaml"));
    mkdirSync(join(dir, "meta", "spec.schema.yaml"));
    return ["check", "--spec", dir];
  },
};

const expected: Record<string, RegExp> = {
  "--spec naming a file": /^verispec: --spec names a file, not a spec directory: \/.*limits\.yaml\n$/,
  "--spec naming a folder without meta/": /^verispec: not a verispec spec directory \(no meta\/spec\.schema\.yaml\): \/.*no-meta\n$/,
  "--out under a file": /^verispec: the output directory would be under a file: \/.*a-file\/generated\n$/,
  "a symbolic link loop in spec/": /^verispec: symbolic link loop in the spec: \/.*loop\/a\.yaml\n$/,
  "a dangling symbolic link in spec/": /^verispec: broken symbolic link in the spec: \/.*dangling\/gone\.yaml\n$/,
  "a YAML alias bomb":
    /^bomb\/bomb\.yaml:2:\d+: error VS103: found aliases that expand past 100 references \(an alias bomb\); expected YAML without excessive aliases\n$/,
  "a spec file linking outside the spec directory":
    /^verispec: spec file outside\/countries\.yaml resolves outside the spec directory; refused \(not read\)\n$/,
  "a spec file linking to /dev/zero": /^verispec: spec file zero\/zero\.yaml resolves outside the spec directory; refused \(not read\)\n$/,
  "a spec file linking to /proc/self/environ": /^verispec: spec file environ\/limits\.yaml resolves outside the spec directory; refused \(not read\)\n$/,
  "a spec file over 10 MiB": /^verispec: spec file huge\/huge\.yaml is larger than 10,485,760 bytes \(10 MiB\), the most verispec reads\n$/,
  "a directory where the meta-schema file should be": /^verispec: not a verispec spec directory \(no meta\/spec\.schema\.yaml\): \/.*meta-dir\n$/,
};

describe("CLI failures are one line and exit 2", () => {
  it.each(Object.keys(setups))("%s", async (name) => {
    const { code, err } = await run(setups[name]!());
    expect(err).toMatch(expected[name]!);
    expect(code).toBe(2);
  });

  it("a spec file linking outside is refused by sandbox --spec too, and nothing of it is quoted", async () => {
    const { code, err } = await run(["sandbox", "--spec", join(temp, "outside"), "--port", "0", "--db", "memory"]);
    expect(err).toMatch(/^verispec: spec file outside\/countries\.yaml resolves outside the spec directory; refused \(not read\)\n$/);
    expect(err).not.toMatch(/SECRET|authToken/);
    expect(code).toBe(2);
  });

  it("a spec file linking to the byte source /dev/zero inside the spec's own tree is refused at 10 MiB, fast", async () => {
    const dir = specCopy("zero-inside");
    const started = Date.now();
    const { readAtMost } = await import("../../generator/read-bounded.js");
    expect(readAtMost("/dev/zero")).toBeUndefined();
    expect(readAtMost(join(dir, "limits.yaml"))!.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("as a process: no stack trace on stderr", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "generator/cli/bin.ts"), "check", "--spec", join(temp, "dangling")], {
      encoding: "utf8",
      cwd: ROOT,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^verispec: broken symbolic link in the spec: .*\n$/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("validate escapes what it quotes", () => {
  it("a non-JSON input is not quoted at all; terminal escape sequences in its name come out as \\x escapes", async () => {
    const name = "evil\u001b[2J.json";
    writeFileSync(join(temp, name), "\u001b]0;owned\u0007\u009b31m");
    const { code, err } = await run(["validate", "v5.Envelope", name, "--out", join(ROOT, "generated")]);
    expect(code).toBe(2);
    expect(err).toBe("verispec: evil\\x1b[2J.json is not JSON: expected a value at line 1, column 1\n");
    expect(err).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]|owned/);
  });

  it("escapeControl keeps printable text and escapes C0, DEL, C1 and bidirectional overrides", () => {
    expect(escapeControl("ok \u00e9\u4e2d")).toBe("ok \u00e9\u4e2d");
    expect(escapeControl("a\u0000\u001b\u007f\u0085\u202e\u2066")).toBe("a\\x00\\x1b\\x7f\\x85\\u{202e}\\u{2066}");
  });
});

describe("any other file-system failure", () => {
  it("is described by its code and path, escaped", () => {
    let err: unknown;
    try {
      readdirSync(join(temp, "missing\u001b[31m"));
    } catch (e) {
      err = e;
    }
    expect(describeFsError(err)).toBe(`no such file or directory: ${join(temp, "missing")}\\x1b[31m`);
    expect(describeFsError(new Error("plain"))).toBeUndefined();
  });
});

describe("a quoted excerpt is short and secret-redacted", () => {
  it("replaces the values of secret-named assignments and long mixed tokens, keeps ordinary text", () => {
    expect(redactSecrets("CI_TOKEN=abc123 PATH=/usr/bin")).toBe("CI_TOKEN=[redacted] PATH=/usr/bin");
    expect(redactSecrets("//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsT")).toBe("//registry.npmjs.org/:_authToken=[redacted]");
    expect(redactSecrets('password: "hunter2"')).toBe("password: [redacted]");
    expect(redactSecrets("token ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv")).toBe("token [redacted]");
    expect(redactSecrets("unregulatedTrust, publicCompany, iso3166Alpha3")).toBe("unregulatedTrust, publicCompany, iso3166Alpha3");
    expect(describeValue("CI_TOKEN=supersecretvalue\u0000PATH=/usr/bin")).not.toContain("supersecret");
    expect(describeValue("x".repeat(200)).length).toBeLessThanOrEqual(61);
  });

  it("a spec value holding a secret is redacted in the diagnostic that quotes it", async () => {
    const dir = specCopy("secret-value");
    writeFileSync(join(dir, "limits.yaml"), "CI_TOKEN=supersecretvalue1234\n");
    const { code, err } = await run(["check", "--spec", dir]);
    expect(code).not.toBe(0);
    expect(err).not.toContain("supersecretvalue1234");
  });
});
