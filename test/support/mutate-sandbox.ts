// Mutation testing of templates/sandbox/ in groups of files, one Stryker run a group (`npm run mutate:sandbox`).
// The sandbox's in-process suites open PGlite in every test file, so one run over the whole folder takes hours
// on a shared 2-core machine and leaves nothing if it is stopped. In groups, each finished group keeps its
// report and Stryker's incremental file (test/.artifacts/mutation/sandbox/<group>.*): a stopped run loses one
// group at most, and a later run re-tests only the mutants whose code or covering tests changed.
//   npm run mutate:sandbox                  every group, then the table
//   npm run mutate:sandbox -- server form   those groups, then the table
//   npm run mutate:sandbox -- --table       the table of the reports there are
//   --concurrency=N, --timeoutMS=N and --dryRunTimeoutMinutes=N are handed to Stryker (a loaded machine: a shorter timeout
//   wastes less on hanging mutants; the initial run of every in-process suite can take longer than Stryker's 5 minutes)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build, distIsCurrent } from "../../generator/build.js";

const root = join(import.meta.dirname, "..", "..");
const out = join(root, "test", ".artifacts", "mutation", "sandbox");

/** The groups, cheapest first; together every mutated file of templates/sandbox/ (test/architecture/mutation-groups.test.ts checks it). */
export const GROUPS: Readonly<Record<string, readonly string[]>> = {
  small: ["api", "binding", "bodies", "clock", "results", "routes", "exchange", "browse", "page", "csp", "logging", "metrics", "ops", "retention"],
  service: [
    "service",
    "service/core",
    "service/payloads",
    "service/writes",
    "service/v5",
    "service/older",
    "service/control",
    "service/forms",
    "service/reads",
  ],
  server: ["server", "handlers", "body-shape", "answers", "http/credentials", "http/request", "http/refused"],
  form: ["form"],
  dispatch: ["dispatcher", "deliveries", "store/outbox"],
  store: [
    "store/clock",
    "store/cursor-key",
    "store/forms",
    "store/group",
    "store/memory",
    "store/pages",
    "store/port",
    "store/retention",
    "store/service-store",
    "store/shared-text",
    "store/sql",
    "store/verifications",
  ],
  // Starting and stopping the sandbox, and opening its store; then PGlite's own parts (its thread and the template),
  // and the staging of big parameters. One group until 2026-11-28: 957 mutants, more than one quiet session's run;
  // then pglite and staging together, 676 mutants, about two and a half quiet hours.
  start: ["index", "options", "stop", "store/index", "store/migrations"],
  pglite: ["store/pglite", "store/pglite-open", "store/template"],
  staging: ["store/pglite-staging"],
};

type Status = "Killed" | "Timeout" | "Survived" | "NoCoverage" | "Ignored" | "CompileError" | "RuntimeError" | "Pending";
interface Report {
  readonly files: Record<string, { readonly mutants: readonly { readonly status: Status }[] }>;
}

/** Options handed to Stryker as they are. */
const isStrykerOption = (a: string) => /^--(concurrency|timeoutMS|dryRunTimeoutMinutes)=\d+$/.test(a);

function runGroup(name: string): number {
  const base = JSON.parse(readFileSync(join(root, "stryker.config.json"), "utf8")) as Record<string, unknown>;
  const config = {
    ...base,
    mutate: GROUPS[name]!.map((f) => `templates/sandbox/${f}.ts`),
    jsonReporter: { fileName: join(out, `${name}.json`) },
    incremental: true,
    incrementalFile: join(out, `${name}.incremental.json`),
  };
  const file = join(out, `${name}.stryker.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(config, null, 2));
  renameSync(`${file}.tmp`, file);
  console.log(`mutate:sandbox: group ${name} (${GROUPS[name]!.length} files)`);
  // Only the sandbox's suites (vitest.mutate.config.ts): no other suite imports templates/sandbox/, and on a loaded
  // machine their slowest tests passed the test timeout in Stryker's initial run, which then stops.
  const env = { ...process.env, VERISPEC_MUTATE_SANDBOX: "1" };
  return spawnSync("npx", ["stryker", "run", file, ...process.argv.slice(2).filter(isStrykerOption)], { cwd: root, stdio: "inherit", env }).status ?? 1;
}

/** One markdown table: per file and in total, killed, timed out, survived, without coverage, score = (killed + timed out) / all. */
export function table(reports: readonly Report[]): string {
  const rows = new Map<string, Record<Status, number>>();
  for (const r of reports)
    for (const [path, f] of Object.entries(r.files)) {
      const row =
        rows.get(path) ??
        ({ Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, CompileError: 0, RuntimeError: 0, Pending: 0 } as Record<Status, number>);
      for (const m of f.mutants) row[m.status] += 1;
      rows.set(path, row);
    }
  const line = (name: string, c: Record<Status, number>) => {
    const all = c.Killed + c.Timeout + c.Survived + c.NoCoverage;
    const score = all === 0 ? "-" : `${((100 * (c.Killed + c.Timeout)) / all).toFixed(2)} %`;
    return `| ${name} | ${all} | ${c.Killed} | ${c.Timeout} | ${c.Survived} | ${c.NoCoverage} | ${score} |`;
  };
  const total = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, CompileError: 0, RuntimeError: 0, Pending: 0 } as Record<Status, number>;
  const body = [...rows.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, c]) => {
      for (const k of Object.keys(total) as Status[]) total[k] += c[k];
      return line(`\`${path.replace(/^.*templates\/sandbox\//, "")}\``, c);
    });
  return [
    "| file | mutants | killed | timed out | survived | no coverage | score |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...body,
    line("**total**", total),
  ].join("\n");
}

function main(): number {
  const args = process.argv.slice(2).filter((a) => !isStrykerOption(a));
  const unknown = args.filter((a) => a !== "--table" && !(a in GROUPS));
  if (unknown.length > 0) {
    console.error(
      `usage: npm run mutate:sandbox -- [--table] [${Object.keys(GROUPS).join("|")}]... [--concurrency=N] [--timeoutMS=N] [--dryRunTimeoutMinutes=N]\nunknown: ${unknown.join(" ")}`,
    );
    return 2;
  }
  mkdirSync(out, { recursive: true });
  if (!args.includes("--table")) {
    // The template suites read dist/'s PGlite template (npm test's global setup builds it; Stryker's config has no such step).
    if (!distIsCurrent()) build();
    const chosen = args.length > 0 ? args : Object.keys(GROUPS);
    for (const g of chosen) if (runGroup(g) !== 0) return 1;
  }
  const reports = Object.keys(GROUPS)
    .map((g) => join(out, `${g}.json`))
    .filter(existsSync)
    .map((p) => JSON.parse(readFileSync(p, "utf8")) as Report);
  console.log(`${reports.length} of ${Object.keys(GROUPS).length} groups reported\n\n${table(reports)}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main();
