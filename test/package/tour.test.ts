// The README's five-minute tour, run as a newcomer would: the packed tarball sits where the README's
// install step expects it (../verispec/verispec-<version>.tgz beside an empty directory), and the tour's
// shell blocks run in order in one bash, with its programs (receiver.js, client.js) written from the
// README's blocks. The sandbox and the receiver are the tour's own background jobs. The one change to the
// README's text: free ports instead of 4010 and 3000, so that the test never meets another program's port.
// npm reads its usual cache first (prefer-offline); the tarball's dependencies are those `npm ci` fetched.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { docSection } from "../support/docs.js";

const root = new URL("../../", import.meta.url).pathname;
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The tour as one bash script: its ```sh blocks in order, each `<!-- tour-file: name -->` block written to that file. */
export function tourScript(section: string): string {
  const parts: string[] = [];
  for (const m of section.matchAll(/(?:<!-- tour-file: (\S+) -->\n)?```(sh|js)\n([\s\S]*?)```/g)) {
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

describe("the README's tour", () => {
  it("reads the tour's blocks: the install, generate, validate, the credentials, both programs, the run", () => {
    const script = tourScript(docSection("tour"));
    for (const step of [`npm install ../verispec/verispec-${version}.tgz`, "npx verispec generate", "npx verispec validate", "export VERISPEC_SIGNING_SECRET=", "cat > receiver.js", "cat > client.js", "npx verispec sandbox", "node client.js"])
      expect(script, step).toContain(step);
    // The install the README tells (Install) is the one the tour runs.
    expect(docSection("tour")).toContain("../verispec/verispec-0.1.0.tgz");
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain(`npm install ../verispec/verispec-${version}.tgz @electric-sql/pglite`);
  });

  it("from an empty directory to a verified webhook, with nothing but what the README says", async () => {
    const started = Date.now();
    const base = mkdtempSync(join(tmpdir(), "verispec-tour-"));
    dirs.push(base);
    // "npm ci && npm pack" in a checkout: dist/ is current here (test/support/dist.ts), so pack only.
    mkdirSync(join(base, "verispec"));
    const env = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false", npm_config_prefer_offline: "true" };
    delete (env as Record<string, string | undefined>).npm_config_cache; // the user's own cache, not vitest's npm run's settings
    for (const k of ["VERISPEC_SANDBOX_SERVICE_UID", "VERISPEC_SANDBOX_SECRET", "VERISPEC_SIGNING_SECRET"]) delete (env as Record<string, string | undefined>)[k];
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
});
