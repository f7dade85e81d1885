// Cost as data grows: the same requests against an empty store and a large one, in the same run. The
// sandbox is started in-process (startSandbox, templates/sandbox/index.ts) on PGlite in memory, or on a
// Postgres URL (GROWTH_BENCH_DB=postgres://...; the bench fills and empties its tables), and the large
// store is filled by SQL: GROWTH_BENCH_ROWS verifications (default 100,000; half with a userId), one
// history row and one delivered outbox row each. Measured over HTTP with 10 concurrent callers: create,
// GET by trace, a create with a userId (the resubmission lookup), and the first page of
// GET /_sandbox/deliveries filtered by userId. Goal (issue 28): each p99 within 1.5x of the empty store's.
import { randomUUID } from "node:crypto";
import { sandboxBinding } from "../generated/sandbox.js";
import type { SandboxBinding } from "../templates/sandbox/binding.js";
import { startSandbox, type RunningSandbox } from "../templates/sandbox/index.js";
import { median } from "./lib/stats.js";

const ROWS = Number(process.env.GROWTH_BENCH_ROWS ?? 100_000);
const DB = process.env.GROWTH_BENCH_DB ?? "memory";
const REQUESTS = Number(process.env.GROWTH_BENCH_REQUESTS ?? 2_000);
const CONCURRENCY = 10;
const CREDENTIALS = { serviceUid: "growth-uid", secret: "growth-secret" };
const AUTH = `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}`;

async function start(): Promise<RunningSandbox> {
  return startSandbox({
    binding: sandboxBinding as unknown as SandboxBinding, host: "127.0.0.1", port: 0, db: DB, cwd: process.cwd(), webhookUrls: [], signatureVersion: "2",
    processingMs: "manual", requestedActionsPath: "/requestedActions", maxBodyBytes: 10_485_760, credentials: CREDENTIALS, signingSecret: "growth-signing",
    deliveryTimeoutMs: 5000, retryDelaysMs: [1000], log: () => {}, metrics: false, retainDays: 0,
  });
}

async function fill(s: RunningSandbox, rows: number): Promise<void> {
  const now = Date.now();
  for (let from = 1; from <= rows; from += 20_000) {
    const to = Math.min(rows, from + 19_999);
    await s.db.query(
      `INSERT INTO verifications (trace, api, user_id, submission_id, type, sub_type, name, country, request, verification_status, submission_status, attempt, outcome, created_at, updated_at)
       SELECT 'fill-' || g, 'v5', CASE WHEN g % 2 = 0 THEN 'fill-user-' || g END, 'sub-' || g, 'individual', 'data', 'Fill Person', 'AUS', '{}', 'verified', 'completed', 1, 'verified', $3::bigint, $3::bigint
         FROM generate_series($1::int, $2::int) g`,
      [from, to, now],
    );
    await s.db.query(`INSERT INTO history (trace, verification_status, submission_status, attempt, trigger, at) SELECT 'fill-' || g, 'verified', 'completed', 1, 'submit', $3::bigint FROM generate_series($1::int, $2::int) g`, [from, to, now]);
    await s.db.query(
      `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at, delivered_at)
       SELECT 'd-' || g, 'fill-' || g, 'http://127.0.0.1:9/webhooks', 'v5', '2', '{}', $3::bigint, 'delivered', 1, $3::bigint, $3::bigint, $3::bigint FROM generate_series($1::int, $2::int) g`,
      [from, to, now],
    );
  }
  await s.db.query("ANALYZE");
}

/** p99 (ms) of `n` calls of `one` with CONCURRENCY in flight. */
async function p99(n: number, one: (i: number) => Promise<void>): Promise<number> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await one(i);
        times.push(performance.now() - t);
      }
    }),
  );
  times.sort((a, b) => a - b);
  return times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!;
}

async function call(url: string, method: string, body?: unknown): Promise<unknown> {
  const r = await fetch(url, { method, headers: { authorization: AUTH, ...(body ? { "content-type": "application/json" } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  if (r.status !== 200) throw new Error(`${method} ${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

const person = (userId?: string) => ({ type: "individual", subType: "data", country: "AUS", name: "Growth Person", website: "https://example.com", ...(userId ? { userId } : {}) });

async function measure(label: string, rows: number): Promise<Record<string, number>> {
  const s = await start();
  try {
    await s.db.query("TRUNCATE verifications, history, outbox, delivery_attempts, forms");
    const filled = performance.now();
    if (rows) await fill(s, rows);
    console.log(`${label}: ${rows} rows filled in ${((performance.now() - filled) / 1000).toFixed(1)} s`);
    const traces: string[] = [];
    await p99(REQUESTS / 4, async () => void traces.push(((await call(`${s.url}/v5/verifications`, "POST", person())) as { trace: string }).trace)); // warm-up
    const figures = {
      create: await p99(REQUESTS, async () => void traces.push(((await call(`${s.url}/v5/verifications`, "POST", person())) as { trace: string }).trace)),
      getByTrace: await p99(REQUESTS, async (i) => void (await call(`${s.url}/v5/verifications/${traces[(i * 7919) % traces.length]}`, "GET"))),
      createWithUserId: await p99(REQUESTS, async () => void (await call(`${s.url}/v5/verifications`, "POST", person(`growth-${randomUUID()}`)))),
      deliveriesByUserId: await p99(REQUESTS / 4, async (i) => void (await call(`${s.url}/_sandbox/deliveries?limit=100&userId=fill-user-${2 * (1 + (i % Math.max(1, rows / 2)))}`, "GET"))),
    };
    console.log(`${label}: ${Object.entries(figures).map(([k, v]) => `${k} p99 ${v.toFixed(1)} ms`).join(", ")}`);
    return figures;
  } finally {
    await s.close();
  }
}

export default async function run(): Promise<void> {
  const rounds = Number(process.env.GROWTH_BENCH_ROUNDS ?? 1);
  const results: { empty: Record<string, number>; large: Record<string, number> }[] = [];
  for (let r = 0; r < rounds; r++) results.push({ empty: await measure("empty", 0), large: await measure(`large (${ROWS})`, ROWS) });
  console.log(`\n${DB === "memory" ? "PGlite in memory" : "Postgres"}, ${ROWS} stored verifications vs none, ${REQUESTS} requests each, ${CONCURRENCY} concurrent, ${rounds} round(s): p99 ms (median over rounds)\n`);
  console.log("| request | empty store | large store | ratio |");
  console.log("|---|---:|---:|---:|");
  for (const k of Object.keys(results[0]!.empty)) {
    const e = median(results.map((x) => x.empty[k]!));
    const l = median(results.map((x) => x.large[k]!));
    console.log(`| ${k} | ${e.toFixed(1)} | ${l.toFixed(1)} | ${(l / e).toFixed(2)} ${l / e <= 1.5 ? "(within 1.5x)" : "(NOT within 1.5x)"} |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
