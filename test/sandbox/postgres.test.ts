// --db postgres://...: the same SQL on a real Postgres server (started here on 127.0.0.1). Two claims held
// open at once never take one row; two sandbox instances on one database never deliver one webhook twice
// nor complete one verification twice; and with kill -9 of one instance during bursts (the delivery soak,
// bench/delivery-soak.ts, a few kills) no webhook is lost and a kill's duplicates stay within the bound.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { soak } from "../../bench/delivery-soak.js";
import { createClient } from "../../generated/index.js";
import { claimDue, toQueuedRow, type QueuedRow } from "../../templates/sandbox/store/outbox.js";
import { openStore, type Db } from "../../templates/sandbox/store/index.js";
import { outboxPageRows } from "../../templates/sandbox/store/pages.js";
import { needPostgres, startPostgres, type LocalPostgres } from "../support/postgres.js";
import { planOf } from "./inprocess.js";
import { CREDENTIALS, startReceiver, startSandbox, until, v5Individual, webhookErrors, type Sandbox } from "./helpers.js";

const postgres = needPostgres();

describe.skipIf(!postgres.found)("sandbox on Postgres", () => {
  let server: LocalPostgres | undefined;
  let url = "";
  let db: Db;

  beforeAll(async () => {
    server = await startPostgres(postgres.tools);
    url = server.url;
    db = await openStore(url, process.cwd());
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    server?.stop();
  });

  // Issue 28, part 3: GET /_sandbox/deliveries?userId= on Postgres 15 walked the whole outbox by id with a
  // correlated SubPlan (38 s p99 at a million rows, bench/growth.bench.ts); now each of the user's
  // verifications is one range scan of its outbox rows, whatever the outbox holds.
  it("a userId's deliveries page is index range scans, not a walk of the outbox", async () => {
    await db.query(`INSERT INTO verifications (trace, api, user_id, submission_id, type, name, request, verification_status, submission_status, attempt, outcome, created_at, updated_at)
      SELECT 'plan-' || g, 'v5', 'plan-user-' || g, 's-' || g, 'individual', 'N', '{}', 'verified', 'completed', 1, 'verified', 0, 0 FROM generate_series(1, 20000) g`);
    await db.query(`INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at)
      SELECT 'plan-' || g, 'plan-' || g, 'http://127.0.0.1:9/', 'v5', '2', '{}', 0, 'delivered', 1, 0, 0 FROM generate_series(1, 20000) g`);
    await db.query("ANALYZE verifications");
    await db.query("ANALYZE outbox");
    const plan = await planOf(db, (explain) => outboxPageRows(explain, "default", { userId: "plan-user-7" }, { limit: 100, ascending: false }));
    expect(plan).toContain("verifications_user_set");
    expect(plan).toContain("outbox_trace");
    // The one SubPlan allowed: a body's shared string, one probe of its verification (store/shared-text.ts BODY).
    expect(plan.replace(/SubPlan \d+\s*->\s*Index Scan using verifications_pkey on verifications sv\b/g, "")).not.toMatch(
      /SubPlan|Seq Scan on outbox|outbox_pkey/,
    );
    expect((await outboxPageRows(db, "default", { userId: "plan-user-7" }, { limit: 100, ascending: false })).map((r) => r.trace)).toEqual(["plan-7"]);
    await db.query("DELETE FROM outbox WHERE trace LIKE 'plan-%'");
    await db.query("DELETE FROM verifications WHERE trace LIKE 'plan-%'");
  });

  it("two claims at once on two connections: the second skips the rows the first holds instead of waiting and taking them too", async () => {
    const now = Date.now();
    const ids = (rows: readonly QueuedRow[]) => rows.map((r) => r.id).sort((a, b) => a - b);
    const queued = ids(
      (
        await db.query(
          `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, next_at, created_at)
       SELECT 'race-' || i, 'race-' || i, 'http://127.0.0.1:9/race', 'v5', '2', '{}', $1, 'queued', $1, $1 FROM generate_series(1, 4) AS i
       RETURNING id, tenant, delivery_id, url, body, signature_version, tries`,
          [now],
        )
      ).map(toQueuedRow),
    );
    // The first claim takes two rows in a transaction that stays open until released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let first: QueuedRow[] | undefined;
    const firstDone = db.transaction(async (tx) => {
      first = await claimDue(tx, now, 2, "first", now + 60_000);
      await released;
    });
    await until(() => first, "the first claim, held open");
    // The second claim, on another connection of the pool, while the first's transaction holds its rows.
    let secondReturned = false;
    const second = claimDue(db, now, 10, "second", now + 60_000).finally(() => (secondReturned = true));
    const waitsOnLock = async () => (await db.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).length > 0;
    await until(async () => secondReturned || (await waitsOnLock()), "the second claim to return or to wait on the first's locks");
    const returnedWhileFirstOpen = secondReturned;
    release();
    await firstDone;
    const secondRows = await second;
    expect(ids(first!)).toEqual(queued.slice(0, 2));
    expect(returnedWhileFirstOpen).toBe(true);
    expect(ids(secondRows)).toEqual(queued.slice(2));
    const owners = await db.query("SELECT lease_owner FROM outbox WHERE delivery_id LIKE 'race-%' ORDER BY id");
    expect(owners.map((r) => r.lease_owner)).toEqual(["first", "first", "second", "second"]);
    await db.query("DELETE FROM outbox WHERE delivery_id LIKE 'race-%'");
  }, 60_000);

  it("two instances on one database: every webhook delivered exactly once, every verification completed once", async () => {
    const receiver = await startReceiver();
    const args = ["--db", url, "--processing-ms", "300", "--webhook-url", receiver.url];
    const sandboxes: Sandbox[] = [await startSandbox(args), await startSandbox(args)];
    try {
      const clients = sandboxes.map((s) => createClient({ baseUrl: s.url, ...CREDENTIALS, retry: false }));
      const traces = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          clients[i % 2]!.v5.createVerification(v5Individual(i % 3 === 0 ? "Shared Rejected" : "Shared Person")).then((r) => r.trace!),
        ),
      );
      // Each instance reads what the other wrote.
      expect((await clients[1]!.v5.getVerification(traces[0]!)).data).toMatchObject({ trace: traces[0] });
      const per = (t: string) => receiver.deliveries.filter((d) => JSON.parse(d.body).trace === t);
      await until(() => traces.every((t) => per(t).length >= 2), "pending and outcome webhooks of all 40", 60_000);
      await until(async () => (await db.query("SELECT 1 FROM outbox WHERE state = 'queued'")).length === 0, "no queued row");
      // A clean stop waits for every delivery in flight: after it, the receiver has all it will ever get.
      for (const s of sandboxes.splice(0)) expect(await s.stop()).toBe(0);
      for (const t of traces) {
        expect(per(t).map((d) => JSON.parse(d.body).verificationStatus)).toEqual(["pending", t === traces[0] ? "rejected" : expect.any(String)]);
      }
      const ids = receiver.deliveries.map((d) => String(d.headers["x-svc-delivery-id"]));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(80);
      expect(receiver.deliveries.map((d) => webhookErrors(d.body)).filter((e) => e.length)).toEqual([]);
      // One attempt recorded per row: no instance sent a row another had sent.
      const attempts = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM delivery_attempts");
      expect(attempts[0]!.n).toBe(80);
    } finally {
      for (const s of sandboxes) expect(await s.stop()).toBe(0);
      await receiver.close();
    }
  }, 180_000);

  it("kill -9 of one of two instances during bursts: no answered create's webhook lost, at most the dispatcher's concurrency sent again per kill", async () => {
    await db.query("TRUNCATE outbox, delivery_attempts, verifications, history");
    const r = await soak({ store: "postgres", postgresUrl: url, kills: 2, burst: 40, deliveryTimeoutMs: 1000 });
    expect(r.kills).toBe(2);
    expect(r.answered).toBeGreaterThan(0);
    expect(r.lost).toBe(0);
    for (const k of r.perKill) expect(k.duplicates).toBeLessThanOrEqual(r.bound);
    expect(r.deliveries).toBeGreaterThanOrEqual(r.answered * 2);
  }, 240_000);
});
