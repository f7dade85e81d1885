// Issue 37, section 1: the webhook runtime runs wherever integrators' code runs. The conformance vectors'
// webhook cases (50 cases, 7 replay sequences) pass on Node, Deno, Bun, workerd (the Worker also
// verifies each delivery sent to it over HTTP through verifyWebhookRequest) and in headless Chromium, from
// one esbuild bundle made with platform "neutral". Each runtime missing skips with one line.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needFound, needProgram, onPath } from "../support/services.js";
import { ROOT } from "../validators/helpers.js";
import { bundle } from "./runtimes/bundle.js";
import { runAll } from "./runtimes/entry.js";
import type { VectorReport, WebhookDelivery, WebhookVectorFile } from "./runtimes/vectors-runner.js";

const vectors = JSON.parse(readFileSync(join(ROOT, "generated", "conformance", "webhooks.json"), "utf8")) as WebhookVectorFile;
const DELIVERIES = vectors.cases.length + vectors.sequences.reduce((n, s) => n + s.steps.length, 0);

/** An npm-installed runtime (devDependencies): on PATH, else node_modules/.bin, and only if it starts. */
function npmRuntime(name: string) {
  const path = onPath(name) ?? join(ROOT, "node_modules", ".bin", name);
  const works = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 }).status === 0;
  return needFound(name, works ? path : undefined, `npm install (the ${name} devDependency)`);
}

const deno = npmRuntime("deno");
const bun = npmRuntime("bun");
const workerd = npmRuntime("workerd");
const chromiumProgram = needProgram("chromium", "apt-get install -y chromium");

let dir = "";
let esm = "";
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "verispec-runtimes-"));
  esm = await bundle("entry.ts", "esm");
  writeFileSync(join(dir, "bundle.mjs"), esm);
  writeFileSync(join(dir, "run.mjs"), 'import { runAll } from "./bundle.mjs";\nconsole.log(JSON.stringify(await runAll()));\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectAllPass(report: VectorReport, runtime: string): void {
  expect(report.runtime).toBe(runtime);
  expect(report.failures).toEqual([]);
  expect([report.cases, report.sequences, report.deliveries]).toEqual([vectors.cases.length, vectors.sequences.length, DELIVERIES]);
}

function runScript(program: string, args: readonly string[]): VectorReport {
  const env = { ...process.env, DENO_DIR: join(dir, "deno"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
  const r = spawnSync(program, [...args, join(dir, "run.mjs")], { encoding: "utf8", env, timeout: 60_000 });
  expect(r.stderr, `${program} stderr`).toBe("");
  return JSON.parse(r.stdout.trim()) as VectorReport;
}

describe("the webhook vectors on every runtime", () => {
  it("the bundle (platform neutral) has no Node built-in and no import left", () => {
    expect(esm).not.toMatch(/\bfrom\s*["'](node:|crypto|buffer)/);
    expect(esm).not.toMatch(/\brequire\(/);
    expect(esm).not.toMatch(/^\s*import\s/m);
  });

  it("Node", async () => expectAllPass(await runAll(), "node"));
  it.skipIf(!deno.found)("Deno", () => expectAllPass(runScript(deno.path, ["run", "--no-prompt"]), "deno"));
  it.skipIf(!bun.found)("Bun", () => expectAllPass(runScript(bun.path, []), "bun"));

  it.skipIf(!chromiumProgram.found)(
    "headless Chromium",
    async () => {
      const browser = await chromium.launch({
        executablePath: chromiumProgram.path,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      try {
        const page = await browser.newPage();
        await page.addScriptTag({ content: await bundle("entry.ts", "iife") });
        const report = await page.evaluate(() => (globalThis as unknown as { verispecVectors: { runAll(): Promise<VectorReport> } }).verispecVectors.runAll());
        expectAllPass(report, "browser");
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});

describe.skipIf(!workerd.found)("the webhook vectors in workerd (a Cloudflare Worker)", () => {
  let base = "";
  let stop: () => void = () => undefined;
  beforeAll(async () => {
    base = await startWorkerd();
  }, 60_000);
  afterAll(() => stop());

  async function startWorkerd(): Promise<string> {
    const port = await freePort();
    writeFileSync(join(dir, "worker.mjs"), await bundle("worker.ts", "esm"));
    writeFileSync(join(dir, "config.capnp"), workerdConfig(port));
    const child = spawn(workerd.path, ["serve", join(dir, "config.capnp")], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    stop = () => void child.kill();
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) throw new Error(`workerd exited: ${stderr}`);
      if (
        await fetch(`${url}/nothing`).then(
          () => true,
          () => false,
        )
      )
        return url;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`workerd did not listen: ${stderr}`);
  }

  it("every vector, verified inside the Worker", async () => {
    expectAllPass((await (await fetch(`${base}/run`)).json()) as VectorReport, "workerd");
  });

  it("every vector sent over HTTP, verified by verifyWebhookRequest (the Fetch entry) in the Worker", async () => {
    const failures: string[] = [];
    const post = async (id: string, d: WebhookDelivery, store: string) => {
      const q = new URLSearchParams({ now: String(d.now), store, ...(d.allowBodySignature ? { allowBodySignature: "1" } : {}) });
      for (const s of d.secrets) q.append("secret", s);
      const got = (await (await fetch(`${base}/verify?${q}`, { method: "POST", headers: d.headers, body: d.body })).json()) as {
        verdict: string;
        reason?: string;
      };
      const ok = got.verdict === d.expect.verdict && (d.expect.verdict === "accept" || got.reason === d.expect.reason);
      if (!ok) failures.push(`${id}: got ${JSON.stringify(got)}, want ${JSON.stringify(d.expect)}`);
    };
    for (const c of vectors.cases) {
      // Names differing only in case are one header on the wire: such a case cannot travel as written.
      if (new Set(Object.keys(c.headers).map((n) => n.toLowerCase())).size !== Object.keys(c.headers).length) continue;
      await post(c.id, c, c.id);
    }
    for (const s of vectors.sequences) for (const [i, step] of s.steps.entries()) await post(`${s.id} step ${i + 1}`, step, s.id);
    expect(failures).toEqual([]);
  }, 60_000);
});

function workerdConfig(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .vectorsWorker) ],
  sockets = [ ( name = "http", address = "127.0.0.1:${port}", http = (), service = "main" ) ]
);
const vectorsWorker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.mjs") ],
  compatibilityDate = "2025-01-01",
);
`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe("the webhook runtime's types need no Node", () => {
  // The package's .d.ts (dist/, built by the test setup) type-checked as a Worker's or a browser's project:
  // lib ES2022 + DOM, no @types/node, every .d.ts checked (skipLibCheck off).
  const DIST = join(ROOT, "dist", "generated");
  const consumer = `import { signWebhook, verifyWebhook, verifyWebhookRequest, webhookRefusalResponse, MemoryReplayStore, type WebhookPayload } from "${DIST}/webhooks.js";
import { RedisReplayStore } from "${DIST}/runtime/webhooks/redis.js";
import { expressWebhook } from "${DIST}/runtime/webhooks/express.js";
import { fastifyWebhook } from "${DIST}/runtime/webhooks/fastify.js";
export async function handle(request: Request): Promise<Response> {
  try {
    const { payload }: { payload: WebhookPayload } = await verifyWebhookRequest(request, { secret: "k", replayStore: new MemoryReplayStore() });
    const body = new TextEncoder().encode(JSON.stringify(payload));
    await verifyWebhook({ rawBody: body.buffer, headers: new Headers(signWebhook({ version: "2", rawBody: body, secret: "k" })), secret: "k" });
    return new Response(null, { status: 204 });
  } catch (error) {
    return webhookRefusalResponse(error);
  }
}
export const adapters = [expressWebhook, fastifyWebhook, RedisReplayStore];
`;

  function typeCheck(source: string): { status: number | null; output: string } {
    const project = mkdtempSync(join(tmpdir(), "verispec-dom-types-"));
    try {
      const compilerOptions = {
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        types: [],
        skipLibCheck: false,
      };
      writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
      writeFileSync(join(project, "consumer.ts"), source);
      const r = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", project], { encoding: "utf8", timeout: 120_000 });
      return { status: r.status, output: r.stdout + r.stderr };
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }

  it("verispec/webhooks and its subpaths compile with lib ES2022 + DOM and no @types/node", () => {
    const r = typeCheck(consumer);
    expect(r.output).toBe("");
    expect(r.status).toBe(0);
  }, 120_000);

  it("the same project refuses a Node type (the check would see one)", () => {
    const r = typeCheck(`${consumer}export const nodeOnly: Buffer | undefined = undefined;\n`);
    expect(r.output).toContain("Cannot find name 'Buffer'");
  }, 120_000);
});
