// The README's five-minute tour, run as a newcomer would: the packed tarball sits where the README's
// install step expects it (../verispec/verispec-<version>.tgz beside an empty directory), and the tour's
// shell blocks run in order in one bash, with its programs (receiver.js, client.js) written from the
// README's blocks. The sandbox and the receiver are the tour's own background jobs. The one change to the
// README's text: free ports instead of 4010 and 3000, so that the test never meets another program's port.
// npm reads its usual cache first (prefer-offline); the tarball's dependencies are those `npm ci` fetched.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { docSection } from "../support/docs.js";
import { needFound } from "../support/services.js";

/** TypeScript 7 (the native compiler, @typescript/native-preview's `tsgo`), when its binary runs here. */
const TSGO = new URL("../../node_modules/@typescript/native-preview/bin/tsgo", import.meta.url).pathname;
const tsgo = needFound(
  "tsgo (TypeScript 7, @typescript/native-preview)",
  spawnSync(process.execPath, [TSGO, "--version"], { encoding: "utf8" }).status === 0 ? TSGO : undefined,
  "npm ci installs it; its native binary must run on this platform",
);

const root = new URL("../../", import.meta.url).pathname;
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The tour as one bash script: its ```sh blocks in order, each `<!-- tour-file: name -->` block (js, ts, jsonc) written to that file. */
function tourScript(section: string): string {
  const parts: string[] = [];
  for (const m of section.matchAll(/(?:<!-- tour-file: (\S+) -->\n)?```(sh|js|ts|jsonc)\n([\s\S]*?)```/g)) {
    const [, file, lang, code] = m;
    if (file) parts.push(`cat > ${file} <<'VERISPEC_TOUR_EOF'\n${code}VERISPEC_TOUR_EOF`);
    else if (lang === "sh") parts.push(code!.trimEnd());
  }
  return `${parts.join("\n")}\n`;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The environment the tour runs in: npm quiet and offline-first, none of the tour's variables set yet. */
function tourEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_prefer_offline: "true",
  };
  delete env.npm_config_cache; // the user's own cache, not vitest's npm run's settings
  for (const k of ["VERISPEC_SANDBOX_SERVICE_UID", "VERISPEC_SANDBOX_SECRET", "VERISPEC_SIGNING_SECRET"]) delete env[k];
  return env;
}

/** The tour's directory once its first half ran (the second half changes its spec). */
let tour: { dir: string; env: NodeJS.ProcessEnv } | undefined;

describe("the README's tour", () => {
  it("reads the tour's blocks: the install, generate, validate, the credentials, both programs, the run", () => {
    const script = tourScript(docSection("tour"));
    for (const step of [
      `npm install ../verispec/verispec-${version}.tgz`,
      "npx verispec generate",
      "npx verispec validate",
      "export VERISPEC_SIGNING_SECRET=",
      "cat > receiver.js",
      "cat > client.js",
      "npx verispec sandbox",
      "node client.js",
    ])
      expect(script, step).toContain(step);
    // The install the README tells (Install) is the one the tour runs.
    expect(docSection("tour")).toContain("../verispec/verispec-0.1.0.tgz");
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain(`npm install ../verispec/verispec-${version}.tgz @electric-sql/pglite`);
  });

  it("from an empty directory to a verified webhook, with nothing but what the README says", async () => {
    const started = Date.now();
    const env = tourEnv();
    const base = mkdtempSync(join(tmpdir(), "verispec-tour-"));
    dirs.push(base);
    tour = { dir: join(base, "tour"), env };
    // "npm ci && npm pack" in a checkout: dist/ is current here (test/support/dist.ts), so pack only.
    mkdirSync(join(base, "verispec"));
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", join(base, "verispec")], { cwd: root, env, stdio: "ignore" });

    const [sandboxPort, receiverPort] = [await freePort(), await freePort()];
    const script = tourScript(docSection("tour")).replaceAll("4010", String(sandboxPort)).replaceAll("3000", String(receiverPort));
    // Its own process group, so that the background jobs (sandbox, receiver) are stopped with it.
    const child = spawn("bash", ["-c", script], { cwd: base, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
    const webhooks = () => out.split("\n").filter((l) => l.startsWith("verified webhook"));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the tour did not reach two verified webhooks:\n${out}\n${err}`)), 420_000);
        const check = () => {
          if (webhooks().length >= 2) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on("data", check);
        child.once("exit", (code) => {
          // The shell ends after `node client.js`; the webhooks may still be on their way.
          if (code !== 0) reject(new Error(`the tour's shell exited ${code}:\n${out}\n${err}`));
        });
      });
    } finally {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    }
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(`the README's tour: ${seconds.toFixed(1)} s from npm pack to the second verified webhook\n`);

    // Step 3: the service's 422 errors for the payload, as the README prints them.
    const readme = docSection("tour");
    const printed = /It prints \(exit 1\):\n\n```\n(.*)\n```/.exec(readme)![1]!;
    expect(out).toContain(`${printed}\n`);
    // Step 7: the sandbox served the tour's own ./spec; the client saw its verification.
    expect(out).toMatch(/verispec sandbox serving \S*tour\/spec /);
    expect(out).toMatch(/created \S+: (pending|verified)\n/);
    // The receiver verified both webhooks, as the README shows them.
    const shown = /```\n(verified webhook[\s\S]*?)```/.exec(readme)![1]!.trim().split("\n");
    expect(webhooks().slice(0, 2)).toEqual(shown);
    expect(out).not.toContain("refused webhook");
    // Installing the tarball asked for no script approval and ran none.
    expect(err).not.toMatch(/npm warn.*(verispec|prepare|install-scripts)/i);
  }, 480_000);

  // Issue 36: the README's "Change the spec", run in the tour's directory after the tour. The v5 `name`
  // maximum goes from 199 to 99; the project's validators, its types, the sandbox, `conform` against that
  // sandbox and `diff` must all agree on the new limit, and name the same spec hash.
  it("the second half: a changed limit, and the code, the types, the sandbox, conform and diff agree on it", async () => {
    expect(tour, "the tour's first half ran").toBeDefined();
    const { dir } = tour!;
    const env = {
      ...tour!.env,
      VERISPEC_SANDBOX_SERVICE_UID: "tour-service",
      VERISPEC_SANDBOX_SECRET: "tour-secret",
      VERISPEC_SIGNING_SECRET: "tour-signing-key",
    };
    const section = docSection("change");
    const change = spawnSync("bash", ["-c", tourScript(section)], { cwd: dir, env, encoding: "utf8" });
    const out = change.stdout;

    // check before generate: stale, one line a file, both hashes; then the project's own entry names the new one.
    const hashes = /is stale \(generated from specHash ([0-9a-f]{16}); the spec is now specHash ([0-9a-f]{16})\)/.exec(out);
    expect(hashes, `${out}\n${change.stderr}`).not.toBeNull();
    const [, before, after] = hashes!;
    expect(after).not.toBe(before);
    expect(out).toContain("changed: generated/validators/errors.js\n");
    expect(readFileSync(join(dir, "generated", "index.js"), "utf8")).toContain(`export const specHash = "${after}";`);
    // The project's validators: the message the README prints.
    const printed = /The validator prints `(.*?)`;/.exec(section)![1]!;
    expect(printed).toContain("Name must be less than 100 characters.");
    expect(out).toContain(`${printed}\n`);
    // diff: breaking, both limits shown.
    expect(out).toMatch(/BREAKING \(\d+\)/);
    expect(out).toMatch(/request-length-tightened\s+maxLength 199 -> 99/);
    expect(change.status).toBe(1); // the script's last command, diff, exits 1 on a breaking change

    // The types: TypeScript cannot state a string's length, so a typed 150-character literal compiles (the
    // types carry the limit in their documentation) and the validator is what refuses it; what the types
    // can state, a country outside the spec's list, tsc refuses.
    // The README's tsconfig.json and typed.ts, after "Change the spec": TypeScript 5.9 and, where its
    // native binary runs, TypeScript 7 (tsgo) accept them with "types": [] and no @types/node in the project.
    const typed = spawnSync("bash", ["-c", tourScript(docSection("typed"))], { cwd: dir, env, encoding: "utf8" });
    expect({ status: typed.status, stderr: typed.stderr }).toEqual({ status: 0, stderr: "" });
    expect(readFileSync(join(dir, "tsconfig.json"), "utf8")).toContain('"types": []');
    expect(existsSync(join(dir, "node_modules", "@types", "node"))).toBe(false);
    for (const compiler of [join(root, "node_modules/typescript/bin/tsc"), ...(tsgo.found ? [tsgo.path] : [])]) {
      const tsc = spawnSync(process.execPath, [compiler, "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
      expect({ compiler, status: tsc.status, stdout: tsc.stdout }).toEqual({ compiler, status: 0, stdout: "" });
    }
    expect(readFileSync(join(dir, "generated", "types.d.ts"), "utf8")).toContain("/** Fewer than 100 characters. */\n    name?: string;");

    // The sandbox serves ./spec: its start line names the same hash, and it answers the new limit.
    const port = await freePort();
    const sandbox = spawn("npx", ["verispec", "sandbox", "--port", String(port), "--db", "memory", "--processing-ms", "manual"], {
      cwd: dir,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    sandbox.stdout.on("data", (c: Buffer) => (log += c.toString("utf8")));
    sandbox.stderr.on("data", (c: Buffer) => (log += c.toString("utf8")));
    try {
      for (const started = Date.now(); !log.includes("listening"); await new Promise((r) => setTimeout(r, 200)))
        if (Date.now() - started > 120_000) throw new Error(`the sandbox did not start:\n${log}`);
      expect(log).toContain(`specHash ${after})`);
      const url = `http://127.0.0.1:${port}`;
      const auth = `Basic ${Buffer.from("tour-service:tour-secret").toString("base64")}`;
      const create = async (name: string) => {
        const r = await fetch(`${url}/v5/verifications`, {
          method: "POST",
          headers: { authorization: auth, "content-type": "application/json" },
          body: JSON.stringify({ type: "individual", subType: "data", country: "AUS", name, website: "https://example.com" }),
        });
        return { status: r.status, body: (await r.json()) as { error?: { issues?: { message: string }[] }; message?: string } };
      };
      const refused = await create("x".repeat(150));
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toContain("Name must be less than 100 characters.");
      expect((await create("x".repeat(100))).status).toBe(422); // "fewer than 100"
      expect((await create("x".repeat(99))).status).toBe(200);

      // conform against that sandbox, from ./spec: every check holds, and its report names the same hash.
      const conform = spawnSync(
        "npx",
        ["verispec", "conform", url, "--format", "json", "--rate", "1000", "--max-requests", "3000", "--requested-actions-path", "/requestedActions"],
        {
          cwd: dir,
          env: { ...env, VERISPEC_CONFORM_SERVICE_UID: "tour-service", VERISPEC_CONFORM_SECRET: "tour-secret" },
          encoding: "utf8",
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      const report = JSON.parse(conform.stdout) as { summary: { specHash: string; held: number; failed: number }; checks: { id: string; outcome: string }[] };
      expect(report.checks.filter((c) => c.outcome === "failed")).toEqual([]);
      expect(conform.status).toBe(0);
      expect(report.summary.specHash).toBe(after);
      const nameChecks = report.checks.filter((c) => /^vector:v5\.VerificationCreateRequest\/name\//.test(c.id));
      expect(nameChecks.length).toBeGreaterThan(0);
      expect(nameChecks.filter((c) => c.outcome !== "held" && c.outcome !== "warned")).toEqual([]);
    } finally {
      try {
        process.kill(-sandbox.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    }
  }, 480_000);
});
