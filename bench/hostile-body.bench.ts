// Hostile request bodies against the sandbox (issue 39, item 1): for each, the sandbox's peak memory over
// its own high-water mark after start (VmHWM of /proc/<pid>/status: the kernel's record of the largest
// resident size, so no peak between two samples is missed; reset to the current size before each body by
// writing 5 to /proc/<pid>/clear_refs, so each row is that body's own peak), and the latency of another
// client's small request (GET /v5/verifications/<trace>, one every 10 ms) while the hostile body is sent and
// answered. Goal: at most 64 MB over the high-water mark, the other client answered within 100 ms. The
// sandbox runs as users run it (bin/verispec.js, compiled), `--db memory`, with its default body limit
// (spec/sandbox.yaml requestSize), each body made to fill that limit; `BENCH_MAX_BODY=<bytes>` starts it
// with `--max-body <bytes>` and fills that instead; `BENCH_DB=<dir>` runs it on a PGlite directory. Figures:
// docs/security.md.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { Agent, request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { parse } from "yaml";
import { build, distIsCurrent } from "../generator/build.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const AUTH = `Basic ${Buffer.from("bench-uid:bench-secret").toString("base64")}`;
const MB = 1024 * 1024;
const individual = (extra: string) => `{"type":"individual","subType":"data","country":"AUS","name":"Hostile Person","website":"https://example.com"${extra}}`;
/** The sandbox's default body limit, as spec/sandbox.yaml states it. */
const DEFAULT_LIMIT = (parse(readFileSync(new URL("../spec/sandbox.yaml", import.meta.url), "utf8")) as { choices: { requestSize: { maxBodyBytes: number } } })
  .choices.requestSize.maxBodyBytes;
const LIMIT = Number(process.env.BENCH_MAX_BODY ?? DEFAULT_LIMIT);
/** BENCH_PROCESSING_MS=<ms>: processing on (each stored verification changes status, and is stored again, after it). */
const PROCESSING = process.env.BENCH_PROCESSING_MS;
const mib = (bytes: number) => `${(bytes / MB).toFixed(bytes % MB === 0 ? 0 : 1)} MiB`;
/** Room for the JSON around a filled value. */
const ROOM = 400;
/** An incompressible string of n characters (base64 of random bytes: a document's content). */
const incompressible = (n: number) =>
  randomBytes(Math.ceil((n * 3) / 4))
    .toString("base64")
    .slice(0, n);

/** The hostile bodies (name, path, content type, body), each filling `limit` bytes, and one over it. */
function cases(limit: number): ReadonlyArray<readonly [string, string, string, () => string]> {
  const L = mib(limit);
  const tags = Math.floor((limit - ROOM) / 2);
  const arrays = Math.floor((limit - ROOM) / 4000);
  const keys = Math.floor((limit - ROOM) / 14);
  const depth = Math.floor(limit / 2);
  return [
    [`${L}, ${tags.toLocaleString("en-US")} invalid tags`, "/v5/verifications", "application/json", () => individual(`,"tags":[${"1,".repeat(tags - 1)}1]`)],
    [
      `${arrays.toLocaleString("en-US")} arrays of 1,000 items (${L})`,
      "/v5/verifications",
      "application/json",
      () =>
        individual(
          `,"documents":[${Array(arrays)
            .fill(`[${"1,".repeat(999)}1]`)
            .join(",")}]`,
        ),
    ],
    [
      `an object of ${keys.toLocaleString("en-US")} keys (${L})`,
      "/v5/verifications",
      "application/json",
      () => individual(`${`,"identifiers":{${Array.from({ length: keys }, (_, i) => `"k${i}":1`).join(",")}}`.slice(0, limit - 2)}}}`),
    ],
    [`${depth.toLocaleString("en-US")} levels of nesting (${L})`, "/v5/verifications", "application/json", () => `${"[".repeat(depth)}${"]".repeat(depth)}`],
    [
      `${L} of form fields`,
      "/_form/00000000-0000-4000-8000-000000000000",
      "application/x-www-form-urlencoded",
      () => "a=1&".repeat(Math.floor((limit - 10) / 4)),
    ],
    [
      `a valid string of half the limit (stored)`,
      "/v5/verifications",
      "application/json",
      () => individual(`,"inputRisk":"${"x".repeat(Math.floor(limit / 2) - ROOM)}"`),
    ],
    [`a valid string filling the limit (stored)`, "/v5/verifications", "application/json", () => individual(`,"inputRisk":"${"x".repeat(limit - ROOM)}"`)],
    [
      `a string of \\u escapes filling the limit (stored)`,
      "/v5/verifications",
      "application/json",
      () => individual(`,"inputRisk":"${"\\u00e9".repeat(Math.floor((limit - ROOM) / 6))}"`),
    ],
    [
      `an incompressible string filling the limit (random base64, stored)`,
      "/v5/verifications",
      "application/json",
      () => individual(`,"inputRisk":"${incompressible(limit - ROOM)}"`),
    ],
    [`10 MiB declared, over the limit`, "/v5/verifications", "application/json", () => individual(`,"inputRisk":"${"x".repeat(10 * MB - ROOM)}"`)],
  ];
}

interface Answer {
  readonly status: number;
  readonly ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(base: string, method: string, path: string, body?: string, type = "application/json"): Promise<Answer & { text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      `${base}${path}`,
      { method, agent, headers: { authorization: AUTH, ...(body !== undefined ? { "content-type": type, "content-length": Buffer.byteLength(body) } : {}) } },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    // A body refused before it is read in full is answered, then its connection closed: the rest of the write fails (EPIPE), the answer stands.
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (answered) return;
      // The sandbox answered and closed before the client finished writing, and the client saw the error first.
      if (err.code === "EPIPE" || err.code === "ECONNRESET")
        resolve({ status: 0, ms: performance.now() - started, text: `"code":"${err.code.toLowerCase()}"` });
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
  const limit = process.env.BENCH_MAX_BODY === undefined ? [] : ["--max-body", String(LIMIT)];
  // BENCH_CPU_PROF=<dir>: V8 CPU profiles of the sandbox's threads (bench/lib/cpu-profile.ts reads them).
  const prof = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(
    process.execPath,
    [...prof, "bin/verispec.js", "sandbox", "--port", "0", "--db", process.env.BENCH_DB ?? "memory", "--processing-ms", PROCESSING ?? "manual", ...limit],
    {
      cwd: ROOT,
      env: { ...process.env, VERISPEC_SANDBOX_SERVICE_UID: "bench-uid", VERISPEC_SANDBOX_SECRET: "bench-secret", VERISPEC_SIGNING_SECRET: "bench-signing-key" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
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
    for (let i = 0; i < 300; i++)
      trace = (JSON.parse((await send(url, "POST", "/v5/verifications", individual(`,"tags":["warm:${i}"]`))).text) as { trace: string }).trace;
    for (let i = 0; i < 100; i++) await send(url, "GET", `/v5/verifications/${trace}`);
    await new Promise((r) => setTimeout(r, 1000));
    const base = highWaterMb(child.pid!);
    console.log(
      `sandbox (bin/verispec.js, --db ${process.env.BENCH_DB ?? "memory"}, body limit ${LIMIT.toLocaleString("en-US")} bytes): high-water mark after start and warm-up ${base.toFixed(0)} MB\n`,
    );
    // BENCH_REPEAT=<n> (default 3): each body sent n times, one after the other; its row pools the other client's
    // answers over the n and shows the largest peak and the slowest answer (one sample on a loaded machine is noise).
    const repeat = Math.max(1, Number(process.env.BENCH_REPEAT ?? 3));
    console.log(
      `| hostile body (each sent ${repeat} times) | answer | answered in (slowest) | peak (over the start's high-water mark; negative: below it) | other client: requests, p50 / p90 / max | load (1 min) |`,
    );
    console.log("|---|---|---|---|---|---|");
    const spread = (l: readonly number[]) =>
      `${l.length}, ${l[Math.floor(l.length / 2)]!.toFixed(1)} / ${l[Math.min(l.length - 1, Math.floor(l.length * 0.9))]!.toFixed(1)} / ${l.at(-1)!.toFixed(1)} ms`;
    // The peer: the other client alone, for as long as a hostile body takes, on the same machine in the same run.
    const alone = otherClient(url, trace);
    await new Promise((r) => setTimeout(r, 2000));
    const idle = (await alone.stop()).sort((a, b) => a - b);
    console.log(`| (none: the other client alone, 2 s) | | | | ${spread(idle)} | ${loadavg()[0]!.toFixed(1)} |`);
    let worstMb = 0;
    let worstMs = 0;
    // BENCH_CASES=<regex>: only the bodies whose name matches.
    const only = new RegExp(process.env.BENCH_CASES ?? "");
    for (const [name, path, type, make] of cases(LIMIT).filter(([name]) => only.test(name))) {
      const latencies: number[] = [];
      let peak = 0;
      let slowest = 0;
      let answer: Answer & { text: string } = { status: 0, ms: 0, text: "" };
      for (let r = 0; r < repeat; r++) {
        let body: string | undefined = make();
        const other = otherClient(url, trace);
        await new Promise((r) => setTimeout(r, 300));
        // This body's own peak: the high-water mark starts again from the size now.
        writeFileSync(`/proc/${child.pid!}/clear_refs`, "5");
        answer = await send(url, "POST", path, body, type);
        body = undefined;
        // With processing on, the other client keeps asking until the stored verification has been processed too.
        await new Promise((r) => setTimeout(r, PROCESSING === undefined ? 50 : Number(PROCESSING) + 1500));
        latencies.push(...(await other.stop()));
        peak = Math.max(peak, highWaterMb(child.pid!));
        slowest = Math.max(slowest, answer.ms);
        if (answer.status >= 500) throw new Error(`${name}: answered ${answer.status}`);
      }
      latencies.sort((a, b) => a - b);
      const over = peak - base;
      worstMb = Math.max(worstMb, over);
      worstMs = Math.max(worstMs, latencies.at(-1)!);
      const code = /"(?:code|type)":"([a-z_]+)"/.exec(answer.text)?.[1] ?? "";
      console.log(
        `| ${name} | ${answer.status} ${code} | ${slowest.toFixed(0)} ms | ${peak.toFixed(0)} MB (${over >= 0 ? "+" : ""}${over.toFixed(1)}) | ${spread(latencies)} | ${loadavg()[0]!.toFixed(1)} |`,
      );
    }
    console.log(
      `\nworst: ${worstMb.toFixed(1)} MB over the high-water mark (goal at most 64), the other client's slowest answer ${worstMs.toFixed(1)} ms (goal within 100; alone: ${idle.at(-1)!.toFixed(1)} ms), load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    if (worstMb > 64 || worstMs > 100) process.exitCode = 1;
  } finally {
    agent.destroy();
    child.kill("SIGTERM");
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void run();
