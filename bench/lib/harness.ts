// The method (issue 14): every (payload, implementation) pair runs in a fresh process of its own (which
// reports the lower quartile of 40 timed batches of ~4 ms, after calibration and warm-up); the
// pairs of a round run one after another in an order shuffled per round, so that a slow spell of the
// machine falls on a few neighbouring pairs, not on one implementation; a ratio is computed within each
// round (between processes that ran seconds apart) and summarised over the rounds by its median
// (bench/lib/stats.ts says why not the interquartile mean), with the min-max range beside it.
// `--repeat 2` runs everything twice and says how far the two runs' figures differ.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { relativeDifference, shuffled, spread, type Spread } from "./stats.js";
import type { ImportSuite, Suite, ThroughputSuite } from "./suite.js";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "child.ts");

export interface Options {
  readonly rounds: number;
  readonly seed: number;
  /** Also count instructions with callgrind (slow; a noise-free cross-check of the time ratios). */
  readonly instructions: boolean;
  readonly log: (line: string) => void;
}

/** A figure of one run: per round, then summarised. */
export interface Figure {
  readonly suite: string;
  readonly key: string;
  readonly label: string;
  readonly perRound: readonly number[];
  readonly summary: Spread;
  /** Ratios: the target (at least); import: the budget (at most). */
  readonly target?: { readonly kind: "min" | "max"; readonly value: number };
}

export interface SuiteResult {
  readonly suite: Suite;
  /** ns/op (throughput) or ms (import) per pair key `payload|impl`, per round. */
  readonly raw: ReadonlyMap<string, number[]>;
  readonly figures: readonly Figure[];
  readonly instructions?: ReadonlyMap<string, number | undefined>;
}

function childTime(file: string, suite: string, payload: string, impl: string): number {
  const r = spawnSync(process.execPath, ["--import", "tsx", CHILD, file, suite, payload, impl], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`bench child ${payload} / ${impl} failed: ${r.stderr.trim().split("\n").slice(-3).join(" ")}`);
  return (JSON.parse(r.stdout.trim().split("\n").pop()!) as { nsPerOp: number }).nsPerOp;
}

/** Milliseconds of a cold import: one sample, one fresh `node` (no TypeScript loader). */
function childImport(url: string): number {
  // The same clock as the throughput children (child.ts, clockMs): CPU time with VERISPEC_BENCH_CLOCK=cpu.
  const script =
    process.env["VERISPEC_BENCH_CLOCK"] === "cpu"
      ? `const t = process.cpuUsage(); await import(${JSON.stringify(url)}); const u = process.cpuUsage(t); console.log((u.user + u.system) / 1000);`
      : `const t = performance.now(); await import(${JSON.stringify(url)}); console.log(performance.now() - t);`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`import of ${url} failed: ${r.stderr.trim()}`);
  return Number(r.stdout.trim());
}

/**
 * Instructions per operation under callgrind: (count(2n) - count(n)) / n after the same warm-up, so
 * start-up and warm-up cancel out. Undefined when the difference is not positive: on paths that
 * allocate, garbage collection and optimisation on V8's own threads can land in either run, and the
 * count then says nothing (seen on this machine; the time figures are the ones reported).
 */
function childInstructions(file: string, suite: string, payload: string, impl: string, n: number): number | undefined {
  const dir = mkdtempSync(join(tmpdir(), "verispec-cg-"));
  try {
    const count = (ops: number) => {
      const out = join(dir, `cg-${ops}.out`);
      execFileSync(
        "valgrind",
        [
          "--tool=callgrind",
          `--callgrind-out-file=${out}`,
          process.execPath,
          "--import",
          "tsx",
          CHILD,
          file,
          suite,
          payload,
          impl,
          `count:${WARMUP_OPS}:${ops}`,
        ],
        { stdio: "ignore" },
      );
      const summary = /^summary:\s+(\d+)/m.exec(readFileSync(out, "utf8"));
      if (!summary) throw new Error(`callgrind wrote no summary for ${payload} / ${impl}`);
      return Number(summary[1]);
    };
    const perOp = (count(2 * n) - count(n)) / n;
    return perOp > 0 ? perOp : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const WARMUP_OPS = 30_000;

export function hasValgrind(): boolean {
  return spawnSync("valgrind", ["--version"]).status === 0;
}

const pairKey = (payload: string, impl: string) => `${payload}|${impl}`;

function throughputRound(suite: ThroughputSuite, file: string, seed: number, raw: Map<string, number[]>, log: (l: string) => void): void {
  const pairs = suite.payloads.flatMap((p) => suite.impls.map((i) => [p.id, i.id] as const));
  for (const [payload, impl] of shuffled(pairs, seed)) {
    const ns = childTime(file, suite.id, payload, impl);
    const key = pairKey(payload, impl);
    raw.set(key, [...(raw.get(key) ?? []), ns]);
  }
  log(`  ${suite.id}: ${pairs.length} processes`);
}

function importRound(suite: ImportSuite, seed: number, raw: Map<string, number[]>, log: (l: string) => void): void {
  // One sample per process; the samples of a round are interleaved across modules.
  const order = Array.from({ length: suite.samplesPerRound }, (_, s) => shuffled(suite.modules, seed + s)).flat();
  const round = new Map<string, number[]>();
  for (const m of order) round.set(m.id, [...(round.get(m.id) ?? []), childImport(m.url)]);
  // The fastest of the round's samples: a cold import is one shot per process, and on a shared machine
  // waiting for a core only ever adds time.
  for (const [id, ms] of round) raw.set(id, [...(raw.get(id) ?? []), Math.min(...ms)]);
  log(`  ${suite.id}: ${order.length} processes`);
}

function throughputFigures(suite: ThroughputSuite, raw: ReadonlyMap<string, number[]>): Figure[] {
  const figures: Figure[] = [];
  for (const p of suite.payloads) {
    for (const impl of suite.impls) {
      const perRound = raw.get(pairKey(p.id, impl.id)) ?? [];
      figures.push({
        suite: suite.id,
        key: `ns ${p.id} ${impl.id}`,
        label: `${p.label} / ${impl.label}: ns per operation`,
        perRound,
        summary: spread(perRound),
      });
    }
    const ours = raw.get(pairKey(p.id, suite.ours)) ?? [];
    for (const impl of suite.impls) {
      if (impl.id === suite.ours) continue;
      const theirs = raw.get(pairKey(p.id, impl.id)) ?? [];
      // Speed ratio within each round: the peer's time over verispec's (above 1: verispec is faster).
      const perRound = ours.map((o, r) => theirs[r]! / o);
      const target = suite.targets.find((t) => t.peer === impl.id && (t.payloads === undefined || t.payloads.includes(p.id)));
      figures.push({
        suite: suite.id,
        key: `ratio ${p.id} ${impl.id}`,
        label: `${p.label}: verispec vs ${impl.label}`,
        perRound,
        summary: spread(perRound),
        ...(target ? { target: { kind: "min" as const, value: target.min } } : {}),
      });
    }
  }
  return figures;
}

function importFigures(suite: ImportSuite, raw: ReadonlyMap<string, number[]>): Figure[] {
  const base = raw.get(suite.baseline) ?? [];
  const figures: Figure[] = [
    { suite: suite.id, key: `ms ${suite.baseline}`, label: `${label(suite, suite.baseline)}: ms`, perRound: base, summary: spread(base) },
  ];
  for (const m of suite.modules) {
    if (m.id === suite.baseline) continue;
    const perRound = (raw.get(m.id) ?? []).map((ms, r) => ms - base[r]!);
    const budget = suite.targets[m.id];
    figures.push({
      suite: suite.id,
      key: `over ${m.id}`,
      label: `${m.label}: ms over ${label(suite, suite.baseline)}`,
      perRound,
      summary: spread(perRound),
      ...(budget !== undefined ? { target: { kind: "max" as const, value: budget } } : {}),
    });
  }
  for (const t of suite.ratioTargets ?? []) {
    const mine = raw.get(t.module) ?? [];
    const peer = raw.get(t.peer) ?? [];
    // Both over the baseline of the same round: what each import adds to an empty process.
    const perRound = mine.map((ms, r) => (ms - base[r]!) / (peer[r]! - base[r]!));
    figures.push({
      suite: suite.id,
      key: `ratio ${t.module} ${t.peer}`,
      label: `${label(suite, t.module)} over ${label(suite, t.peer)}: ratio of their times over ${label(suite, suite.baseline)}`,
      perRound,
      summary: spread(perRound),
      target: { kind: "max" as const, value: t.max },
    });
  }
  return figures;
}

const label = (suite: ImportSuite, id: string) => suite.modules.find((m) => m.id === id)?.label ?? id;

export interface LoadedSuite {
  readonly suite: Suite;
  readonly file: string;
}

/** Runs all suites over `rounds` rounds, interleaved: round 1 of every suite, then round 2, ... */
export function runOnce(suites: readonly LoadedSuite[], options: Options): SuiteResult[] {
  const raw = suites.map(() => new Map<string, number[]>());
  for (let round = 0; round < options.rounds; round++) {
    options.log(`round ${round + 1}/${options.rounds}`);
    suites.forEach(({ suite, file }, i) => {
      const seed = options.seed * 1000 + round * 17 + i;
      if (suite.kind === "throughput") throughputRound(suite, file, seed, raw[i]!, options.log);
      else importRound(suite, seed, raw[i]!, options.log);
    });
  }
  return suites.map(({ suite, file }, i) => {
    const figures = suite.kind === "throughput" ? throughputFigures(suite, raw[i]!) : importFigures(suite, raw[i]!);
    if (!options.instructions || suite.kind !== "throughput") return { suite, raw: raw[i]!, figures };
    const instructions = new Map<string, number | undefined>();
    for (const p of suite.payloads) {
      for (const impl of suite.impls) {
        options.log(`  callgrind ${suite.id} ${p.id} ${impl.id}`);
        instructions.set(pairKey(p.id, impl.id), childInstructions(file, suite.id, p.id, impl.id, 20_000));
      }
    }
    return { suite, raw: raw[i]!, figures, instructions };
  });
}

// ---- Reporting ------------------------------------------------------------------------------------------

const fmtRatio = (x: number) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`;
const fmtNs = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} µs` : `${Math.round(x).toLocaleString("en-US")} ns`);
const fmtPct = (x: number) => `±${(x * 100).toFixed(0)}%`;

function verdict(f: Figure): string {
  if (!f.target) return "";
  const ok = f.target.kind === "min" ? f.summary.center >= f.target.value : f.summary.center <= f.target.value;
  const goal =
    f.target.kind === "min" ? `>= ${fmtRatio(f.target.value)}` : f.key.startsWith("ratio ") ? `<= ${fmtRatio(f.target.value)}` : `<= ${f.target.value} ms`;
  return `${goal}: ${ok ? "met" : "NOT met"}`;
}

/** A suite's tables in Markdown: per payload, each implementation's time and verispec's ratio over it. */
export function report(result: SuiteResult, rounds: number): string {
  const { suite, figures } = result;
  const lines = [`### ${suite.title}`, ""];
  const byKey = new Map(figures.map((f) => [f.key, f]));
  if (suite.kind === "throughput") {
    const withCounts = result.instructions !== undefined;
    lines.push(
      `| payload | implementation | time per op: median over ${rounds} rounds (± half the range) | verispec vs it, per round: median (range) | target |${withCounts ? " instructions per op (callgrind) |" : ""}`,
    );
    lines.push(`|---|---|---|---|---|${withCounts ? "---|" : ""}`);
    for (const p of suite.payloads) {
      for (const impl of suite.impls) {
        const ns = byKey.get(`ns ${p.id} ${impl.id}`)!;
        const ratio = byKey.get(`ratio ${p.id} ${impl.id}`);
        const ratioText = ratio ? `${fmtRatio(ratio.summary.center)} (${fmtRatio(ratio.summary.min)}-${fmtRatio(ratio.summary.max)})` : "(verispec)";
        const count = result.instructions?.get(pairKey(p.id, impl.id));
        lines.push(
          `| ${p.label} | ${impl.label} | ${fmtNs(ns.summary.center)} (${fmtPct(ns.summary.relative)}) | ${ratioText} | ${ratio ? verdict(ratio) : ""} |${withCounts ? ` ${count === undefined ? "n/a" : Math.round(count).toLocaleString("en-US")} |` : ""}`,
        );
      }
    }
  } else {
    lines.push(`| module | cold import, ms over the empty module: median (range over ${rounds} rounds) | budget |`, "|---|---|---|");
    for (const f of figures) {
      const text = f.key.startsWith("ratio ")
        ? `${fmtRatio(f.summary.center)} (${fmtRatio(f.summary.min)}-${fmtRatio(f.summary.max)})`
        : `${f.summary.center.toFixed(1)} ms (${f.summary.min.toFixed(1)}-${f.summary.max.toFixed(1)})`;
      lines.push(`| ${f.label.replace(/: (?:ms|ratio of their times).*$/, "")} | ${f.key.startsWith("ms ") ? `${text} (absolute)` : text} | ${verdict(f)} |`);
    }
  }
  lines.push("", ...suite.notes.map((n) => `${n}`));
  return lines.join("\n");
}

export interface Agreement {
  readonly suite: string;
  readonly label: string;
  readonly values: readonly number[];
  readonly difference: number;
}

/** For every ratio (and import difference): how far the runs' medians differ, largest first. */
export function agreement(runs: readonly (readonly SuiteResult[])[]): Agreement[] {
  const out: Agreement[] = [];
  const first = runs[0] ?? [];
  first.forEach((result, s) => {
    for (const f of result.figures) {
      if (!f.key.startsWith("ratio ") && !f.key.startsWith("over ")) continue;
      const values = runs.map((run) => run[s]!.figures.find((g) => g.key === f.key)!.summary.center);
      let difference = 0;
      for (let i = 1; i < values.length; i++) difference = Math.max(difference, relativeDifference(values[0]!, values[i]!));
      out.push({ suite: result.suite.id, label: f.label, values, difference });
    }
  });
  return out.sort((a, b) => b.difference - a.difference);
}
