// The dispatcher's claim (templates/sandbox/store/outbox.ts) beside a backlog: it walks queued rows by due
// time through migration 7's index and stops at the first row not yet due, so a dead receiver's rows
// waiting for a retry are never read; each candidate is the head of its (trace, receiver) queue; a retried
// head holds back its followers (their next_at), and a change queued behind a waiting head is not due
// before it. The figures (claim p99 at 100 / 10,000 / 100,000 queued) are bench/backlog.bench.ts's.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrate } from "../../templates/sandbox/store/migrations.js";
import { due, OUTBOX_INSERT, outboxBatch, recordOutcomes, selectDue } from "../../templates/sandbox/store/outbox.js";
import type { Db, Row } from "../../templates/sandbox/store/index.js";
import { Dispatcher } from "../../templates/sandbox/dispatcher.js";
import { updateVerification } from "../../templates/sandbox/store/verifications.js";
import { startReceiver, until } from "./helpers.js";
import { memoryDb, verificationRow } from "./inprocess.js";

let db: Db;
beforeAll(async () => {
  db = await memoryDb();
  await migrate(db);
}, 60_000);
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  await db.query("TRUNCATE outbox, delivery_attempts");
});

const NOW = 1_000_000;
/** Queued rows: `count` of trace prefix `trace` (one row each, or `perTrace` rows a trace), due at `nextAt`. */
async function queue(trace: string, count: number, nextAt: number, perTrace = 1): Promise<void> {
  await db.query(
    `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at)
     SELECT $1 || '-' || g, $1 || '-' || (g / $4), 'http://127.0.0.1:9/dead', 'v5', '2', '{}', 1, 'queued', 0, $2::bigint, $3::bigint FROM generate_series(0, $5::int - 1) g`,
    [trace, nextAt, NOW - 1, perTrace, count],
  );
}
const rows = async (trace: string): Promise<Row[]> => db.query("SELECT id, next_at, state FROM outbox WHERE trace = $1 ORDER BY id", [trace]);

describe("the claim beside a backlog", () => {
  it("takes the due heads, earliest due first, and never the rows waiting for a retry", async () => {
    await queue("dead", 2000, NOW + 60_000); // a dead receiver's rows, each retried a minute later
    await queue("due", 6, NOW - 10, 2); // three traces of two rows each: only the first of each is a head
    const claimed = await selectDue(db, NOW, 100, []);
    expect(claimed.map((r) => r.deliveryId)).toEqual(["due-0", "due-2", "due-4"]);
    expect(await selectDue(db, NOW, 2, [])).toHaveLength(2);
    expect((await selectDue(db, NOW, 100, [claimed[0]!.id])).map((r) => r.deliveryId)).toEqual(["due-2", "due-4"]);
  });

  it("is a range scan of the due index, with the head test a subplan (no anti join over the queued rows)", async () => {
    await queue("dead", 2000, NOW + 60_000);
    await queue("due", 10, NOW - 10);
    await db.query("ANALYZE outbox");
    const text = (await db.query(`EXPLAIN ${due(100, "")}`, [NOW])).map((r) => String(r["QUERY PLAN"])).join("\n");
    expect(text).toMatch(/Index Scan using outbox_due/);
    expect(text).not.toMatch(/Anti Join|Seq Scan on outbox/);
    expect(text).toMatch(/SubPlan|InitPlan/);
  });

  it("a retried head moves its followers' next_at to its retry time; a delivered one leaves them due", async () => {
    await queue("t", 3, NOW - 10, 3); // one trace "t-0" of three rows
    const [head, second, third] = await rows("t-0");
    await recordOutcomes(
      db,
      [{ id: Number(head!.id), at: NOW, statusCode: 500, error: "answered 500", durationMs: 1, tries: 1, state: "queued", nextAt: NOW + 5000 }],
      null,
    );
    expect((await rows("t-0")).map((r) => Number(r.next_at))).toEqual([NOW + 5000, NOW + 5000, NOW + 5000]);
    expect(await selectDue(db, NOW, 100, [])).toEqual([]);
    await recordOutcomes(
      db,
      [{ id: Number(head!.id), at: NOW + 5000, statusCode: 200, error: null, durationMs: 1, tries: 2, state: "delivered", nextAt: NOW + 5001 }],
      null,
    );
    expect((await rows("t-0")).map((r) => String(r.state))).toEqual(["delivered", "queued", "queued"]);
    expect((await selectDue(db, NOW + 5000, 100, [])).map((r) => Number(r.id))).toEqual([Number(second!.id)]);
    expect(Number(third!.id)).toBeGreaterThan(Number(second!.id));
  });

  it("a change's row queued behind a waiting head is not due before the head; a new trace's row is due now", async () => {
    await queue("t", 1, NOW + 30_000, 1); // "t-0" waits for a retry
    const insert = (behind: boolean, trace: string) =>
      db.query(OUTBOX_INSERT(1, behind), ["default", ...outboxBatch([[`w-${trace}-${behind}`, trace, "http://127.0.0.1:9/dead", "v5", "{}", 1]], "2", NOW)]);
    await insert(true, "t-0");
    await insert(true, "fresh");
    await insert(false, "other");
    expect((await rows("t-0")).map((r) => Number(r.next_at))).toEqual([NOW + 30_000, NOW + 30_000]);
    expect((await rows("fresh")).map((r) => Number(r.next_at))).toEqual([NOW]);
    expect((await selectDue(db, NOW, 100, [])).map((r) => r.deliveryId).sort()).toEqual(["w-fresh-true", "w-other-false"]);
  });

  it("a status change's webhook (updateVerification) is held behind its trace's waiting head as well", async () => {
    await queue("held", 1, NOW + 30_000, 1); // "held-0" waits for a retry
    const change = outboxBatch([["w-held", "held-0", "http://127.0.0.1:9/dead", "v5", "{}", 1]], "2", NOW);
    await updateVerification(db, "default", verificationRow("held-0", {}), "complete", change);
    expect((await rows("held-0")).map((r) => Number(r.next_at))).toEqual([NOW + 30_000, NOW + 30_000]);
  });
});

describe("an idle dispatcher on an exclusive store", () => {
  it("looks for due rows at most every idleMs while nothing is due, and goes at a queued row's due time without a wake", async () => {
    const rx = await startReceiver();
    const d = new Dispatcher({
      db,
      sign: () => ({}),
      deliveryIdHeader: "X-Id",
      mediaType: "application/json",
      timeoutMs: 5000,
      delaysMs: [],
      pollMs: 20,
      idleMs: 500,
    });
    let claims = 0;
    d.events.on("claimed", () => claims++);
    try {
      await d.start();
      await new Promise((r) => setTimeout(r, 1500));
      // Polling every 20 ms would be about 75 claims; idle, one every 500 ms (and the first at start).
      expect(claims).toBeGreaterThanOrEqual(2);
      expect(claims).toBeLessThanOrEqual(6);
      const url = rx.url;
      await db.query(
        `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, tries, next_at, created_at)
         VALUES ('idle-1', 'idle-t', $1, 'v5', '2', '{}', 1, 'queued', 0, $2::bigint, 1)`,
        [url, Date.now() + 200],
      );
      await until(async () => rx.deliveries.length === 1, "the queued row delivered at its due time", 5000);
      expect(rx.deliveries[0]!.headers["x-id"]).toBe("idle-1");
    } finally {
      await d.stop();
      await rx.close();
    }
  });
});
