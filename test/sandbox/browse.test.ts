// Cost flat as data grows: GET /_sandbox/deliveries and /_sandbox/state page by cursor with filters
// (browse.ts), and retention (retention.ts) deletes old data in small batches, leaving queued deliveries
// and recent data alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXCLUSIVE_RETENTION_BATCH, RETENTION_BATCH, retentionBatch, sweep } from "../../templates/sandbox/retention.js";
import type { Db, Row } from "../../templates/sandbox/store/index.js";
import { outboxPageRows } from "../../templates/sandbox/store/pages.js";
import { call, v5Individual } from "./helpers.js";
import { harness, memoryDb, planOf, type Harness } from "./inprocess.js";

const DAY = 86_400_000;
let db: Db;
let h: Harness;
const traces: string[] = [];

beforeAll(async () => {
  db = await memoryDb();
  h = await harness(db, { dispatch: false });
  for (let i = 0; i < 5; i++) {
    const r = await call(h.url, "POST", "/v5/verifications", v5Individual(`Page Person ${i}`, i === 1 ? "user-a" : undefined));
    traces.push(r.body.trace as string);
  }
}, 120_000);
afterAll(async () => {
  await h?.close();
  await db?.close();
});

describe("paged listings", () => {
  it("pages every delivery exactly once, newest first, by cursor", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const r = await call(h.url, "GET", `/_sandbox/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      sizes.push(r.body.deliveries.length);
      seen.push(...r.body.deliveries.map((d: { trace: string }) => d.trace));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual([...traces].reverse());
  });

  it("filters by userId, status and trace", async () => {
    const byUser = await call(h.url, "GET", "/_sandbox/deliveries?userId=user-a");
    expect(byUser.body.deliveries.map((d: { trace: string }) => d.trace)).toEqual([traces[1]]);
    expect((await call(h.url, "GET", "/_sandbox/deliveries?status=no_receiver")).body.deliveries).toHaveLength(5);
    expect((await call(h.url, "GET", "/_sandbox/deliveries?status=delivered")).body.deliveries).toHaveLength(0);
    const one = await call(h.url, "GET", `/_sandbox/deliveries?trace=${traces[3]}`);
    expect([one.body.deliveries.length, one.body.deliveries[0].trace, one.body.nextCursor]).toEqual([1, traces[3], null]);
    const mine = await call(h.url, "GET", "/_sandbox/state?userId=user-a");
    expect([mine.body.verifications.map((v: { trace: string }) => v.trace), mine.body.nextCursor]).toEqual([[traces[1]], null]);
    // A filtered page's deliveries are those of its verifications; an empty page has none.
    expect(mine.body.deliveries.map((d: { trace: string }) => d.trace)).toEqual([traces[1]]);
    expect((await call(h.url, "GET", "/_sandbox/state?userId=nobody")).body).toMatchObject({ verifications: [], deliveries: [] });
    const state = await call(h.url, "GET", "/_sandbox/state?limit=3");
    expect(state.body.verifications.map((v: { trace: string }) => v.trace)).toEqual([traces[4], traces[3], traces[2]]);
    const rest = await call(h.url, "GET", `/_sandbox/state?limit=3&cursor=${state.body.nextCursor}`);
    expect([rest.body.verifications.map((v: { trace: string }) => v.trace), rest.body.nextCursor]).toEqual([[traces[1], traces[0]], null]);
  });

  // The bench (bench/growth.bench.ts) found the old form, trace IN (SELECT ... user_id), walking the whole
  // outbox by id on Postgres 15: seconds a page at a million rows (postgres.test.ts holds that plan; PGlite's
  // newer planner joined it already). Each of the user's verifications is one range scan, paged by cursor.
  it("a userId's page reads the user's verifications and their outbox rows by index, not the outbox in id order", async () => {
    const big = await memoryDb();
    try {
      await big.query(`INSERT INTO verifications (trace, api, user_id, submission_id, type, name, request, verification_status, submission_status, attempt, outcome, created_at, updated_at)
        SELECT 't-' || g, 'v5', 'u-' || g, 's-' || g, 'individual', 'N', '{}', 'verified', 'completed', 1, 'verified', 0, 0 FROM generate_series(1, 20000) g`);
      await big.query(`INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at)
        SELECT 'd-' || g, 't-' || g, 'http://127.0.0.1:9/', 'v5', '2', '{}', 0, 'delivered', 1, 0, 0 FROM generate_series(1, 20000) g`);
      await big.query("ANALYZE");
      // Three verifications of one user, two deliveries each: pages of one, newest first, each once.
      await big.query(`UPDATE verifications SET user_id = 'u-many' WHERE trace IN ('t-5', 't-9', 't-12')`);
      await big.query(`INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at)
        SELECT 'e-' || t, t, 'http://127.0.0.1:9/', 'v5', '2', '{}', 0, 'queued', 0, 0, 0 FROM unnest(ARRAY['t-5', 't-9', 't-12']) t`);
      const ids = (await big.query<{ id: string }>("SELECT id FROM outbox WHERE trace IN ('t-5', 't-9', 't-12') ORDER BY id DESC")).map((r) => Number(r.id));
      const seen: number[] = [];
      let after: number | undefined;
      for (;;) {
        const page = await outboxPageRows(big, "default", { userId: "u-many" }, { limit: 1, after, ascending: false });
        seen.push(Number(page[0]!.id));
        if (page.length < 2) break;
        after = Number(page[0]!.id);
      }
      expect(seen).toEqual(ids);
      expect((await outboxPageRows(big, "default", { userId: "u-many", state: "queued" }, { limit: 10, ascending: false })).map((r) => r.trace)).toEqual([
        "t-12",
        "t-9",
        "t-5",
      ]);
      // A userId and a trace at once: that verification's rows only, by state too.
      expect((await outboxPageRows(big, "default", { userId: "u-many", trace: "t-9" }, { limit: 10, ascending: true })).map((r) => r.deliveryId)).toEqual([
        "d-9",
        "e-t-9",
      ]);
      expect(
        (await outboxPageRows(big, "default", { userId: "u-many", trace: "t-9", state: "delivered" }, { limit: 10, ascending: false })).map(
          (r) => r.deliveryId,
        ),
      ).toEqual(["d-9"]);
      expect(await outboxPageRows(big, "default", { userId: "u-7", trace: "t-9" }, { limit: 10, ascending: false })).toEqual([]);
      expect(await outboxPageRows(big, "other", { userId: "u-many" }, { limit: 10, ascending: false })).toEqual([]);
      const plan = await planOf(big, (explain) => outboxPageRows(explain, "default", { userId: "u-7" }, { limit: 100, ascending: false }));
      expect(plan).toContain("verifications_user_set");
      expect(plan).toContain("outbox_trace");
      // The one SubPlan allowed: a body's shared string, one probe of its verification (store/shared-text.ts BODY).
      expect(plan.replace(/SubPlan \d+\s*->\s*Index Scan using verifications_pkey on verifications sv\b/g, "")).not.toMatch(
        /SubPlan|Seq Scan on outbox|outbox_pkey/,
      );
    } finally {
      await big.close();
    }
  }, 120_000);

  it("refuses a cursor it did not give and a limit out of range with 400", async () => {
    for (const q of ["cursor=bm9wZQ", "limit=0", "limit=501", "limit=x"]) {
      const r = await call(h.url, "GET", `/_sandbox/deliveries?${q}`);
      expect([q, r.status]).toEqual([q, 400]);
    }
  });
});

describe("retention", () => {
  it("deletes old verifications with their history and old finished deliveries with their attempts, in batches; keeps queued and recent rows", async () => {
    const now = h.clock.now();
    // Three verifications and their outbox rows made old; one outbox row old but still queued.
    await db.query("UPDATE verifications SET updated_at = $1 WHERE trace = ANY($2::text[])", [now - 40 * DAY, traces.slice(0, 3)]);
    await db.query("UPDATE outbox SET created_at = $1 WHERE trace = ANY($2::text[])", [Date.now() - 40 * DAY, traces.slice(0, 3)]);
    await db.query("UPDATE outbox SET state = 'queued' WHERE trace = $1", [traces[2]]);
    const [oldId] = (await db.query("SELECT id FROM outbox WHERE trace = $1", [traces[0]])).map((r) => Number(r.id));
    await db.query("INSERT INTO delivery_attempts (outbox_id, at, status_code, error, duration_ms) VALUES ($1, 0, 200, NULL, 1)", [oldId]);

    const first = await retentionBatch(db, now - 30 * DAY, Date.now() - 30 * DAY, 2);
    expect([first.verifications, first.deliveries]).toEqual([2, 2]); // one small batch each
    const rest = await sweep(db, { days: 30, now: () => now, pauseMs: 0 });
    expect([rest.verifications, rest.deliveries]).toEqual([1, 0]);

    const left = (await db.query("SELECT trace FROM verifications ORDER BY seq")).map((r) => r.trace);
    expect(left).toEqual(traces.slice(3));
    expect((await db.query("SELECT count(*) AS n FROM history WHERE trace = ANY($1::text[])", [traces.slice(0, 3)]))[0]!.n).toBe(0);
    expect((await db.query("SELECT trace, state FROM outbox ORDER BY id")).map((r) => [r.trace, r.state])).toEqual([
      [traces[2], "queued"],
      [traces[3], "no_receiver"],
      [traces[4], "no_receiver"],
    ]);
    expect(await db.query("SELECT * FROM delivery_attempts WHERE outbox_id = $1", [oldId])).toEqual([]);
  });
});

describe("retention's batch size", () => {
  // A store that records each delete's LIMIT (not the outbox's update before a verification's: store/shared-text.ts) and deletes nothing (so one pass ends the sweep).
  const recording = (exclusive: boolean, limits: unknown[]): Db => {
    const sql = {
      query: async <T extends Row>(text: string, params?: readonly unknown[]) => (/^DELETE [\s\S]*LIMIT \$2/.test(text) && limits.push(params?.[1]), [] as T[]),
    };
    return { kind: exclusive ? "pglite" : "postgres", exclusive, ...sql, transaction: (fn) => fn(sql), close: async () => {} };
  };

  it("is smaller on an exclusive store (PGlite: a request waits for the whole statement) than on a shared Postgres", async () => {
    const pglite: unknown[] = [];
    const postgres: unknown[] = [];
    await sweep(recording(true, pglite), { days: 30, now: Date.now, pauseMs: 0 });
    await sweep(recording(false, postgres), { days: 30, now: Date.now, pauseMs: 0 });
    expect(pglite).toEqual([EXCLUSIVE_RETENTION_BATCH, EXCLUSIVE_RETENTION_BATCH, EXCLUSIVE_RETENTION_BATCH]);
    expect(postgres).toEqual([RETENTION_BATCH, RETENTION_BATCH, RETENTION_BATCH]);
    expect(EXCLUSIVE_RETENTION_BATCH).toBeLessThan(RETENTION_BATCH);
  });
});
