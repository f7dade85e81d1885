// Flat under a backlog (issue 41 part 2, issue 39 item 0): a dead receiver's queued deliveries must cost
// nothing while they wait, and a claim only what is due. In one run, on PGlite in memory (BACKLOG_BENCH_DB=memory,
// the default) or Postgres (BACKLOG_BENCH_DB=postgres: a throwaway cluster, test/support/postgres.ts):
//   1. the dispatcher's claim of 100 due rows (the store's statement, called directly: a plain SELECT on
//      PGlite, the leasing UPDATE rolled back on Postgres) beside 100, 10,000 and 100,000 queued rows of a
//      dead receiver waiting for their retry; p99 over alternating slices; goal: within 1.5x of 100 queued;
//   2. a running sandbox (startSandbox) with BACKLOG_BENCH_QUEUED (default 100,000) deliveries queued for a
//      dead receiver, beside one with an empty outbox: idle CPU over BACKLOG_BENCH_IDLE_S seconds (this
//      process, and on Postgres the server's processes too; the empty one alone, then both, the backlog
//      one's share being the difference), and GET by trace p50/p90; goal: idle CPU under
//      5% of a core, GET p50/p90 within 1.5x of the empty outbox;
//   3. the receiver comes back: BACKLOG_BENCH_DRAIN (default 20,000) of the queued deliveries made due, the
//      time until the sandbox has delivered every one of them (each deliveryId once, every row delivered),
//      beside a bare loop (64 in flight, keep-alive node:http) POSTing as many bodies to the same receiver.
import { once } from "node:events";
import { readFileSync, readdirSync } from "node:fs";
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { sandboxBinding } from "../generated/sandbox.js";
import type { SandboxBinding } from "../templates/sandbox/binding.js";
import { startSandbox, type RunningSandbox } from "../templates/sandbox/index.js";
import { openStore } from "../templates/sandbox/store/index.js";
import { migrate } from "../templates/sandbox/store/migrations.js";
import { claimDue, due, selectDue } from "../templates/sandbox/store/outbox.js";
import type { Db } from "../templates/sandbox/store/sql.js";
import { POSTGRES_INSTALL, serverTool, startPostgres } from "../test/support/postgres.js";

const DB = process.env.BACKLOG_BENCH_DB ?? "memory";
const QUEUED = Number(process.env.BACKLOG_BENCH_QUEUED ?? 100_000);
const DRAIN = Math.min(QUEUED, Number(process.env.BACKLOG_BENCH_DRAIN ?? 20_000));
const IDLE_S = Number(process.env.BACKLOG_BENCH_IDLE_S ?? 5);
const CLAIMS = Number(process.env.BACKLOG_BENCH_CLAIMS ?? 400);
const SIZES = [100, 10_000, 100_000];
const SLICES = 4;
const BOUND = 1.5;
const HOUR_MS = 3_600_000;
const CREDENTIALS = { serviceUid: "backlog-uid", secret: "backlog-secret" };
const AUTH = `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}`;
const BODY = JSON.stringify({ trace: "backlog", verificationStatus: "pending", padding: "x".repeat(400) });

/**
 * `count` queued deliveries of distinct traces to `url`, tried once, next tried at `nextAt`. No ANALYZE
 * after: a running sandbox's rows arrive without one (PGlite runs no autovacuum), so the claim is measured
 * with the statistics the store had before the backlog.
 */
async function queueDead(db: Db, url: string, count: number, nextAt: number, prefix = "dead"): Promise<void> {
  for (let from = 0; from < count; from += 50_000) {
    await db.query(
      `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at, last_error)
       SELECT $1 || '-' || g, $1 || '-' || g, $2, 'v5', '2', $3, $4::bigint, 'queued', 1, $5::bigint, $4::bigint, 'ECONNREFUSED' FROM generate_series($6::int, $7::int) g`,
      [prefix, url, BODY, Date.now(), nextAt, from, Math.min(count, from + 50_000) - 1],
    );
  }
}

/** A port nothing listens on (a dead receiver), to start the receiver on later. */
async function freePort(): Promise<number> {
  const s = createServer().listen(0, "127.0.0.1");
  await once(s, "listening");
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const pct = (times: number[], q: number) => [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * q))]!;

/** The claim as the dispatcher runs it on this store (Postgres: the leasing UPDATE, rolled back). */
async function claim(db: Db, now: number): Promise<void> {
  if (db.exclusive) {
    const rows = await selectDue(db, now, 100, []);
    if (rows.length !== 100) throw new Error(`claim found ${rows.length} rows`);
    return;
  }
  await db
    .transaction(async (tx) => {
      const rows = await claimDue(tx, now, 100, "backlog-bench", now + 60_000);
      if (rows.length !== 100) throw new Error(`claim found ${rows.length} rows`);
      throw new RolledBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
}
class RolledBack extends Error {}

/** Part 1: claim p99 beside each backlog size, slices alternating between the stores. */
async function claims(open: (name: string) => Promise<Db>): Promise<{ size: number; p99: number }[]> {
  const stores: Db[] = [];
  try {
    for (const size of SIZES) {
      const db = await open(`backlog_${size}`);
      await migrate(db);
      await db.query("TRUNCATE outbox, delivery_attempts");
      await queueDead(db, "http://127.0.0.1:9/dead", size, Date.now() + HOUR_MS);
      await queueDead(db, "http://127.0.0.1:9/due", 100, Date.now() - 1000, "due");
      stores.push(db);
    }
    const times: number[][] = SIZES.map(() => []);
    for (let slice = 0; slice < SLICES; slice++) {
      const order = slice % 2 ? [...stores.keys()].reverse() : [...stores.keys()];
      for (const k of order) {
        for (let i = 0; i < CLAIMS / SLICES; i++) {
          const t = performance.now();
          await claim(stores[k]!, Date.now());
          times[k]!.push(performance.now() - t);
        }
      }
    }
    const plan = await stores.at(-1)!.query(`EXPLAIN (ANALYZE, COSTS off, TIMING off) ${due(100, "")}`, [Date.now()]);
    console.log(
      `the claim's plan beside ${SIZES.at(-1)!.toLocaleString("en")} queued (rows read per node):\n${plan.map((r) => `  ${String(r["QUERY PLAN"])}`).join("\n")}`,
    );
    return SIZES.map((size, k) => ({ size, p99: pct(times[k]!, 0.99) }));
  } finally {
    for (const db of stores) await db.close().catch(() => {});
  }
}

async function start(db: string, webhookUrl: string): Promise<RunningSandbox> {
  return startSandbox({
    binding: sandboxBinding as unknown as SandboxBinding,
    host: "127.0.0.1",
    port: 0,
    db,
    cwd: process.cwd(),
    webhookUrls: [webhookUrl],
    signatureVersion: "2",
    processingMs: "manual",
    requestedActionsPath: "/requestedActions",
    maxBodyBytes: 10_485_760,
    credentials: CREDENTIALS,
    signingSecret: "backlog-signing",
    deliveryTimeoutMs: 5000,
    retryDelaysMs: [HOUR_MS],
    log: () => {},
    metrics: false,
    retainDays: 0,
  });
}

/** CPU seconds used so far by each process of the Postgres server behind `db` (its postmaster and every child), none on PGlite. */
async function serverCpu(db: Db): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (db.exclusive) return out;
  const dir = String((await db.query("SHOW data_directory"))[0]!.data_directory);
  const root = Number(readFileSync(`${dir}/postmaster.pid`, "utf8").split("\n")[0]);
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pid) === root || Number(f[1]) === root) out.set(Number(pid), (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      // a process that ended meanwhile
    }
  }
  return out;
}

/** CPU seconds between two readings: of the processes in the second, what each used since the first (a process that ended between them is not counted). */
const cpuSince = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((sum, [pid, s]) => sum + s - (before.get(pid) ?? 0), 0);

/** Share of a core used while the sandbox idles (nothing due), this process and the database server. */
async function idleCpu(s: RunningSandbox): Promise<{ self: number; server: number }> {
  await new Promise((r) => setTimeout(r, 1000));
  const cpu0 = process.cpuUsage();
  const server0 = await serverCpu(s.db);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  const wall = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu0);
  return { self: (used.user + used.system) / 1e6 / wall, server: cpuSince(server0, await serverCpu(s.db)) / wall };
}

/** GET by trace times (ms), 10 in flight: the sandbox's own creates (not the queued rows). */
async function gets(s: RunningSandbox, traces: readonly string[], n: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < n) {
        const trace = traces[next++ % traces.length]!;
        const t = performance.now();
        const r = await fetch(`${s.url}/v5/verifications/${trace}`, { headers: { authorization: AUTH } });
        if (r.status !== 200) throw new Error(`GET ${trace}: ${r.status}`);
        await r.arrayBuffer();
        times.push(performance.now() - t);
      }
    }),
  );
  return times;
}

async function creates(s: RunningSandbox, n: number): Promise<string[]> {
  const traces: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${s.url}/v5/verifications`, {
      method: "POST",
      headers: { authorization: AUTH, "content-type": "application/json" },
      body: JSON.stringify({ type: "individual", subType: "data", country: "AUS", name: "Backlog Person", website: "https://example.com" }),
    });
    if (r.status !== 200) throw new Error(`create: ${r.status} ${await r.text()}`);
    traces.push(((await r.json()) as { trace: string }).trace);
  }
  return traces;
}

/** A receiver answering 200, counting each deliveryId it gets. */
async function receiver(port: number): Promise<{ server: Server; ids: Map<string, number>; posts: () => number }> {
  const ids = new Map<string, number>();
  let posts = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      posts++;
      const id = String(req.headers["x-svc-delivery-id"] ?? req.headers["x-bare"] ?? "");
      ids.set(id, (ids.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  return { server, ids, posts: () => posts };
}

/** A bare loop: `n` POSTs of BODY to `url`, 64 in flight, kept-alive connections; its seconds. */
async function bareLoop(url: string, n: number): Promise<number> {
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < n) {
        const i = next++;
        await new Promise<void>((resolve, reject) => {
          const req = request(
            url,
            { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(BODY), "x-bare": `bare-${i}` } },
            (res) => {
              res.resume();
              res.once("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`bare: ${res.statusCode}`))));
            },
          );
          req.once("error", reject);
          req.end(BODY);
        });
      }
    }),
  );
  agent.destroy();
  return (performance.now() - t0) / 1000;
}

/** Parts 2 and 3 on two sandboxes: one with QUEUED dead deliveries, one with none. */
async function sandboxes(empty: string, backlog: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/webhooks`;
  const stores: RunningSandbox[] = [];
  try {
    // Both sandboxes run in this process: the empty one idles alone first, then beside the backlog one,
    // whose share is the difference. Their own creates' webhooks fail once and wait an hour too.
    const e = await start(empty, url);
    stores.push(e);
    await e.db.query("TRUNCATE verifications, history, outbox, delivery_attempts, forms");
    const traces = [await creates(e, 100)];
    await new Promise((r) => setTimeout(r, 2000));
    const alone = await idleCpu(e);
    const b = await start(backlog, url);
    stores.push(b);
    await b.db.query("TRUNCATE verifications, history, outbox, delivery_attempts, forms");
    await queueDead(b.db, url, QUEUED, Date.now() + HOUR_MS);
    traces.push(await creates(b, 100));
    await new Promise((r) => setTimeout(r, 2000));
    const both = await idleCpu(b);
    const idle = [alone, { self: Math.max(0, both.self - alone.self), server: Math.max(0, both.server - alone.server) }];
    const got: number[][] = [[], []];
    for (let slice = 0; slice < SLICES; slice++) for (const k of slice % 2 ? [1, 0] : [0, 1]) got[k]!.push(...(await gets(stores[k]!, traces[k]!, 250)));
    return { idle, got, drain: await drain(b, port, url) };
  } finally {
    for (const s of stores) await s.close().catch(() => {});
  }
}

/** Part 3: the receiver comes back; DRAIN of the queued rows made due; seconds until all are delivered, beside the bare loop. */
async function drain(b: RunningSandbox, port: number, url: string): Promise<{ sandbox: number; bare: number; duplicates: number }> {
  const rx = await receiver(port);
  try {
    const bare = await bareLoop(url, DRAIN);
    rx.ids.clear();
    const t0 = performance.now();
    await b.db.query("UPDATE outbox SET next_at = $1 WHERE state = 'queued' AND delivery_id IN (SELECT 'dead-' || g FROM generate_series(0, $2::int - 1) g)", [
      Date.now(),
      DRAIN,
    ]);
    for (;;) {
      const left = Number((await b.db.query("SELECT count(*) AS n FROM outbox WHERE state = 'queued' AND next_at <= $1", [Date.now()]))[0]!.n);
      if (left === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const sandbox = (performance.now() - t0) / 1000;
    const delivered = [...rx.ids.keys()].filter((k) => k.startsWith("dead-")).length;
    if (delivered !== DRAIN) throw new Error(`drain: ${delivered} of ${DRAIN} deliveryIds reached the receiver`);
    return { sandbox, bare, duplicates: [...rx.ids.values()].filter((n) => n > 1).length };
  } finally {
    rx.server.closeAllConnections();
    rx.server.close();
  }
}

/** BACKLOG_BENCH_DB as a way to open named stores and the sandbox's --db for two of them. */
async function databases(): Promise<{ open: (name: string) => Promise<Db>; empty: string; backlog: string; done: () => Promise<void> }> {
  if (DB === "memory") return { open: () => openStore("memory", process.cwd()), empty: "memory", backlog: "memory", done: async () => {} };
  const initdb = serverTool("initdb");
  const pgCtl = serverTool("pg_ctl");
  if (!initdb || !pgCtl) throw new Error(`BACKLOG_BENCH_DB=postgres needs the Postgres server: ${POSTGRES_INSTALL}`);
  const server = await startPostgres({ initdb, pgCtl });
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const names = [...SIZES.map((s) => `backlog_${s}`), "backlog_empty", "backlog_queued"];
  for (const name of names) await admin.query(`CREATE DATABASE ${name}`);
  const url = (name: string) => server.url.replace(/\/[^/?]*$/, `/${name}`);
  return {
    open: (name) => openStore(url(name), process.cwd()),
    empty: url("backlog_empty"),
    backlog: url("backlog_queued"),
    done: async () => {
      await admin.end();
      server.stop();
    },
  };
}

const verdict = (ratio: number) => `${ratio.toFixed(2)} ${ratio <= BOUND ? "met" : "NOT met"}`;

export default async function run(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const started = `${new Date().toISOString().slice(0, 16)}Z, load average ${load()}`;
  const dbs = await databases();
  try {
    const claimed = await claims(dbs.open);
    const { idle, got, drain: d } = await sandboxes(dbs.empty, dbs.backlog);
    console.log(`\n${DB === "memory" ? "PGlite in memory" : "Postgres"}, one run (${started}; at the end ${load()})\n`);
    console.log(`claim of 100 due rows, p99 over ${CLAIMS} claims a size, ${SLICES} alternating slices; bound <= ${BOUND}x the 100-queued figure\n`);
    console.log("| queued for a dead receiver | claim p99 ms | ratio to 100 queued |\n|---:|---:|---:|");
    for (const c of claimed) console.log(`| ${c.size.toLocaleString("en")} | ${c.p99.toFixed(2)} | ${verdict(c.p99 / claimed[0]!.p99)} |`);
    const cores = (x: { self: number; server: number }) =>
      `${(x.self * 100).toFixed(1)} %${DB === "memory" ? "" : ` + server ${(x.server * 100).toFixed(1)} %`}`;
    console.log(
      `\nsandbox idle ${IDLE_S} s, ${QUEUED.toLocaleString("en")} deliveries queued for a dead receiver vs an empty outbox (goal: under 5 % of a core; GET within ${BOUND}x)\n`,
    );
    console.log("| figure | empty outbox | backlog | ratio |\n|---|---:|---:|---:|");
    console.log(`| idle CPU (share of a core) | ${cores(idle[0]!)} | ${cores(idle[1]!)} | ${idle[1]!.self + idle[1]!.server < 0.05 ? "met" : "NOT met"} |`);
    for (const q of [0.5, 0.9])
      console.log(
        `| GET by trace p${q * 100} ms (${got[0]!.length} calls) | ${pct(got[0]!, q).toFixed(2)} | ${pct(got[1]!, q).toFixed(2)} | ${verdict(pct(got[1]!, q) / pct(got[0]!, q))} |`,
      );
    console.log(
      `\nthe receiver back: ${DRAIN.toLocaleString("en")} of the queued deliveries due at once, all delivered (each deliveryId reached the receiver; ${d.duplicates} twice)`,
    );
    console.log(`| sandbox drain | bare loop (64 in flight) | ratio |\n|---:|---:|---:|`);
    console.log(
      `| ${Math.round(DRAIN / d.sandbox).toLocaleString("en")} deliveries/s | ${Math.round(DRAIN / d.bare).toLocaleString("en")} posts/s | ${(d.bare / d.sandbox).toFixed(2)}x |`,
    );
  } finally {
    await dbs.done();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
