// `npm run soak -- [--store pglite|postgres|both] [--kills N] [--burst N] [--rng N] [--json FILE]`
//
// Webhook delivery under kill -9. The sandbox (the compiled CLI, as users run it) takes bursts of creates
// with a receiver on 127.0.0.1 that counts every deliveryId it is sent; during each burst one sandbox
// process is killed with SIGKILL and started again on the same store. PGlite: one process on a directory.
// Postgres: two processes on one database, the killed one alternating. After each kill the soak waits
// until the store has no queued row and every answered create's webhooks arrived, so each repeated
// deliveryId is charged to the kill it follows. A repeat is either a retry the store recorded (an attempt
// that got no answer within the delivery timeout: on a loaded machine that happens without any crash) or
// a POST the store has no attempt for: sent, then the process died before its answer was committed. The
// guarantee checked (docs/engineering/delivery-soak.md): no webhook of an answered create is lost, and
// the POSTs a kill leaves unrecorded are at most the dispatcher's concurrency (DELIVERY_CONCURRENCY).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, distIsCurrent } from "../generator/build.js";
import { DELIVERY_CONCURRENCY } from "../templates/sandbox/dispatcher.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CREDENTIALS = { uid: "soak-uid", secret: "soak-secret", signing: "soak-signing-key-0123456789" };
const AUTH = `Basic ${Buffer.from(`${CREDENTIALS.uid}:${CREDENTIALS.secret}`).toString("base64")}`;
const READY = /verispec sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/;
/** Creates sent at once during a burst. */
const CLIENTS = 16;
/** Every webhook of a create: the pending one, and the outcome once processing completes. */
const WEBHOOKS_PER_CREATE = 2;

export interface SoakOptions {
  readonly store: "pglite" | "postgres";
  /** Required for "postgres": a database the soak may fill. */
  readonly postgresUrl?: string;
  readonly kills: number;
  /** Creates per burst (one burst per kill). */
  readonly burst: number;
  readonly rng?: number;
  /**
   * The sandbox's --delivery-timeout-ms (default 5000). A killed Postgres instance's rows are claimed
   * again when their lease lapses, 2 x timeout + 1 s after their claim: each Postgres round waits that long.
   */
  readonly deliveryTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface KillFigures {
  readonly kill: number;
  /** Deliveries the receiver held without answering yet when the kill came (a floor of those in flight). */
  readonly heldAtReceiver: number;
  /** POSTs of a deliveryId the receiver had read before, after this kill. */
  readonly repeats: number;
  /** Of those, retries the store recorded (an earlier attempt got no answer in time). */
  readonly retries: number;
  /** POSTs the store has no attempt for: in flight at the kill, sent again after it (the kill's duplicates). */
  readonly duplicates: number;
}

export interface SoakResult {
  readonly store: "pglite" | "postgres";
  readonly instances: number;
  readonly kills: number;
  /** Creates answered 2xx. */
  readonly answered: number;
  /** Distinct deliveryIds the receiver was sent. */
  readonly deliveries: number;
  /** Every POST the receiver read, repeats included. */
  readonly posts: number;
  /** POSTs of a deliveryId read before: recorded retries plus the kills' duplicates. */
  readonly repeats: number;
  /** POSTs with no recorded attempt, over all kills. */
  readonly duplicates: number;
  readonly maxDuplicatesPerKill: number;
  /** The guarantee's bound per kill: the dispatcher's concurrency. */
  readonly bound: number;
  /** Answered creates missing a webhook at the end (must be 0). */
  readonly lost: number;
  readonly perKill: readonly KillFigures[];
  readonly seconds: number;
}

/** mulberry32: the soak's choices (answer delays, kill moments) repeat for one --rng value. */
function random(state: number): () => number {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Receiver {
  readonly url: string;
  /** deliveryIds in the order the receiver read them, repeats included. */
  readonly posts: string[];
  /** deliveryIds per trace. */
  readonly perTrace: Map<string, Set<string>>;
  /** Read, not yet answered. */
  held(): number;
  close(): Promise<void>;
}

/** Counts each deliveryId; answers 200, one in eight after 250 ms (a slow answer keeps its delivery in flight). */
async function startReceiver(next: () => number): Promise<Receiver> {
  const posts: string[] = [];
  const perTrace = new Map<string, Set<string>>();
  let held = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const id = String(req.headers["x-svc-delivery-id"]);
      const { trace } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { trace: string };
      posts.push(id);
      if (!perTrace.has(trace)) perTrace.set(trace, new Set());
      perTrace.get(trace)!.add(id);
      held++;
      const answer = () => {
        held--;
        if (!res.destroyed) res.writeHead(200).end();
      };
      if (next() < 1 / 8) setTimeout(answer, 250);
      else setImmediate(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    posts,
    perTrace,
    held: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Instance {
  url: string;
  child: ChildProcess;
  alive: boolean;
  exited: Promise<void>;
}

async function startInstance(args: readonly string[]): Promise<Instance> {
  const child = spawn(process.execPath, [join(ROOT, "bin/verispec.js"), "sandbox", "--port", "0", ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      VERISPEC_SANDBOX_SERVICE_UID: CREDENTIALS.uid,
      VERISPEC_SANDBOX_SECRET: CREDENTIALS.secret,
      VERISPEC_SIGNING_SECRET: CREDENTIALS.signing,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sandbox did not start: ${out.slice(-500)}`)), 120_000);
    const check = (c: Buffer) => {
      out += c.toString("utf8");
      const m = READY.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", (c: Buffer) => (out += c.toString("utf8")));
    void exited.then(() => reject(new Error(`the sandbox exited: ${out.slice(-500)}`)));
  });
  const instance: Instance = { url, child, alive: true, exited };
  void exited.then(() => (instance.alive = false));
  return instance;
}

async function create(instance: Instance, name: string): Promise<string | undefined> {
  try {
    const r = await fetch(`${instance.url}/v5/verifications`, {
      method: "POST",
      headers: { authorization: AUTH, "content-type": "application/json" },
      body: JSON.stringify({ type: "individual", subType: "data", country: "AUS", name, website: "https://example.com" }),
    });
    const body = (await r.json()) as { trace?: string };
    return r.ok ? body.trace : undefined;
  } catch {
    return undefined; // killed while answering: the create may or may not be stored
  }
}

interface Listed {
  readonly deliveryId: string;
  readonly state: string;
  readonly attempts: readonly { readonly statusCode: number | null; readonly error: string | null }[];
}

/** The store's newest 500 deliveries (GET /_sandbox/deliveries). */
async function listed(instance: Instance): Promise<Listed[]> {
  const r = await fetch(`${instance.url}/_sandbox/deliveries`, { headers: { authorization: AUTH } });
  return ((await r.json()) as { deliveries: Listed[] }).deliveries;
}

/** Recorded attempts that reached the receiver: answered, or not answered in time (the receiver read it). */
const reached = (d: Listed) => d.attempts.filter((a) => a.statusCode !== null || a.error?.startsWith("no answer within")).length;

async function waitFor(probe: () => Promise<boolean> | boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`delivery soak: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function soak(o: SoakOptions): Promise<SoakResult> {
  if (o.store === "postgres" && !o.postgresUrl) throw new Error("delivery soak: the postgres store needs postgresUrl");
  if (o.burst > 200) throw new Error("delivery soak: at most 200 creates per burst (the listing it checks shows the newest 500 deliveries)");
  const started = Date.now();
  const rand = random(o.rng ?? 1);
  const receiver = await startReceiver(rand);
  const dir = o.store === "pglite" ? mkdtempSync(join(tmpdir(), "verispec-soak-")) : undefined;
  const args = [
    "--db",
    dir ?? o.postgresUrl!,
    "--webhook-url",
    receiver.url,
    "--processing-ms",
    "200",
    "--delivery-timeout-ms",
    String(o.deliveryTimeoutMs ?? 5000),
  ];
  const count = o.store === "postgres" ? 2 : 1;
  const instances: Instance[] = [];
  const answered = new Set<string>();
  const perKill: KillFigures[] = [];
  /** Per deliveryId, its POSTs without a recorded attempt already charged to a kill. */
  const charged = new Map<string, number>();
  try {
    for (let i = 0; i < count; i++) instances.push(await startInstance(args));
    for (let kill = 1; kill <= o.kills; kill++) {
      const roundStart = receiver.posts.length;
      const victim = (kill - 1) % count;
      // The kill comes once the receiver has read 20-80% of the burst's first webhooks.
      const killAfter = Math.max(1, Math.floor(o.burst * (0.2 + 0.6 * rand())));
      let sent = 0;
      const clients = Array.from({ length: CLIENTS }, async (_, c) => {
        while (sent < o.burst) {
          const live = instances.filter((i) => i.alive);
          if (!live.length) return;
          sent++;
          const trace = await create(live[(sent + c) % live.length]!, `Soak ${kill}-${sent}`);
          if (trace) answered.add(trace);
        }
      });
      await waitFor(() => receiver.posts.length - roundStart >= killAfter, `${killAfter} deliveries of burst ${kill}`);
      const held = receiver.held();
      instances[victim]!.child.kill("SIGKILL");
      await instances[victim]!.exited;
      await Promise.all(clients);
      instances[victim] = await startInstance(args);
      await waitFor(
        async () =>
          [...answered].every((t) => (receiver.perTrace.get(t)?.size ?? 0) >= WEBHOOKS_PER_CREATE) &&
          !(await listed(instances[0]!)).some((d) => d.state === "queued"),
        `every webhook of burst ${kill}`,
      );
      const round = receiver.posts.slice(roundStart);
      const seen = new Set(receiver.posts.slice(0, roundStart));
      let repeats = 0;
      for (const id of round) {
        if (seen.has(id)) repeats++;
        seen.add(id);
      }
      const posts = new Map<string, number>();
      for (const id of receiver.posts) posts.set(id, (posts.get(id) ?? 0) + 1);
      const store = new Map((await listed(instances[0]!)).map((d) => [d.deliveryId, d]));
      let duplicates = 0;
      for (const id of new Set(round)) {
        const d = store.get(id);
        if (!d) throw new Error(`delivery soak: deliveryId ${id} is not among the store's newest 500 deliveries`);
        const unrecorded = posts.get(id)! - reached(d);
        duplicates += unrecorded - (charged.get(id) ?? 0);
        charged.set(id, unrecorded);
      }
      perKill.push({ kill, heldAtReceiver: held, repeats, retries: repeats - duplicates, duplicates });
      o.log?.(
        `kill ${kill}/${o.kills} (${o.store}, instance ${victim + 1} of ${count}): ${duplicates} duplicate(s) unrecorded at the kill, ${repeats - duplicates} recorded retries, ${held} held by the receiver at the kill`,
      );
    }
    const lost = [...answered].filter((t) => (receiver.perTrace.get(t)?.size ?? 0) < WEBHOOKS_PER_CREATE).length;
    const distinct = new Set(receiver.posts).size;
    return {
      store: o.store,
      instances: count,
      kills: o.kills,
      answered: answered.size,
      deliveries: distinct,
      posts: receiver.posts.length,
      repeats: receiver.posts.length - distinct,
      duplicates: perKill.reduce((n, k) => n + k.duplicates, 0),
      maxDuplicatesPerKill: Math.max(0, ...perKill.map((k) => k.duplicates)),
      bound: DELIVERY_CONCURRENCY,
      lost,
      perKill,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    for (const i of instances) {
      if (i.alive) i.child.kill("SIGTERM");
      await i.exited;
    }
    await receiver.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per store for the docs' table. */
export function summary(r: SoakResult): string {
  return (
    `${r.store} (${r.instances} instance${r.instances > 1 ? "s" : ""}): ${r.kills} kills, ${r.answered} creates answered, ${r.deliveries} deliveries, ${r.posts} POSTs (${r.repeats} repeats), ` +
    `${r.duplicates} unrecorded at a kill (at most ${r.maxDuplicatesPerKill} per kill; bound ${r.bound}), ${r.lost} lost, ${r.seconds} s`
  );
}

const USAGE = "usage: npm run soak -- [--store pglite|postgres|both] [--kills N] [--burst N] [--rng N] [--json FILE]";

async function main(argv: readonly string[]): Promise<number> {
  const opts = { store: "both", kills: 24, burst: 150, rng: 1, json: undefined as string | undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[++i];
    if (v === undefined) return usage(`${a} needs a value`);
    if (a === "--store" && ["pglite", "postgres", "both"].includes(v)) opts.store = v;
    else if (a === "--kills" || a === "--burst" || a === "--rng") {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) return usage(`${a} needs a whole number of at least 1`);
      opts[a.slice(2) as "kills" | "burst" | "rng"] = n;
    } else if (a === "--json") opts.json = v;
    else return usage(`unknown option ${a} ${v}`);
  }
  if (!distIsCurrent()) build();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const results: SoakResult[] = [];
  if (opts.store !== "postgres") results.push(await soak({ store: "pglite", kills: opts.kills, burst: opts.burst, rng: opts.rng, log }));
  if (opts.store !== "pglite") {
    const { POSTGRES_INSTALL, serverTool, startPostgres } = await import("../test/support/postgres.js");
    const initdb = serverTool("initdb");
    const pgCtl = serverTool("pg_ctl");
    if (!initdb || !pgCtl) {
      process.stderr.write(`delivery soak: postgresql is not installed (${POSTGRES_INSTALL})\n`);
      return 2;
    }
    const pg = await startPostgres({ initdb, pgCtl });
    try {
      results.push(await soak({ store: "postgres", postgresUrl: pg.url, kills: opts.kills, burst: opts.burst, rng: opts.rng, log }));
    } finally {
      pg.stop();
    }
  }
  for (const r of results) log(summary(r));
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);
  const broken = results.filter((r) => r.lost > 0 || r.maxDuplicatesPerKill > r.bound);
  return broken.length ? 1 : 0;
}

function usage(problem: string): number {
  process.stderr.write(`delivery soak: ${problem}\n${USAGE}\n`);
  return 2;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (err: Error) => {
      process.stderr.write(`delivery soak: ${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
