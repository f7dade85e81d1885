// One (payload, implementation) pair in a process of its own: no JIT feedback, inline caches or heap
// left by another implementation. Prints one JSON line.
//
//   time mode:  calibrate a batch to ~SAMPLE_MS, warm up, then SAMPLES batches; their lower quartile in
//               ns/op (on a shared machine preemption only ever adds time, so the low samples are the
//               ones that measured the code; a quartile, not the minimum, keeps the usual GC pauses in).
//   count mode: a fixed warm-up and a fixed number of operations, untimed (for callgrind, which counts
//               the instructions of the whole process; the harness takes the difference of two counts).
import { pathToFileURL } from "node:url";
import type { Batch, Suite, ThroughputSuite } from "./suite.js";
import { quantile } from "./stats.js";

/**
 * The clock: wall time, or with VERISPEC_BENCH_CLOCK=cpu (`npm run bench -- --cpu`) this process's CPU time
 * (user + system, its own threads: GC and compiler threads included), which leaves out the time spent
 * waiting for a core. On a machine shared with other jobs (load above its cores), wall time measures the
 * queue; CPU time still measures the code.
 */
const clockMs: () => number =
  process.env["VERISPEC_BENCH_CLOCK"] === "cpu"
    ? () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      }
    : () => performance.now();

const SAMPLE_MS = 4;
const SAMPLES = 40;
const WARMUP_MS = 200;

async function runBatch(batch: Batch, n: number): Promise<unknown> {
  const out = batch(n);
  return out instanceof Promise ? await out : out;
}

async function time(batch: Batch): Promise<{ nsPerOp: number; samples: number[] }> {
  let n = 1;
  for (;;) {
    const t = clockMs();
    await runBatch(batch, n);
    const ms = clockMs() - t;
    if (ms >= 1) {
      n = Math.max(1, Math.round((n * SAMPLE_MS) / ms));
      break;
    }
    n *= 2;
  }
  const warmEnd = clockMs() + WARMUP_MS;
  while (clockMs() < warmEnd) await runBatch(batch, n);
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const t = clockMs();
    await runBatch(batch, n);
    samples.push(((clockMs() - t) * 1e6) / n);
  }
  return { nsPerOp: quantile(samples, 0.25), samples };
}

async function main(): Promise<void> {
  const [file, suiteId, payload, impl, mode = "time"] = process.argv.slice(2);
  if (!file || !suiteId || !payload || !impl) throw new Error("usage: child.ts <bench file> <suite id> <payload> <impl> [time|count:<warm>:<n>]");
  const { suites } = (await import(pathToFileURL(file).href)) as { suites: readonly Suite[] };
  const suite = suites.find((s): s is ThroughputSuite => s.kind === "throughput" && s.id === suiteId);
  if (!suite) throw new Error(`${file} has no throughput suite ${suiteId}`);
  const batch = await suite.load(payload, impl);
  if (mode === "time") {
    console.log(JSON.stringify(await time(batch)));
    return;
  }
  const [, warm, n] = mode.split(":").map(Number);
  await runBatch(batch, warm!);
  const sink = await runBatch(batch, n!);
  console.log(JSON.stringify({ done: n, sink: typeof sink }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
