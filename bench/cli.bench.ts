/**
 * The CLI's start-up and the generator's speed (issue 9, item 3): each command of the compiled CLI
 * (bin/verispec.js, what `npx verispec` runs) as a child process, beside `node -e 0` measured in the
 * same run, rounds interleaved so that both see the same machine load. Targets: `--help`, `schemas`,
 * `validate` (2 kB document) and `webhook verify` at most 1.5x `node -e 0`; `generate` at most 2 s and
 * `check` at most 1.5 s; a synthetic spec with four times the entity kinds at most 4.5x the time.
 *
 * Figures: the fastest run (least disturbed by other processes on a shared machine) and the median.
 * Run alone: npx tsx bench/cli.bench.ts [rounds]
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, distIsCurrent } from "../generator/build.js";
import { signWebhook } from "../generated/webhooks.js";
import { benchPayload } from "./webhooks.bench.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "verispec.js");

/** A copy of spec/ with every entity kind written four times (renamed copies): 4x the entity kinds. */
export function quadrupleSpec(dir: string): string {
  const spec = join(dir, "spec");
  cpSync(join(ROOT, "spec"), spec, { recursive: true });
  const entities = join(spec, "entities");
  for (const file of readdirSync(entities).filter((f) => f.endsWith(".yaml"))) {
    const text = readFileSync(join(entities, file), "utf8");
    for (const n of [2, 3, 4]) {
      const copy = text.replace(/^kind: (\w+)$/m, (_w, kind: string) => `kind: ${kind}Copy${n}`);
      writeFileSync(join(entities, file.replace(/\.yaml$/, `Copy${n}.yaml`)), copy);
    }
  }
  return spec;
}

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly rounds: number;
  /** The exit code a correct run gives. */
  readonly status: number;
  readonly env?: NodeJS.ProcessEnv;
}

const TIME = "/usr/bin/time"; // GNU time, for the child's CPU time (user + system); wall time is measured here

interface Sample {
  readonly wall: number;
  /** CPU time of the child, ms (NaN without GNU time). */
  readonly cpu: number;
}

function time(c: Case): Sample {
  const withTime = existsSync(TIME);
  const [cmd, args] = withTime ? [TIME, ["-f", "@cpu %U %S", process.execPath, ...c.args]] : [process.execPath, [...c.args]];
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...c.env } });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== c.status) throw new Error(`${c.name}: exit ${r.status}\n${r.stderr}`);
  const m = /@cpu ([\d.]+) ([\d.]+)/.exec(r.stderr);
  return { wall, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : Number.NaN };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

export default async function run(rounds = 15): Promise<void> {
  if (!distIsCurrent()) build();
  const dir = mkdtempSync(join(tmpdir(), "verispec-cli-bench-"));
  try {
    const now = Date.now();
    const body = benchPayload(now);
    writeFileSync(join(dir, "doc.json"), body);
    const headers = Object.entries(signWebhook({ version: "2", rawBody: body, secret: "bench-key" })).flatMap(([k, v]) => ["--header", `${k}: ${v}`]);
    const spec4 = quadrupleSpec(dir);
    const light = Math.max(3, rounds);
    const heavy = Math.max(3, Math.ceil(rounds / 3));
    const cases: Case[] = [
      { name: "node -e 0 (peer)", args: ["-e", "0"], rounds: light, status: 0 },
      { name: "verispec --help", args: [BIN, "--help"], rounds: light, status: 0 },
      { name: "verispec schemas", args: [BIN, "schemas"], rounds: light, status: 0 },
      { name: "verispec validate (2 kB)", args: [BIN, "validate", "v5.WebhookPayload", join(dir, "doc.json")], rounds: light, status: 0 },
      {
        name: "verispec webhook verify (2 kB)",
        args: [BIN, "webhook", "verify", "--body", join(dir, "doc.json"), ...headers, "--now", String(now)],
        rounds: light,
        status: 0,
        env: { VERISPEC_SIGNING_SECRET: "bench-key" },
      },
      { name: "verispec check", args: [BIN, "check"], rounds: heavy, status: 0 },
      { name: "verispec generate", args: [BIN, "generate", "--out", join(dir, "out1")], rounds: heavy, status: 0 },
      { name: "verispec generate, 4x entity kinds", args: [BIN, "generate", "--spec", spec4, "--out", join(dir, "out4")], rounds: heavy, status: 0 },
      { name: "verispec check, 4x entity kinds", args: [BIN, "check", "--spec", spec4, "--out", join(dir, "out4")], rounds: heavy, status: 0 },
    ];
    const times = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
    for (let round = 0; round < light; round++) {
      for (const c of cases) if (round < c.rounds) times.get(c.name)!.push(time(c));
    }
    const wall = (name: string) => times.get(name)!.map((t) => t.wall);
    const cpu = (name: string) => times.get(name)!.map((t) => t.cpu);
    const peer = cases[0]!.name;
    const [peerMin, peerMedian, peerCpu] = [Math.min(...wall(peer)), median(wall(peer)), median(cpu(peer))];
    console.log(
      `node ${process.version}, ${light} rounds (generate and check: ${heavy}), interleaved; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}\n`,
    );
    console.log("| command | wall, fastest | wall, median | CPU (user+sys), median | fastest / node -e 0 | median / node -e 0 | CPU / node -e 0 |");
    console.log("|---|---|---|---|---|---|---|");
    for (const c of cases) {
      const [w, p] = [wall(c.name), cpu(c.name)];
      console.log(
        `| ${c.name} | ${fmt(Math.min(...w))} | ${fmt(median(w))} | ${fmt(median(p))} | ${(Math.min(...w) / peerMin).toFixed(2)}x | ${(median(w) / peerMedian).toFixed(2)}x | ${(median(p) / peerCpu).toFixed(2)}x |`,
      );
    }
    const ratio = (four: string, one: string) =>
      `${(Math.min(...wall(four)) / Math.min(...wall(one))).toFixed(2)}x wall, ${(median(cpu(four)) / median(cpu(one))).toFixed(2)}x CPU`;
    console.log(
      `\n4x entity kinds / spec/: generate ${ratio("verispec generate, 4x entity kinds", "verispec generate")}; check ${ratio("verispec check, 4x entity kinds", "verispec check")}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run(Number(process.argv[2] ?? 15));
