// Hostile request bodies against the sandbox (issue 39, item 1): for each, the sandbox's peak memory over
// its own high-water mark after start (VmHWM of /proc/<pid>/status: the kernel's record of the largest
// resident size, so no peak between two samples is missed), and the latency of another client's small
// request (GET /v5/verifications/<trace>, one every 10 ms) while the hostile body is sent and answered.
// Goal: at most 64 MB over the high-water mark, the other client answered within 100 ms. The sandbox runs
// as users run it (bin/verispec.js, compiled), `--db memory`. Figures: docs/security.md.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { Agent, request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { build, distIsCurrent } from "../generator/build.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const AUTH = `Basic ${Buffer.from("bench-uid:bench-secret").toString("base64")}`;
const MB = 1024 * 1024;
const individual = (extra: string) => `{"type":"individual","subType":"data","country":"AUS","name":"Hostile Person","website":"https://example.com"${extra}}`;

/** The hostile bodies: name, path, content type, body. Each at most 10 MiB (the body limit). */
const CASES: ReadonlyArray<readonly [string, string, string, () => string]> = [
  ["10 MB, 5,000,000 invalid tags", "/v5/verifications", "application/json", () => individual(`,"tags":[${"1,".repeat(4_999_990)}1]`)],
  ["2 MB, 1,000,000 tags", "/v5/verifications", "application/json", () => individual(`,"tags":[${"1,".repeat(999_999)}1]`)],
  ["1,000 arrays of 1,000 items (4 MB)", "/v5/verifications", "application/json", () => individual(`,"documents":[${Array(1000).fill(`[${"1,".repeat(999)}1]`).join(",")}]`)],
  ["an object of 500,000 keys (7 MB)", "/v5/verifications", "application/json", () => individual(`,"identifiers":{${Array.from({ length: 500_000 }, (_, i) => `"k${i}":1`).join(",")}}`)],
  ["5,000,000 levels of nesting (10 MB)", "/v5/verifications", "application/json", () => `${"[".repeat(5_000_000)}${"]".repeat(5_000_000)}`],
  ["10 MB of form fields", "/_form/00000000-0000-4000-8000-000000000000", "application/x-www-form-urlencoded", () => "a=1&".repeat(Math.floor((10 * MB - 10) / 4))],
  ["a valid 1 MB string (stored)", "/v5/verifications", "application/json", () => individual(`,"inputRisk":"${"x".repeat(MB - 400)}"`)],
  ["a valid 2 MB string (stored)", "/v5/verifications", "application/json", () => individual(`,"inputRisk":"${"x".repeat(2 * MB - 400)}"`)],
  ["a 10 MB string of \\u escapes (stored)", "/v5/verifications", "application/json", () => individual(`,"inputRisk":"${"\\u00e9".repeat(Math.floor((10 * MB - 400) / 6))}"`)],
  ["a valid 10 MB string (stored)", "/v5/verifications", "application/json", () => individual(`,"inputRisk":"${"x".repeat(10 * MB - 400)}"`)],
];

interface Answer {
  readonly status: number;
  readonly ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(base: string, method: string, path: string, body?: string, type = "application/json"): Promise<Answer & { text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(`${base}${path}`, { method, agent, headers: { authorization: AUTH, ...(body !== undefined ? { "content-type": type, "content-length": Buffer.byteLength(body) } : {}) } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString("utf8") }));
    });
    // A body refused before it is read in full is answered, then its connection closed: the rest of the write fails (EPIPE), the answer stands.
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (answered) return;
      // The sandbox answered and closed before the client finished writing, and the client saw the error first.
      if (err.code === "EPIPE" || err.code === "ECONNRESET") resolve({ status: 0, ms: performance.now() - started, text: `"code":"${err.code.toLowerCase()}"` });
      else reject(err);
    });
    req.end(body);
  });
}

/** The process's high-water mark of resident memory (VmHWM), in MB. */
function highWaterMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function startSandbox(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["bin/verispec.js", "sandbox", "--port", "0", "--db", "memory", "--processing-ms", "manual"], {
    cwd: ROOT, env: { ...process.env, VERISPEC_SANDBOX_SERVICE_UID: "bench-uid", VERISPEC_SANDBOX_SECRET: "bench-secret", VERISPEC_SIGNING_SECRET: "bench-signing-key" }, stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const check = (c: Buffer) => {
      out += c.toString("utf8");
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", (code) => reject(new Error(`sandbox exited ${code}: ${out.slice(-300)}`)));
  });
  return { child, url };
}

/**
 * Another client's small requests, one every 10 ms, in a thread of its own (the bench's main thread spends
 * its own time writing the hostile body), until `stop()`: their latencies.
 */
function otherClient(base: string, trace: string): { stop(): Promise<number[]> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const http = require("node:http");
     const agent = new http.Agent({ keepAlive: true });
     const latencies = [];
     let running = true;
     parentPort.on("message", () => (running = false));
     const once = () => new Promise((resolve, reject) => {
       const started = performance.now();
       http.get(workerData.url, { agent, headers: { authorization: workerData.auth } }, (res) => {
         res.resume();
         res.on("end", () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error("answered " + res.statusCode))));
       }).on("error", reject);
     });
     (async () => {
       while (running) {
         latencies.push(await once());
         await new Promise((r) => setTimeout(r, 10));
       }
       agent.destroy();
       parentPort.postMessage(latencies);
     })();`,
    { eval: true, workerData: { url: `${base}/v5/verifications/${trace}`, auth: AUTH } },
  );
  const result = new Promise<number[]>((resolve, reject) => {
    worker.once("message", (l: number[]) => resolve(l));
    worker.once("error", reject);
  });
  return {
    stop: async () => {
      worker.postMessage("stop");
      const latencies = await result;
      await worker.terminate();
      return latencies;
    },
  };
}

export default async function run(): Promise<void> {
  if (!distIsCurrent()) build();
  const { child, url } = await startSandbox();
  try {
    // Warm-up: the code paths of a create and a read run hot before the high-water mark is taken.
    let trace = "";
    for (let i = 0; i < 300; i++) trace = (JSON.parse((await send(url, "POST", "/v5/verifications", individual(`,"tags":["warm:${i}"]`))).text) as { trace: string }).trace;
    for (let i = 0; i < 100; i++) await send(url, "GET", `/v5/verifications/${trace}`);
    await new Promise((r) => setTimeout(r, 1000));
    const base = highWaterMb(child.pid!);
    console.log(`sandbox (bin/verispec.js, --db memory): high-water mark after start and warm-up ${base.toFixed(0)} MB\n`);
    console.log("| hostile body | answer | answered in | high-water over the start's | other client: requests, p50 / max |");
    console.log("|---|---|---|---|---|");
    // The peer: the other client alone, for as long as a hostile body takes, on the same machine in the same run.
    const alone = otherClient(url, trace);
    await new Promise((r) => setTimeout(r, 2000));
    const idle = (await alone.stop()).sort((a, b) => a - b);
    console.log(`| (none: the other client alone, 2 s) | | | | ${idle.length}, ${idle[Math.floor(idle.length / 2)]!.toFixed(1)} / ${idle.at(-1)!.toFixed(1)} ms |`);
    let worstMb = 0;
    let worstMs = 0;
    for (const [name, path, type, make] of CASES) {
      let body: string | undefined = make();
      const other = otherClient(url, trace);
      await new Promise((r) => setTimeout(r, 300));
      const answer = await send(url, "POST", path, body, type);
      body = undefined;
      await new Promise((r) => setTimeout(r, 50));
      const latencies = (await other.stop()).sort((a, b) => a - b);
      const over = highWaterMb(child.pid!) - base;
      worstMb = Math.max(worstMb, over);
      worstMs = Math.max(worstMs, latencies.at(-1)!);
      const code = /"(?:code|type)":"([a-z_]+)"/.exec(answer.text)?.[1] ?? "";
      console.log(`| ${name} | ${answer.status} ${code} | ${answer.ms.toFixed(0)} ms | ${over.toFixed(1)} MB | ${latencies.length}, ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} / ${latencies.at(-1)!.toFixed(1)} ms |`);
      if (answer.status >= 500) throw new Error(`${name}: answered ${answer.status}`);
    }
    console.log(`\nworst: ${worstMb.toFixed(1)} MB over the high-water mark (goal at most 64), the other client's slowest answer ${worstMs.toFixed(1)} ms (goal within 100; alone: ${idle.at(-1)!.toFixed(1)} ms), load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    if (worstMb > 64 || worstMs > 100) process.exitCode = 1;
  } finally {
    agent.destroy();
    child.kill("SIGTERM");
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void run();
