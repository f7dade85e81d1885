// Start-up: from spawning the process to its ready line, for `verispec sandbox --db memory`, `--db <a new
// directory>` and `--db <an existing directory>` (as users run it: bin/verispec.js, built if stale), beside
// Prism's mock (`npm run mock`) started in the same rounds. Rounds are interleaved, each in another order;
// the summary is the median over the rounds and each sandbox start's ratio to Prism's start of its round.
// A test suite's in-process start (startSandbox() of verispec/sandbox) is measured in the same rounds.
// Goal (issue 28): --db memory, a new directory and the in-process start ready in at most 0.5x Prism's time.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, distIsCurrent } from "../generator/build.js";
import { median } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const ROUNDS = Number(process.env.START_BENCH_ROUNDS ?? 5);
const GOAL = 0.5;

type Kind = "prism" | "memory" | "new directory" | "existing directory" | "in-process";
const KINDS: readonly Kind[] = ["prism", "memory", "new directory", "existing directory", "in-process"];
/** The sandbox's own kinds held to the goal: what a test suite starts. */
const GOAL_KINDS = ["memory", "new directory", "in-process"] as const;

/**
 * A test suite's in-process start (docs/sandbox.md, verispec/sandbox): in a fresh Node process, the time of
 * `await import("verispec/sandbox")` and `await startSandbox()` (the suite's process is already running,
 * so Node's own start is not counted), printed as its ready line; a second start in the same process beside it.
 */
const IN_PROCESS = `const t0 = performance.now();
const { startSandbox } = await import(${JSON.stringify(new URL("../dist/templates/sandbox/api.js", import.meta.url).href)});
const first = await startSandbox();
const t1 = performance.now();
await first.close();
const t2 = performance.now();
const second = await startSandbox();
const t3 = performance.now();
await second.close();
console.log("in-process ready " + (t1 - t0).toFixed(0) + " ms, second start " + (t3 - t2).toFixed(0) + " ms");`;

/** Milliseconds from spawn to the first output line matching `ready`; the process is stopped after. */
function timeToReady(command: string, args: string[], ready: RegExp): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${out.slice(-300)}`)), 120_000);
    const check = (c: Buffer) => {
      out += c.toString("utf8");
      if (!ready.test(out)) return;
      const ms = performance.now() - started;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.once("exit", () => resolve(ms));
      child.kill("SIGTERM");
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", (code) => reject(new Error(`${command} exited ${code}: ${out.slice(-300)}`)));
  });
}

const SANDBOX_READY = /verispec sandbox listening on/;

/** The in-process script's own figure (the first start), read from its output line. */
function inProcess(scratch: string): Promise<number> {
  // A file, not `node --input-type=module -e`: PGlite's worker thread inherits the process's flags.
  const script = join(scratch, "in-process.mjs");
  writeFileSync(script, IN_PROCESS);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.once("exit", (code) => {
      const m = /in-process ready (\d+) ms, second start (\d+) ms/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`in-process start failed (${code}): ${out.slice(-300)}`));
      secondStarts.push(Number(m[2]));
      resolve(Number(m[1]));
    });
  });
}
const secondStarts: number[] = [];

function start(kind: Kind, dirs: { scratch: string; existing: string }, round: number): Promise<number> {
  if (kind === "in-process") return inProcess(dirs.scratch);
  if (kind === "prism") {
    const prism = fileURLToPath(new URL("../node_modules/.bin/prism", import.meta.url));
    return timeToReady(prism, ["mock", "--host", "127.0.0.1", "--port", "4019", "generated/openapi.json"], /Prism is listening/);
  }
  const db = kind === "memory" ? "memory" : kind === "new directory" ? join(dirs.scratch, `new-${round}`) : dirs.existing;
  return timeToReady(process.execPath, ["bin/verispec.js", "sandbox", "--port", "0", "--db", db], SANDBOX_READY);
}

export default async function run(): Promise<void> {
  if (!distIsCurrent()) build();
  console.log(
    `${new Date().toISOString().slice(0, 16)}Z, load average at the start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const scratch = mkdtempSync(join(tmpdir(), "verispec-start-bench-"));
  const existing = join(scratch, "existing");
  try {
    await timeToReady(process.execPath, ["bin/verispec.js", "sandbox", "--port", "0", "--db", existing], SANDBOX_READY); // creates it
    const rounds: Record<Kind, number>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = KINDS.map((_, i) => KINDS[(i + r) % KINDS.length]!);
      const round = {} as Record<Kind, number>;
      for (const kind of order) round[kind] = await start(kind, { scratch, existing }, r);
      rounds.push(round);
      console.log(`round ${r + 1}: ${KINDS.map((k) => `${k} ${round[k].toFixed(0)} ms`).join(", ")}`);
    }
    console.log(`\nstart to ready line, ${ROUNDS} rounds: medians over the rounds (lowest-highest); ratio: each round's sandbox start / Prism's\n`);
    console.log("| start | ms | ratio to Prism |");
    console.log("|---|---:|---:|");
    const range = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;
    for (const kind of KINDS) {
      const ms = rounds.map((r) => r[kind]);
      const ratios = rounds.map((r) => r[kind] / r.prism);
      console.log(
        `| ${kind === "prism" ? "Prism mock" : kind === "in-process" ? "startSandbox() in-process" : `sandbox --db ${kind}`} | ${median(ms).toFixed(0)} (${range(ms, 0)}) | ${kind === "prism" ? "1" : `${median(ratios).toFixed(2)} (${range(ratios, 2)})`} |`,
      );
    }
    console.log(`\nin-process, a second start in the same process: ${median(secondStarts).toFixed(0)} ms (${range(secondStarts, 0)})`);
    for (const kind of GOAL_KINDS) {
      const ratio = median(rounds.map((r) => r[kind] / r.prism));
      console.log(
        `goal: ${kind === "in-process" ? "in-process startSandbox()" : `--db ${kind}`} ready in <= ${GOAL}x Prism's time: ${ratio <= GOAL ? "met" : "NOT met"} (${ratio.toFixed(2)}x)`,
      );
    }
    console.log(
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
