// The sandbox's store alone: the statements of a create, in the same group commit, from one process, no
// HTTP (bench/sandbox.bench.ts runs it beside the sandbox in the same round: the sandbox's own limit).
// The compiled store (dist/, as the CLI runs it), PGlite in memory on its worker thread: `CONNECTIONS`
// clients each create one verification at a time (Group of insertVerifications: the verification, its
// history row and its outbox row in one statement per group), and each committed create's delivery answer is
// recorded as the dispatcher records it (Group of recordOutcomes), without waiting, as the dispatcher does
// beside the creates. Prints one JSON line: creates/s (to the last create's commit), p50/p99 per create
// (ms), and the checks (every create stored, every outbox row recorded delivered once).
//
//   node --import tsx bench/lib/store-alone.ts <warm-up> <amount> <connections> <body json> <webhook text>
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { quantile } from "./stats.js";

type Row = Record<string, unknown>;
interface Db {
  query(text: string, params?: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}
interface Outcome {
  id: number;
  at: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  tries: number;
  state: "delivered";
  nextAt: number;
}
type Item = { v: Record<string, unknown>; trigger: string };

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dist = (path: string) => import(new URL(`../../dist/templates/sandbox/${path}`, import.meta.url).href);
const TENANT = "default";

async function main(): Promise<void> {
  const [warmUp, amount, connections] = process.argv.slice(2, 5).map(Number) as [number, number, number];
  const body = JSON.parse(process.argv[5]!) as Record<string, unknown>;
  const webhookText = process.argv[6]!;
  const [{ openStore }, { Group }, { insertVerifications }, { outboxBatch, recordOutcomes }] = await Promise.all([
    dist("store/index.js"),
    dist("store/group.js"),
    dist("store/verifications.js"),
    dist("store/outbox.js"),
  ]);
  const db = (await openStore("memory", ROOT)) as Db;
  const url = "http://127.0.0.1:9/webhooks";
  // The service's create group (service.ts `created`): one statement per group, the outbox rows it wrote back.
  const created = new Group(async (items: readonly Item[]) => {
    const now = Date.now();
    const rows = items.map(({ v }) => [randomUUID(), v.trace, url, "v5", webhookText, v.updatedAt]);
    const outbox = await insertVerifications(db, TENANT, items, outboxBatch(rows, "2", now));
    return outbox.map((r: Row) => Number(r.id));
  });
  // The dispatcher's recorder (dispatcher.ts `recorder`): answers arriving while a commit runs share the next one.
  const recorder = new Group(async (outcomes: readonly Outcome[]) => {
    await recordOutcomes(db, outcomes, null);
    return outcomes.map(() => undefined);
  });

  const recordings: Promise<unknown>[] = [];
  const create = async (latencies: number[] | undefined) => {
    const now = Date.now();
    const v = {
      trace: randomUUID(),
      api: "v5",
      userId: null,
      submissionId: randomUUID(),
      parentTrace: null,
      roles: null,
      type: body.type,
      subType: body.subType ?? null,
      name: body.name,
      country: body.country ?? null,
      request: body,
      verificationStatus: "pending",
      submissionStatus: "submitted",
      attempt: 1,
      maxAttempts: null,
      outcome: "approved",
      dueAt: null,
      formId: null,
      createdAt: now,
      updatedAt: now,
    };
    const t = performance.now();
    const id = await created.add({ v, trigger: "submit" });
    latencies?.push(performance.now() - t);
    recordings.push(recorder.add({ id, at: Date.now(), statusCode: 200, error: null, durationMs: 1, tries: 1, state: "delivered", nextAt: Date.now() }));
  };
  const run = async (n: number, latencies?: number[]) => {
    let left = n;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (left-- > 0) await create(latencies);
      }),
    );
  };

  await run(warmUp);
  await Promise.all(recordings.splice(0));
  const latencies: number[] = [];
  const started = performance.now();
  await run(amount, latencies);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(recordings);
  const [counts] = await db.query(
    "SELECT (SELECT count(*) FROM verifications) AS v, (SELECT count(*) FROM history) AS h, (SELECT count(*) FROM outbox WHERE state = 'delivered') AS d, (SELECT count(*) FROM delivery_attempts) AS a",
  );
  await db.close();
  const expected = warmUp + amount;
  const c = Object.fromEntries(Object.entries(counts!).map(([k, n]) => [k, Number(n)]));
  const passed = c.v === expected && c.h === expected && c.d === expected && c.a === expected;
  console.log(
    JSON.stringify({
      rps: amount / seconds,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      ok: latencies.length,
      passed,
      checks: `${c.v} verifications, ${c.h} history rows, ${c.d} deliveries recorded delivered, ${c.a} attempts (expected ${expected} each)`,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
