// The dispatcher's hand-over (rows of new verifications sent without a claim) racing its own claims on
// the embedded store: every row goes out exactly once and is recorded delivered, a later row of a
// handed-over trace waits for it and still goes out, and neither path puts more than the dispatcher's
// concurrency in flight. Runs the store and the dispatcher in this process.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dispatcher, type QueuedRow } from "../../templates/sandbox/dispatcher.js";
import { toQueuedRow } from "../../templates/sandbox/store/outbox.js";
import { openStore, type Db } from "../../templates/sandbox/store/index.js";
import { until } from "./helpers.js";

let db: Db;
let receiver: Server;
let url: string;
const received: string[] = [];
/** Bodies the receiver answers only after 300 ms. */
const slow = new Set<string>();

beforeAll(async () => {
  db = await openStore("memory", process.cwd());
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push(body);
      setTimeout(() => res.writeHead(200).end(), slow.has(body) ? 300 : 0);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 60_000);

afterAll(async () => {
  await db?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Queues one outbox row per body (trace = body) and returns them as a hand-over carries them. */
async function queue(bodies: readonly string[]): Promise<QueuedRow[]> {
  const now = Date.now();
  const rows = await db.query(
    `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, next_at, created_at)
     SELECT b, split_part(b, '#', 1), $2, 'v5', '2', b, $3, 'queued', $3, $3 FROM unnest($1::text[]) AS b
     RETURNING id, tenant, delivery_id, url, body, signature_version, tries`,
    [bodies, url, now],
  );
  return rows.map(toQueuedRow);
}

describe("dispatcher hand-over on the embedded store", () => {
  it("hands rows over while claims run: each delivered once, all recorded delivered", async () => {
    const dispatcher = new Dispatcher({
      db,
      sign: () => ({ "X-Test": "1" }),
      deliveryIdHeader: "X-Delivery",
      mediaType: "application/json",
      timeoutMs: 5000,
      delaysMs: [10],
      pollMs: 5,
    });
    await dispatcher.start();
    const bodies: string[] = [];
    for (let round = 0; round < 20; round++) {
      const batch = Array.from({ length: 10 }, (_, i) => `r${round}-${i}`);
      bodies.push(...batch);
      const rows = await queue(batch);
      // The claim may already see these rows: both paths race for them.
      dispatcher.wake();
      dispatcher.handOver(rows);
      dispatcher.handOver(rows.slice(0, 3));
    }
    const delivered = async () => (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE state = 'delivered'"))[0]!.n;
    await until(async () => (await delivered()) === bodies.length, "every row recorded delivered", 20_000);
    // stop() waits for every delivery in flight: whatever was sent is in `received` now.
    await dispatcher.stop();
    expect([...received].sort()).toEqual([...bodies].sort());
    const states = await db.query<{ state: string; n: number }>("SELECT state, count(*)::int AS n FROM outbox GROUP BY state");
    expect(states).toEqual([{ state: "delivered", n: bodies.length }]);
    const attempts = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM delivery_attempts");
    expect(attempts[0]!.n).toBe(bodies.length);
  }, 60_000);

  it("a later row of a trace whose first row is handed over goes out after it", async () => {
    received.length = 0;
    const dispatcher = new Dispatcher({
      db,
      sign: () => ({}),
      deliveryIdHeader: "X-Delivery",
      mediaType: "application/json",
      timeoutMs: 5000,
      delaysMs: [10],
      pollMs: 60_000,
    });
    const firstClaim = once(dispatcher.events, "claimed");
    await dispatcher.start();
    await firstClaim;
    await until(() => !dispatcher.activity().passRunning, "the start's pass over (the next poll is a minute away)");
    slow.add("t9#1");
    const [first] = await queue(["t9#1"]);
    await queue(["t9#2"]);
    dispatcher.handOver([first!]);
    // A claim while the hand-over is in flight (its receiver answers after 300 ms) finds the later row
    // blocked behind it, and is run again once the hand-over is recorded (the poll is a minute away).
    dispatcher.wake();
    await until(() => received.length === 2, "the later row", 10_000);
    expect(received).toEqual(["t9#1", "t9#2"]);
    await dispatcher.stop();
  }, 30_000);

  it("never has more deliveries in flight than its concurrency: a hand-over beyond the free slots waits for a claim", async () => {
    const held: (() => void)[] = [];
    let open = 0;
    let most = 0;
    const holding = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        most = Math.max(most, ++open);
        held.push(() => {
          open--;
          res.writeHead(200).end();
        });
      });
    });
    await new Promise<void>((resolve) => holding.listen(0, "127.0.0.1", resolve));
    const target = `http://127.0.0.1:${(holding.address() as AddressInfo).port}/hook`;
    const dispatcher = new Dispatcher({
      db,
      sign: () => ({}),
      deliveryIdHeader: "X-Delivery",
      mediaType: "application/json",
      timeoutMs: 30_000,
      delaysMs: [],
      pollMs: 60_000,
      concurrency: 3,
    });
    const firstClaim = once(dispatcher.events, "claimed");
    await dispatcher.start();
    await firstClaim;
    try {
      const now = Date.now();
      const inserted = await db.query(
        `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, next_at, created_at)
         SELECT 'c' || i, 'c' || i, $1, 'v5', '2', '{}', $2, 'queued', $2, $2 FROM generate_series(1, 8) AS i
         RETURNING id, tenant, delivery_id, url, body, signature_version, tries`,
        [target, now],
      );
      const rows = inserted.map(toQueuedRow);
      dispatcher.handOver(rows);
      expect(dispatcher.activity().inFlight).toBe(3);
      // Answer one held delivery at a time: each frees a slot, and a claim fills it with a waiting row.
      for (let answered = 0; answered < rows.length; answered++) {
        await until(() => held.length > answered && open === Math.min(3, rows.length - answered), `${Math.min(3, rows.length - answered)} held`);
        held[answered]!();
      }
      await until(async () => (await db.query("SELECT 1 FROM outbox WHERE delivery_id LIKE 'c%' AND state = 'queued'")).length === 0, "all recorded");
      expect(held).toHaveLength(rows.length);
      expect(most).toBe(3);
    } finally {
      await dispatcher.stop();
      holding.closeAllConnections();
      await new Promise((resolve) => holding.close(resolve));
    }
  }, 30_000);
});
