// Cost as data grows (issue 28, part 3): the same requests against an empty store and a large one, in the
// same run, the two measured in alternating slices so that a change of the machine's load falls on both.
// The sandboxes are started in-process (startSandbox, templates/sandbox/index.ts) on PGlite in memory
// (GROWTH_BENCH_DB=memory, the default), on PGlite data directories (GROWTH_BENCH_DB=directory: two
// throwaway directories; the files are the operating system's, not PGlite's in-memory file system's)
// or on Postgres (GROWTH_BENCH_DB=postgres: a throwaway cluster
// started here with initdb/pg_ctl and removed after; or GROWTH_BENCH_DB=postgres://... of your own: the
// bench creates and drops two databases in it). The large store is filled by SQL: GROWTH_BENCH_ROWS
// verifications (default 20,000; the issue's sizes: 100,000 on PGlite, 1,000,000 on Postgres), half with
// a userId, a quarter 60 days old (retention's backlog), one history row and one delivered outbox row each.
//
// Measured (p99 over GROWTH_BENCH_REQUESTS calls, default 1,000, 10 in flight, over HTTP unless said):
// create; GET by trace; create with a userId (the resubmission lookup); GET /_sandbox/deliveries: first
// page, filtered by trace, userId and status, and a deep page (cursors followed 50 pages in); the
// /_sandbox page's data (GET /_sandbox/state: first page, and filtered by userId); the dispatcher's claim
// of 100 due rows beside every delivered row (the store's statement, called directly); and create + GET
// while retention sweeps the old quarter (--retain-days 30) against the same requests without a sweep.
// Goal: each large-store p99 within 1.5x of the empty store's. Every statement the requests ran is then
// EXPLAINed on the large store (PGlite or Postgres) and any sequential scan of a big table is listed.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxBinding } from "../generated/sandbox.js";
import type { SandboxBinding } from "../templates/sandbox/binding.js";
import { startSandbox, type RunningSandbox } from "../templates/sandbox/index.js";
import { sweep } from "../templates/sandbox/retention.js";
import { claimDue, selectDue } from "../templates/sandbox/store/outbox.js";
import type { Db, Row, Sql } from "../templates/sandbox/store/sql.js";
import { POSTGRES_INSTALL, serverTool, startPostgres } from "../test/support/postgres.js";

const ROWS = Number(process.env.GROWTH_BENCH_ROWS ?? 20_000);
const DB = process.env.GROWTH_BENCH_DB ?? "memory";
const REQUESTS = Number(process.env.GROWTH_BENCH_REQUESTS ?? 1_000);
const CONCURRENCY = 10;
const BOUND = 1.5;
const SLICES = 4;
const DAY_MS = 86_400_000;
const CREDENTIALS = { serviceUid: "growth-uid", secret: "growth-secret" };
const AUTH = `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}`;

async function start(db: string): Promise<RunningSandbox> {
  return startSandbox({
    binding: sandboxBinding as unknown as SandboxBinding,
    host: "127.0.0.1",
    port: 0,
    db,
    cwd: process.cwd(),
    webhookUrls: [],
    signatureVersion: "2",
    processingMs: "manual",
    requestedActionsPath: "/requestedActions",
    maxBodyBytes: 10_485_760,
    credentials: CREDENTIALS,
    signingSecret: "growth-signing",
    deliveryTimeoutMs: 5000,
    retryDelaysMs: [1000],
    log: () => {},
    metrics: false,
    retainDays: 0,
  });
}

/** `rows` verifications (even ones with a userId, every fourth 60 days old), a history row and a delivered outbox row each. */
async function fill(db: Db, rows: number): Promise<void> {
  const now = Date.now();
  const old = now - 60 * DAY_MS;
  const at = "CASE WHEN g % 4 = 0 THEN $4::bigint ELSE $3::bigint END";
  for (let from = 1; from <= rows; from += 50_000) {
    const args = [from, Math.min(rows, from + 49_999), now, old];
    await db.query(
      `INSERT INTO verifications (trace, api, user_id, submission_id, type, sub_type, name, country, request, verification_status, submission_status, attempt, outcome, created_at, updated_at)
       SELECT 'fill-' || g, 'v5', CASE WHEN g % 2 = 0 THEN 'fill-user-' || g END, 'sub-' || g, 'individual', 'data', 'Fill Person', 'AUS', '{}', 'verified', 'completed', 1, 'verified', ${at}, ${at}
         FROM generate_series($1::int, $2::int) g`,
      args,
    );
    await db.query(
      `INSERT INTO history (trace, verification_status, submission_status, attempt, trigger, at) SELECT 'fill-' || g, 'verified', 'completed', 1, 'submit', ${at} FROM generate_series($1::int, $2::int) g`,
      args,
    );
    await db.query(
      `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at, delivered_at)
       SELECT 'd-' || g, 'fill-' || g, 'http://127.0.0.1:9/webhooks', 'v5', '2', '{}', ${at}, 'delivered', 1, ${at}, ${at}, ${at} FROM generate_series($1::int, $2::int) g`,
      args,
    );
  }
  await db.query("ANALYZE");
}

/** 100 queued rows due only for a claim that passes a `now` a day ahead (the sandbox's own dispatcher does not see them due). */
async function queueForClaim(db: Db): Promise<number> {
  const later = Date.now() + DAY_MS / 2;
  await db.query(
    `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at)
     SELECT 'q-' || g, 'queued-' || g, 'http://127.0.0.1:9/webhooks', 'v5', '2', '{}', $1::bigint, 'queued', 0, $1::bigint, $1::bigint FROM generate_series(1, 100) g`,
    [later],
  );
  return later + DAY_MS / 4;
}

/** Milliseconds of each of `n` calls of `one`, CONCURRENCY in flight. */
async function timings(n: number, one: (i: number) => Promise<void>, offset = 0, inFlight = CONCURRENCY): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) {
        const i = offset + next++;
        const t = performance.now();
        await one(i);
        times.push(performance.now() - t);
      }
    }),
  );
  return times;
}

const pct = (times: number[], q: number) => [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * q))]!;
const p99 = (times: number[]) => pct(times, 0.99);
/** The median: on a loaded machine the p99 is the load's, the median still the store's. */
const p50 = (times: number[]) => pct(times, 0.5);

async function call(url: string, method: string, body?: unknown): Promise<unknown> {
  const r = await fetch(url, {
    method,
    headers: { authorization: AUTH, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (r.status !== 200) throw new Error(`${method} ${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

const person = (userId?: string) => ({
  type: "individual",
  subType: "data",
  country: "AUS",
  name: "Growth Person",
  website: "https://example.com",
  ...(userId ? { userId } : {}),
});

/** One store under test: its sandbox, the traces it created, and what its requests need. */
interface Store {
  readonly label: string;
  readonly s: RunningSandbox;
  readonly rows: number;
  readonly traces: string[];
  /** A cursor 50 pages into the unfiltered deliveries, and a trace and userId that exist. */
  deep?: string;
  claimNow?: number;
}

type Request = (st: Store, i: number) => Promise<void>;

/** One of the 50 userIds both stores hold a verification of (prepare), among the large store's many. */
const userOf = (_st: Store, i: number) => `growth-user-${i % 50}`;
/** A stored trace: of the filled rows on the large store (a recent one: retention keeps it), of the bench's own creates on the empty one. */
const traceOf = (st: Store, i: number) => {
  if (!st.rows) return st.traces[(i * 7919) % st.traces.length]!;
  const g = 1 + ((i * 7919) % st.rows);
  return `fill-${g % 4 === 0 ? g - 1 : g}`;
};
const deliveries = (st: Store, query: string) => call(`${st.s.url}/_sandbox/deliveries?limit=100${query}`, "GET");

/** The figures, each one request kind; the fraction of REQUESTS it runs; how many in flight (default CONCURRENCY). */
const FIGURES: [name: string, share: number, run: Request, inFlight?: number][] = [
  ["create", 1, async (st) => void st.traces.push(((await call(`${st.s.url}/v5/verifications`, "POST", person())) as { trace: string }).trace)],
  ["GET by trace", 1, async (st, i) => void (await call(`${st.s.url}/v5/verifications/${traceOf(st, i)}`, "GET"))],
  ["create with a userId (resubmission lookup)", 1, async (st) => void (await call(`${st.s.url}/v5/verifications`, "POST", person(`growth-${randomUUID()}`)))],
  ["deliveries, first page", 0.25, async (st) => void (await deliveries(st, ""))],
  ["deliveries by trace", 0.25, async (st, i) => void (await deliveries(st, `&trace=${traceOf(st, i)}`))],
  ["deliveries by userId", 0.25, async (st, i) => void (await deliveries(st, `&userId=${userOf(st, i)}`))],
  // The state every store has a full page of: the bench's own creates, with no receiver.
  ["deliveries by status", 0.25, async (st) => void (await deliveries(st, "&status=no_receiver"))],
  ["deliveries, page 50 (cursor)", 0.25, async (st) => void (await deliveries(st, st.deep ? `&cursor=${st.deep}` : ""))],
  ["/_sandbox/state", 0.1, async (st) => void (await call(`${st.s.url}/_sandbox/state`, "GET"))],
  ["/_sandbox/state by userId", 0.25, async (st, i) => void (await call(`${st.s.url}/_sandbox/state?userId=${userOf(st, i)}`, "GET"))],
  // One at a time, as an instance's dispatcher claims (concurrent claims would skip each other's locked rows).
  ["dispatcher claim of 100 due rows", 0.5, async (st) => void (await claim(st.s.db, st.claimNow!)), 1],
];

/** The dispatcher's claim as it runs on this store: a plain SELECT on PGlite, the leasing UPDATE on Postgres (rolled back). */
async function claim(db: Db, now: number): Promise<void> {
  if (db.exclusive) {
    const rows = await selectDue(db, now, 100, []);
    if (rows.length !== 100) throw new Error(`claim found ${rows.length} rows`);
    return;
  }
  await db
    .transaction(async (tx) => {
      const rows = await claimDue(tx, now, 100, "growth-bench", now + 60_000);
      if (rows.length !== 100) throw new Error(`claim found ${rows.length} rows`);
      throw new RolledBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
}
class RolledBack extends Error {}

/** Prepares a store: its size, 100 traces of its own, 100 queued rows, the deep cursor. */
async function prepare(label: string, db: string, rows: number): Promise<Store> {
  const s = await start(db);
  await s.db.query("TRUNCATE verifications, history, outbox, delivery_attempts, forms");
  const filled = performance.now();
  if (rows) await fill(s.db, rows);
  console.log(`${label}: ${rows.toLocaleString("en")} verifications filled in ${((performance.now() - filled) / 1000).toFixed(1)} s`);
  const st: Store = { label, s, rows, traces: [] };
  await timings(100, (i) => FIGURES[0]![2](st, i)); // warm-up, and traces to read
  for (let u = 0; u < 50; u++) await call(`${s.url}/v5/verifications`, "POST", person(userOf(st, u)));
  st.claimNow = await queueForClaim(s.db);
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    cursor = ((await deliveries(st, cursor ? `&cursor=${cursor}` : "")) as { nextCursor: string | null }).nextCursor;
    if (!cursor) break;
  }
  st.deep = cursor ?? undefined;
  return st;
}

/** Each figure's timings on both stores, in alternating slices (empty, large, large, empty, ...). */
async function measureAll(stores: [Store, Store]): Promise<Map<string, [number[], number[]]>> {
  const out = new Map<string, [number[], number[]]>();
  for (const [name, share, run, inFlight] of FIGURES) {
    const per = Math.max(CONCURRENCY, Math.round((REQUESTS * share) / SLICES));
    const got: [number[], number[]] = [[], []];
    for (let slice = 0; slice < SLICES; slice++) {
      for (const k of slice % 2 ? [1, 0] : [0, 1]) got[k]!.push(...(await timings(per, (i) => run(stores[k]!, i), slice * per, inFlight)));
    }
    out.set(name, got);
    console.log(`${name}: p99 ${p99(got[0]).toFixed(1)} ms empty, ${p99(got[1]).toFixed(1)} ms large`);
  }
  return out;
}

/** Create and GET p99 on the large store while retention sweeps its old quarter, against the same without a sweep (alternating). */
async function duringRetention(large: Store): Promise<{ without: number[]; during: number[]; removed: number; seconds: number }> {
  const mixed: Request = async (st, i) => (i % 2 ? FIGURES[0]![2](st, i) : FIGURES[1]![2](st, i));
  const without: number[] = [];
  const during: number[] = [];
  const per = Math.round(REQUESTS / SLICES);
  let stop = false;
  let removed = 0;
  const t0 = performance.now();
  for (let slice = 0; slice < SLICES; slice++) {
    without.push(...(await timings(per, (i) => mixed(large, i), slice * per)));
    stop = false;
    const sweeping = sweep(large.s.db, { days: 30, now: () => Date.now(), stopped: () => stop });
    during.push(...(await timings(per, (i) => mixed(large, i), slice * per)));
    stop = true;
    const pass = await sweeping;
    removed += pass.verifications + pass.deliveries;
  }
  return { without, during, removed, seconds: (performance.now() - t0) / 1000 };
}

/** A Db that records every statement run through it (and through its transactions). */
function recording(db: Db, seen: Map<string, readonly unknown[]>): () => void {
  const original = { query: db.query, transaction: db.transaction };
  const wrap = (sql: Sql): Sql => ({ query: (text, params) => (seen.set(text, params ?? []), sql.query(text, params)) });
  const target = db as { query: Db["query"]; transaction: Db["transaction"] };
  target.query = wrap(original).query;
  target.transaction = (fn) => original.transaction((tx) => fn(wrap(tx)));
  return () => Object.assign(target, original);
}

const BIG_TABLES = /Seq Scan on (verifications|history|outbox|delivery_attempts)\b/;

/** Every statement one request of each figure ran (and a retention batch), EXPLAINed on the large store: its scans. */
async function explainAll(large: Store): Promise<string[]> {
  const seen = new Map<string, readonly unknown[]>();
  const restore = recording(large.s.db, seen);
  try {
    for (const [, , run] of FIGURES) await run(large, 1);
    let batches = 0;
    await sweep(large.s.db, { days: 30, now: () => Date.now(), stopped: () => batches++ > 0 }); // one batch
  } finally {
    restore();
  }
  const lines: string[] = [];
  for (const [text, params] of seen) {
    if (/^\s*(BEGIN|COMMIT|ROLLBACK|SELECT pg_advisory|SET |ANALYZE|TRUNCATE)/i.test(text)) continue;
    const plan = (await large.s.db.query<Row>(`EXPLAIN ${text}`, params)).map((r) => String(r["QUERY PLAN"]));
    const scans = plan
      .map((l) => l.trim().replace(/^->\s*/, ""))
      .filter((l) => /Scan|Join|Sort|Limit/.test(l))
      .map((l) => l.replace(/\s+\(cost=.*$/, ""));
    lines.push(`${plan.some((l) => BIG_TABLES.test(l)) ? "SEQ SCAN" : "index"} | ${text.replace(/\s+/g, " ").slice(0, 110)} | ${scans.join("; ")}`);
  }
  return lines;
}

/** GROWTH_BENCH_DB as two database options (empty, large) and how to remove them after. */
async function databases(): Promise<{ empty: string; large: string; done: () => Promise<void> }> {
  if (DB === "memory") return { empty: "memory", large: "memory", done: async () => {} };
  if (DB === "directory") {
    const root = mkdtempSync(join(tmpdir(), "verispec-growth-"));
    return { empty: join(root, "empty"), large: join(root, "large"), done: async () => rmSync(root, { recursive: true, force: true }) };
  }
  let base = DB;
  let stopServer = () => {};
  if (DB === "postgres") {
    const initdb = serverTool("initdb");
    const pgCtl = serverTool("pg_ctl");
    if (!initdb || !pgCtl) throw new Error(`GROWTH_BENCH_DB=postgres needs the Postgres server: ${POSTGRES_INSTALL}`);
    const server = await startPostgres({ initdb, pgCtl });
    base = server.url;
    stopServer = () => server.stop();
  }
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  for (const name of ["growth_empty", "growth_large"]) {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  }
  const url = (name: string) => base.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  return {
    empty: url("growth_empty"),
    large: url("growth_large"),
    done: async () => {
      for (const name of ["growth_empty", "growth_large"]) await admin.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => {});
      await admin.end();
      stopServer();
    },
  };
}

const verdict = (e: number, l: number) => `${(l / e).toFixed(2)} ${l / e <= BOUND ? "met" : "NOT met"}`;

export default async function run(): Promise<void> {
  const where = DB === "memory" ? "PGlite in memory" : DB === "directory" ? "PGlite data directories" : "Postgres";
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const started = `${new Date().toISOString().slice(0, 16)}Z, load average ${load()}`;
  const dbs = await databases();
  const stores: Store[] = [];
  try {
    stores.push(await prepare("empty", dbs.empty, 0), await prepare(`large`, dbs.large, ROWS));
    const [empty, large] = stores as [Store, Store];
    const figures = await measureAll([empty, large]);
    const retention = await duringRetention(large);
    const plans = await explainAll(large);
    console.log(
      `\n${where}, ${ROWS.toLocaleString("en")} stored verifications (and as many history and delivered outbox rows) vs none, in one run (${started}; at the end ${load()}):`,
    );
    console.log(
      `p99 ms over ${REQUESTS} requests a figure unless marked (share), ${CONCURRENCY} in flight, ${SLICES} alternating slices; bound: large <= ${BOUND}x empty\n`,
    );
    console.log("| request | empty store p99 | large store p99 | ratio | p50 empty / large | p50 ratio |");
    console.log("|---|---:|---:|---:|---:|---:|");
    const row = (name: string, e: number[], l: number[]) =>
      `| ${name} | ${p99(e).toFixed(1)} | ${p99(l).toFixed(1)} | ${verdict(p99(e), p99(l))} | ${p50(e).toFixed(1)} / ${p50(l).toFixed(1)} | ${verdict(p50(e), p50(l))} |`;
    for (const [name, share] of FIGURES) {
      const [e, l] = figures.get(name)!;
      console.log(row(`${name}${share === 1 ? "" : ` (${Math.round(share * REQUESTS)} calls)`}`, e, l));
    }
    console.log(row("create + GET during a retention sweep (large store: without / during)", retention.without, retention.during));
    console.log(
      `\nretention removed ${retention.removed.toLocaleString("en")} old verifications and deliveries while the requests ran (${retention.seconds.toFixed(1)} s of alternating slices)`,
    );
    console.log(
      `\nEXPLAIN of every statement the requests ran, on the large store (${plans.filter((p) => p.startsWith("SEQ")).length} with a sequential scan of a big table):\n`,
    );
    for (const line of plans) console.log(line);
  } finally {
    for (const st of stores) await st.s.close().catch(() => {});
    await dbs.done();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
