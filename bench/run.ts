// `npm run bench [-- <name filter>...] [--rounds N] [--repeat N] [--cpu] [--instructions] [--json FILE]`
//
// Every bench/*.bench.ts exporting `suites` is measured with the harness (bench/lib/harness.ts): each
// (payload, implementation) pair in a fresh process, pairs shuffled within a round, ratios per round,
// medians over the rounds. `--repeat 2` runs the whole selection twice and reports how far the two
// runs' ratios differ (the README figures come from a run where all agreed within 10%). Bench files
// exporting a default function instead (sizes, which do not vary) run once.
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { readdirSync } from "node:fs";
import { agreement, hasValgrind, report, runOnce, type LoadedSuite, type SuiteResult } from "./lib/harness.js";
import type { Suite } from "./lib/suite.js";

const here = dirname(fileURLToPath(import.meta.url));
const USAGE = "usage: npm run bench -- [name filter...] [--rounds N] [--repeat N] [--cpu] [--instructions] [--json FILE]";
/** Ratios of two runs that differ by more than this are flagged. */
const AGREEMENT = 0.1;

interface Args {
  filters: string[];
  rounds: number;
  repeat: number;
  instructions: boolean;
  /** Time by CPU time instead of wall time (bench/lib/child.ts, clockMs). */
  cpu: boolean;
  json: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { filters: [], rounds: 21, repeat: 1, instructions: false, cpu: false, json: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    const count = (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new UsageError(`${a} needs a whole number of at least 1`);
      return n;
    };
    if (a === "--rounds") args.rounds = count(value());
    else if (a === "--repeat") args.repeat = count(value());
    else if (a === "--instructions") args.instructions = true;
    else if (a === "--cpu") args.cpu = true;
    else if (a === "--json") args.json = value();
    else if (a.startsWith("-")) throw new UsageError(`unknown option ${a}`);
    else args.filters.push(a);
  }
  return args;
}

class UsageError extends Error {}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // Read by every child process (they inherit the environment).
  if (args.cpu) process.env["VERISPEC_BENCH_CLOCK"] = "cpu";
  if (args.instructions && !hasValgrind()) throw new UsageError("--instructions needs valgrind (apt-get install -y valgrind)");
  const files = readdirSync(here)
    .filter((f) => f.endsWith(".bench.ts"))
    .filter((f) => args.filters.length === 0 || args.filters.some((o) => f.includes(o)))
    .sort();
  const measured: LoadedSuite[] = [];
  for (const f of files) {
    const file = join(here, f);
    const mod = (await import(pathToFileURL(file).href)) as { suites?: readonly Suite[]; default?: () => Promise<void> };
    if (mod.suites) for (const suite of mod.suites) measured.push({ suite, file });
    else if (mod.default) {
      console.log(`\n## ${f}\n`);
      await mod.default();
    }
  }
  if (measured.length === 0) return;

  // Each run's own start: the second run's load average is the one it met, not the first run's.
  const conditions: string[] = [];
  const runs: SuiteResult[][] = [];
  for (let r = 0; r < args.repeat; r++) {
    const log = (line: string) => process.stderr.write(`[run ${r + 1}/${args.repeat}] ${line}\n`);
    conditions.push(
      `${args.cpu ? "CPU time, " : ""}node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"}), load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} at the start, ${new Date().toISOString().slice(0, 16)}Z`,
    );
    runs.push(runOnce(measured, { rounds: args.rounds, seed: r + 1, instructions: args.instructions, log }));
  }

  runs.forEach((run, r) => {
    console.log(`\n## Run ${r + 1} of ${runs.length}: ${args.rounds} rounds, every pair a fresh process (${conditions[r]})\n`);
    for (const result of run) console.log(`${report(result, args.rounds)}\n`);
  });
  if (runs.length > 1) {
    const rows = agreement(runs);
    const ratios = rows.filter((a) => !a.label.includes(" ms over "));
    const disagree = ratios.filter((a) => a.difference > AGREEMENT);
    console.log(`\n## Agreement of the ${runs.length} runs (each figure: the median over the rounds of each run)\n`);
    console.log("| figure | runs | difference |", "\n|---|---|---|");
    for (const a of rows) {
      const values = a.label.includes(" ms over ") ? a.values.map((v) => `${v.toFixed(1)} ms`) : a.values.map((v) => `${v.toFixed(2)}x`);
      console.log(
        `| ${a.label} | ${values.join(" / ")} | ${(a.difference * 100).toFixed(1)}%${a.difference > AGREEMENT && !a.label.includes(" ms over ") ? " (over 10%)" : ""} |`,
      );
    }
    console.log(
      `\n${disagree.length === 0 ? `every ratio agreed within ${AGREEMENT * 100}%` : `${disagree.length} of ${ratios.length} ratios differ by more than ${AGREEMENT * 100}%`} (largest ${((ratios[0]?.difference ?? 0) * 100).toFixed(1)}%)`,
    );
    if (disagree.length > 0) process.exitCode = 1;
  }
  if (args.json) {
    const plain = runs.map((run) =>
      run.map((r) => ({
        suite: r.suite.id,
        raw: Object.fromEntries(r.raw),
        figures: r.figures,
        instructions: r.instructions ? Object.fromEntries(r.instructions) : undefined,
      })),
    );
    writeFileSync(args.json, `${JSON.stringify({ conditions, rounds: args.rounds, runs: plain }, null, 1)}\n`);
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
