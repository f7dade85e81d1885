// The sandbox's webhook delivery in-process (templates/sandbox/dispatcher.ts over a PGlite database in
// memory, receivers on 127.0.0.1): signed bodies and the deliveryId header, order per verification and
// receiver, the retry policy's delays, timeouts, failed rows, the manual re-send (same bytes, timestamp and
// deliveryId), leases, and the listing of the control API.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryReplayStore, verifyWebhook } from "../../generated/webhooks.js";
import { Dispatcher, listDeliveries, resend, type DispatcherOptions, type QueuedRow } from "../../templates/sandbox/dispatcher.js";
import { toQueuedRow } from "../../templates/sandbox/store/outbox.js";
import { DEFAULT_TENANT, type Db, type Row } from "../../templates/sandbox/store/index.js";
import { SIGNING_SECRET, startReceiver, until, v5Individual as typedV5 } from "./helpers.js";
import { binding, harness, memoryDb, outbox, useMemoryDb } from "./inprocess.js";

/** A valid v5 create body, as the service takes it. */
const v5Individual = (name: string, userId?: string) => typedV5(name, userId) as unknown as Record<string, unknown>;

let db: Db;
useMemoryDb((opened) => {
  db = opened;
});

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const receivers: Receiver[] = [];
async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const states = async (trace: string) => (await outbox(db, trace)).map((r) => String(r.state));

describe("delivery", () => {
  it("POSTs the stored bytes, signed, with the deliveryId header; records the attempt and the delivered state", async () => {
    const rx = await receiver();
    const h = await harness(db, { webhookUrls: [rx.url] });
    try {
      const { trace } = await h.service.createV5(v5Individual("Delivered Person", "delivered-user"));
      await until(async () => (await states(trace))[0] === "delivered", "delivered", 5000);
      const [row] = await outbox(db, trace);
      const [d] = rx.deliveries;
      expect(rx.deliveries).toHaveLength(1);
      expect(d!.body).toBe(String(row!.body));
      expect(d!.headers["content-type"]).toBe("application/json");
      expect(d!.headers["content-length"]).toBe(String(Buffer.byteLength(d!.body)));
      expect(d!.headers["x-svc-delivery-id"]).toBe(String(row!.delivery_id));
      const verified = await verifyWebhook({ rawBody: d!.body, headers: d!.headers, secret: SIGNING_SECRET, replayStore: new MemoryReplayStore() });
      expect(verified.version).toBe("2");
      expect(verified.payload).toMatchObject({ trace, verificationStatus: "pending" });
      const [listed] = await listDeliveries(db, DEFAULT_TENANT, trace);
      expect(listed).toMatchObject({
        deliveryId: String(row!.delivery_id),
        trace,
        url: rx.url,
        format: "v5",
        signatureVersion: "2",
        timestamp: Number(row!.timestamp),
        state: "delivered",
        tries: 1,
        lastStatus: 200,
        lastError: null,
        resend: false,
        payload: JSON.parse(d!.body),
      });
      expect(listed!.deliveredAt).toBeGreaterThanOrEqual(d!.at);
      // Delivered now, not a retry delay ahead (the harness's policy is [60_000]).
      expect(listed!.deliveredAt).toBeLessThanOrEqual(Date.now());
      expect(listed!.createdAt).toBeLessThanOrEqual(d!.at);
      expect(listed!.attempts).toHaveLength(1);
      expect(listed!.attempts).toEqual([{ at: expect.any(Number), statusCode: 200, error: null, durationMs: expect.any(Number) }]);
      expect((listed!.attempts as { at: number }[])[0]!.at).toBeLessThanOrEqual(d!.at);
      expect(Object.keys(listed!)).toEqual([
        "deliveryId",
        "trace",
        "url",
        "format",
        "signatureVersion",
        "timestamp",
        "state",
        "tries",
        "lastStatus",
        "lastError",
        "resend",
        "createdAt",
        "deliveredAt",
        "payload",
        "attempts",
      ]);
      expect(h.logs).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it("signature version 1 when the service is told so; every 2xx is delivered, 300 is not", async () => {
    const answers = new Map<string, number>();
    const rx = await receiver((d) => answers.get(JSON.parse(d.body).name as string) ?? 200);
    const h = await harness(db, { webhookUrls: [rx.url], signatureVersion: "1", retryDelaysMs: [] });
    try {
      const results: Record<number, string> = {};
      for (const code of [204, 299, 300]) {
        answers.set(`Code ${code}`, code);
        const { trace } = await h.service.createV5(v5Individual(`Code ${code}`));
        results[code] = trace;
      }
      await until(async () => (await Promise.all(Object.values(results).map(states))).every(([s]) => s !== "queued"), "all answered", 5000);
      expect(await Promise.all([204, 299, 300].map(async (c) => (await states(results[c]!))[0]))).toEqual(["delivered", "delivered", "failed"]);
      const [failed] = await listDeliveries(db, DEFAULT_TENANT, results[300]!);
      expect(failed).toMatchObject({ state: "failed", tries: 1, lastStatus: 300, lastError: "answered 300" });
      const d = rx.deliveries.find((x) => JSON.parse(x.body).trace === results[204])!;
      const verified = await verifyWebhook({ rawBody: d.body, headers: d.headers, secret: SIGNING_SECRET, replayStore: new MemoryReplayStore() });
      expect(verified.version).toBe("1");
    } finally {
      await h.close();
    }
  });

  it("keeps each verification's webhooks in order per receiver: a later one waits while an earlier one is retried", async () => {
    let failFirst = true;
    const rx = await receiver((d) => {
      if (failFirst && JSON.parse(d.body).verificationStatus === "pending") {
        failFirst = false;
        return 500;
      }
      return 200;
    });
    const other = await receiver();
    const h = await harness(db, { webhookUrls: [rx.url, other.url], retryDelaysMs: [150] });
    try {
      const { trace } = await h.service.createV5(v5Individual("Ordered Person"));
      await h.service.applyStatus(trace, "verified", {});
      await until(async () => (await states(trace)).every((s) => s === "delivered"), "all delivered", 5000);
      const seen = (r: Receiver) =>
        r.deliveries
          .map((d) => JSON.parse(d.body) as { trace: string; verificationStatus: string })
          .filter((p) => p.trace === trace)
          .map((p) => p.verificationStatus);
      expect(seen(rx)).toEqual(["pending", "pending", "verified"]);
      expect(seen(other)).toEqual(["pending", "verified"]);
      const listed = await listDeliveries(db, DEFAULT_TENANT, trace);
      const first = listed.find((d) => d.url === rx.url && (d.payload as { verificationStatus: string }).verificationStatus === "pending")!;
      expect(first).toMatchObject({ tries: 2, lastStatus: 200, lastError: null });
      const [a, b] = first.attempts as { at: number; statusCode: number; error: string | null; durationMs: number }[];
      expect([a!.statusCode, a!.error, b!.statusCode]).toEqual([500, "answered 500", 200]);
      // The retry waited the policy's delay after the first answer.
      expect(b!.at).toBeGreaterThanOrEqual(a!.at + a!.durationMs + 150);
    } finally {
      await h.close();
    }
  });

  it("schedules each retry after the next delay of the policy, then marks the row failed", async () => {
    const rx = await receiver(() => 503);
    const h = await harness(db, { webhookUrls: [rx.url], retryDelaysMs: [60_000, 120_000] });
    try {
      const { trace } = await h.service.createV5(v5Individual("Retried Person"));
      await until(async () => Number((await outbox(db, trace))[0]!.tries) === 1, "first attempt", 5000);
      const checkNext = async (delay: number) => {
        const [row] = await outbox(db, trace);
        const [attempt] = await db.query("SELECT * FROM delivery_attempts WHERE outbox_id = $1 ORDER BY id DESC LIMIT 1", [row!.id]);
        expect(row!.state).toBe("queued");
        expect(Number(row!.next_at)).toBeGreaterThanOrEqual(Number(attempt!.at) + Number(attempt!.duration_ms) + delay);
        expect(Number(row!.next_at)).toBeLessThanOrEqual(Date.now() + delay);
        expect([row!.last_status, row!.last_error, row!.lease_owner]).toEqual([503, "answered 503", null]);
      };
      await checkNext(60_000);
      // Make the row due now: the second attempt is scheduled after the second delay.
      await db.query("UPDATE outbox SET next_at = 0 WHERE trace = $1", [trace]);
      h.dispatcher.wake();
      await until(async () => Number((await outbox(db, trace))[0]!.tries) === 2, "second attempt", 5000);
      await checkNext(120_000);
      const nextAt = Number((await outbox(db, trace))[0]!.next_at);
      await db.query("UPDATE outbox SET next_at = 0 WHERE trace = $1", [trace]);
      h.dispatcher.wake();
      await until(async () => (await states(trace))[0] === "failed", "failed", 5000);
      const [row] = await outbox(db, trace);
      expect([Number(row!.tries), row!.delivered_at, Number(row!.next_at)]).toEqual([3, null, 0]);
      expect(nextAt).toBeGreaterThan(0);
      expect(rx.deliveries.filter((d) => JSON.parse(d.body).trace === trace)).toHaveLength(3);
    } finally {
      await h.close();
    }
  });

  it("a receiver that does not answer in time, or a refused connection, is an error of that wording", async () => {
    const rx = await receiver((d) => (JSON.parse(d.body).name === "Hang" ? "hang" : 200));
    const closed = await receiver();
    await closed.close();
    // An https:// receiver is reached over TLS: refused like any other, not "protocol not supported".
    const closedTls = closed.url.replace("http:", "https:");
    const h = await harness(db, { webhookUrls: [rx.url, closed.url, closedTls], deliveryTimeoutMs: 300, retryDelaysMs: [] });
    try {
      const { trace } = await h.service.createV5(v5Individual("Hang"));
      await until(async () => (await states(trace)).every((s) => s === "failed"), "all failed", 5000);
      const listed = await listDeliveries(db, DEFAULT_TENANT, trace);
      expect(listed.map((d) => [d.url, d.lastStatus, d.lastError])).toEqual([
        [rx.url, null, "no answer within 300 ms"],
        [closed.url, null, "ECONNREFUSED"],
        [closedTls, null, "ECONNREFUSED"],
      ]);
      const [attempt] = listed[0]!.attempts as { statusCode: number | null; durationMs: number }[];
      expect(attempt!.durationMs).toBeGreaterThanOrEqual(290);
      expect(attempt!.statusCode).toBeNull();
    } finally {
      await h.close();
    }
  });

  it("the manual re-send: new rows with the same bytes, timestamp and deliveryId; -1 unknown, 0 without a receiver", async () => {
    const rx = await receiver();
    const h = await harness(db, { webhookUrls: [rx.url] });
    try {
      const { trace } = await h.service.createV5(v5Individual("Resent Person"));
      await until(async () => (await states(trace))[0] === "delivered", "delivered", 5000);
      const [original] = await outbox(db, trace);
      const id = String(original!.delivery_id);
      expect(await resend(db, DEFAULT_TENANT, id)).toBe(1);
      h.dispatcher.wake();
      await until(async () => (await states(trace)).every((s) => s === "delivered"), "re-sent", 5000);
      const rows = await outbox(db, trace);
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatchObject({ delivery_id: id, body: original!.body, url: rx.url, format: "v5", signature_version: "2", resend_of: original!.id });
      expect(Number(rows[1]!.timestamp)).toBe(Number(original!.timestamp));
      const sent = rx.deliveries.filter((d) => JSON.parse(d.body).trace === trace);
      expect(sent.map((d) => d.body)).toEqual([String(original!.body), String(original!.body)]);
      expect(sent.map((d) => d.headers["x-svc-delivery-id"])).toEqual([id, id]);
      expect((await listDeliveries(db, DEFAULT_TENANT, trace)).map((d) => d.resend)).toEqual([false, true]);
      // A re-send copies the originals only, never an earlier re-send.
      expect(await resend(db, DEFAULT_TENANT, id)).toBe(1);
      expect(await outbox(db, trace)).toHaveLength(3);
      expect(await resend(db, DEFAULT_TENANT, "no-such")).toBe(-1);
      const quiet = await harness(db, { dispatch: false });
      try {
        const none = await quiet.service.createV5(v5Individual("No Receiver"));
        expect(await resend(db, DEFAULT_TENANT, String((await outbox(db, none.trace))[0]!.delivery_id))).toBe(0);
      } finally {
        await quiet.close();
      }
    } finally {
      await h.close();
    }
  });
});

describe("recording answers", () => {
  it("records each answer as soon as it arrives, while another delivery of the same claim is still unanswered", async () => {
    let hung = 0;
    const rx = await startReceiver((d) => (JSON.parse(d.body).name === "Unanswered Person" ? (hung++, "hang") : 200));
    const quiet = await harness(db, { webhookUrls: [rx.url], dispatch: false });
    const slow = await quiet.service.createV5(v5Individual("Unanswered Person"));
    const quick = await quiet.service.createV5(v5Individual("Answered Person"));
    await quiet.close();
    const d = new Dispatcher({ db, sign: () => ({}), deliveryIdHeader: "X-Id", mediaType: "application/json", timeoutMs: 60_000, delaysMs: [] });
    const recorded: number[] = [];
    d.events.on("recorded", (ids) => recorded.push(...ids));
    await d.start();
    try {
      // One claim took both rows; the answered one is committed without waiting for the other's answer.
      await until(async () => (await states(quick.trace))[0] === "delivered", "the answered delivery recorded", 5000);
      const [quickRow] = await outbox(db, quick.trace);
      const [slowRow] = await outbox(db, slow.trace);
      expect(recorded).toContain(Number(quickRow!.id));
      expect(recorded).not.toContain(Number(slowRow!.id));
      expect(hung).toBe(1);
      expect([slowRow!.state, Number(slowRow!.tries)]).toEqual(["queued", 0]);
      expect(d.activity().inFlight).toBe(1);
    } finally {
      await rx.close(); // the unanswered request fails, so stop() does not wait for the timeout
      await d.stop();
    }
    expect(d.activity()).toEqual({ passRunning: false, inFlight: 0, passScheduled: false });
  });
});

describe("the dispatcher's lifecycle", () => {
  it("with an exclusive store, start takes back an earlier run's leases; after stop nothing is delivered", async () => {
    const rx = await receiver();
    const quiet = await harness(db, { webhookUrls: [rx.url], dispatch: false });
    const { trace } = await quiet.service.createV5(v5Individual("Leased Person"));
    await db.query("UPDATE outbox SET lease_owner = 'earlier', lease_until = $2 WHERE trace = $1", [trace, Date.now() + 3_600_000]);
    await quiet.close();
    const stopped = new Dispatcher({ db, sign: () => ({}), deliveryIdHeader: "X-Id", mediaType: "application/json", timeoutMs: 1000, delaysMs: [] });
    await stopped.stop();
    stopped.wake();
    expect(stopped.activity()).toEqual({ passRunning: false, inFlight: 0, passScheduled: false });
    const d = new Dispatcher({
      db,
      sign: (v, body) => binding.signWebhook({ version: v, rawBody: body, secret: SIGNING_SECRET }),
      deliveryIdHeader: "X-Other-Id",
      mediaType: "application/json",
      timeoutMs: 1000,
      delaysMs: [],
    });
    expect(d.owner).toMatch(/^[0-9a-f-]{36}$/);
    await d.start();
    try {
      await until(async () => (await states(trace))[0] === "delivered", "delivered after the lease was taken back", 5000);
      const [row] = await outbox(db, trace);
      expect([row!.lease_owner, row!.lease_until]).toEqual([null, null]);
      const got = rx.deliveries.find((x) => JSON.parse(x.body).trace === trace)!;
      expect(got.headers["x-other-id"]).toBe(String(row!.delivery_id));
    } finally {
      await d.stop();
    }
    const after = await harness(db, { webhookUrls: [rx.url], dispatch: false });
    try {
      const late = await after.service.createV5(v5Individual("After Stop"));
      d.wake();
      d.handOver((await outbox(db, late.trace)).map(toQueuedRow));
      // Stopped: no pass running or scheduled and nothing in flight, so nothing can be delivered later.
      expect(d.activity()).toEqual({ passRunning: false, inFlight: 0, passScheduled: false });
      expect(await states(late.trace)).toEqual(["queued"]);
    } finally {
      await after.close();
    }
  });

  it("on a shared store the claim takes a lease (one atomic UPDATE) and the answer clears it", async () => {
    const rx = await receiver();
    const shared: Db = { ...db, exclusive: false, query: db.query, transaction: db.transaction, close: db.close, kind: "postgres" };
    const quiet = await harness(db, { webhookUrls: [rx.url], dispatch: false });
    const { trace } = await quiet.service.createV5(v5Individual("Shared Person"));
    await quiet.close();
    // A lease held by another instance is left alone until it lapses.
    const until1 = Date.now() + 3_600_000;
    await db.query("UPDATE outbox SET lease_owner = 'other', lease_until = $2 WHERE trace = $1", [trace, until1]);
    const d = new Dispatcher({
      db: shared,
      sign: () => ({}),
      deliveryIdHeader: "X-Id",
      mediaType: "application/json",
      timeoutMs: 1000,
      delaysMs: [],
      pollMs: 20,
    });
    const firstClaim = once(d.events, "claimed");
    await d.start();
    try {
      await firstClaim; // a claim ran after the lease was written, and left the row alone
      const [held] = await outbox(db, trace);
      expect([held!.state, held!.lease_owner, Number(held!.lease_until)]).toEqual(["queued", "other", until1]);
      await db.query("UPDATE outbox SET lease_until = $2 WHERE trace = $1", [trace, Date.now() - 1]);
      d.wake();
      await until(async () => (await states(trace))[0] === "delivered", "delivered once the lease lapsed", 5000);
      const [row] = await outbox(db, trace);
      expect([row!.lease_owner, row!.lease_until]).toEqual([null, null]);
    } finally {
      await d.stop();
    }
  });

  it("a failing pass is logged and the dispatcher keeps polling", async () => {
    const logs: string[] = [];
    let calls = 0;
    const broken = {
      kind: "postgres",
      exclusive: false,
      close: async () => {},
      transaction: async () => {
        throw new Error("unused");
      },
      query: async () => {
        calls++;
        throw new Error("database gone");
      },
    } as unknown as Db;
    const d = new Dispatcher({
      db: broken,
      sign: () => ({}),
      deliveryIdHeader: "X-Id",
      mediaType: "application/json",
      timeoutMs: 1000,
      delaysMs: [],
      pollMs: 10,
      log: (l) => logs.push(l),
    });
    await d.start();
    await until(() => calls >= 2, "a second pass", 5000);
    await d.stop();
    expect(logs[0]).toBe("dispatcher: database gone");
    expect(logs.every((l) => l === "dispatcher: database gone")).toBe(true);
  });
});

/** A receiver that holds every answer until released: what it saw (method, X-Id), the most requests open at once, the connections opened. */
async function gatedReceiver() {
  const held: Array<() => void> = [];
  const seen: { method: string; id: string }[] = [];
  const stats = { open: 0, maxOpen: 0, connections: 0, released: false };
  const server = createServer((req, res) => {
    stats.maxOpen = Math.max(stats.maxOpen, ++stats.open);
    seen.push({ method: String(req.method), id: String(req.headers["x-id"]) });
    req.resume();
    req.on("end", () => {
      const answer = () => {
        stats.open--;
        res.writeHead(200).end();
      };
      if (stats.released) answer();
      else held.push(answer);
    });
  });
  server.on("connection", () => stats.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    seen,
    stats,
    release() {
      stats.released = true;
      for (const answer of held.splice(0)) answer();
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** A database of its own with `n` queued rows for `url` (one verification each), oldest first. */
async function queued(n: number, url: string): Promise<{ db: Db; rows: QueuedRow[] }> {
  const own = await memoryDb();
  const quiet = await harness(own, { webhookUrls: [url], dispatch: false });
  for (let i = 0; i < n; i++) await quiet.service.createV5(v5Individual(`Queued Person ${i}`));
  await quiet.close();
  return { db: own, rows: (await own.query("SELECT * FROM outbox WHERE state = 'queued' ORDER BY id")).map(toQueuedRow) };
}

/** A store whose queries wait for `answer(rows | error)`, one at a time: a claim held open while the test acts. */
function heldStore() {
  const pending: Array<(r: Row[] | Error) => void> = [];
  const db = {
    kind: "postgres",
    exclusive: false,
    close: async () => {},
    transaction: async () => {
      throw new Error("unused");
    },
    query: () => new Promise<Row[]>((resolve, reject) => pending.push((r) => (r instanceof Error ? reject(r) : resolve(r)))),
  } as unknown as Db;
  return { db, pending, answer: (r: Row[] | Error) => pending.shift()!(r) };
}

/** A dispatcher whose poll is ten minutes away, so only hand-overs and wakes move it; `o` overrides. */
const calmDispatcher = (db: Db, o: Partial<DispatcherOptions> = {}) =>
  new Dispatcher({ db, sign: () => ({}), deliveryIdHeader: "X-Id", mediaType: "application/json", timeoutMs: 10_000, delaysMs: [], pollMs: 600_000, ...o });

/** An outbox row as a claim returns it, for stores that hold none. */
const claimedRow = (url: string, deliveryId: string): QueuedRow => ({
  id: 1,
  tenant: DEFAULT_TENANT,
  deliveryId,
  url,
  body: "{}",
  signatureVersion: "2",
  tries: 0,
});

describe("slots, leases and stopping", () => {
  it("at most `concurrency` deliveries at once, over kept-alive connections: a hand-over beyond the free slots leaves the rest to claims that run as each slot frees, not at the next poll", async () => {
    const rx = await gatedReceiver();
    const { db: own, rows } = await queued(5, rx.url);
    const d = calmDispatcher(own, { concurrency: 2 });
    try {
      // One slot taken, then four rows handed over: one more goes out, three wait.
      d.handOver(rows.slice(0, 1));
      await until(() => rx.seen.length === 1, "the first delivery open");
      d.handOver(rows.slice(1));
      await until(() => rx.seen.length >= 2, "two deliveries open");
      expect(d.activity()).toEqual({ passRunning: false, inFlight: 2, passScheduled: false });
      rx.release();
      await until(
        async () => (await own.query("SELECT 1 FROM outbox WHERE state = 'delivered'")).length === 5,
        "all five delivered (the poll is 10 minutes away)",
        10_000,
      );
      expect(rx.stats.maxOpen).toBe(2);
      expect(rx.seen.map((s) => s.method)).toEqual(["POST", "POST", "POST", "POST", "POST"]);
      expect(new Set(rx.seen.map((s) => s.id)).size).toBe(5);
      expect(rx.stats.connections).toBeLessThan(5);
    } finally {
      await d.stop();
      await rx.close();
      await own.close();
    }
  });

  it("a hand-over within the free slots runs no claim after its deliveries", async () => {
    const rx = await gatedReceiver();
    rx.release();
    const { db: own, rows } = await queued(1, rx.url);
    const d = calmDispatcher(own, { concurrency: 2 });
    try {
      d.handOver(rows);
      await until(() => d.activity().inFlight === 0 && rx.seen.length === 1, "delivered and recorded");
      // The wake after a delivery is decided with the slot freed: nothing is scheduled or running.
      expect(d.activity()).toEqual({ passRunning: false, inFlight: 0, passScheduled: false });
    } finally {
      await d.stop();
      await rx.close();
      await own.close();
    }
  });

  it("on a shared store a claim leases its rows for twice the delivery timeout plus a second", async () => {
    const rx = await gatedReceiver();
    const { db: own } = await queued(1, rx.url);
    const shared: Db = { ...own, exclusive: false, query: own.query, transaction: own.transaction, close: own.close, kind: "postgres" };
    const d = calmDispatcher(shared, { timeoutMs: 5000 });
    try {
      const before = Date.now();
      await d.start();
      await until(() => rx.seen.length === 1, "the delivery open");
      const after = Date.now();
      const [row] = await own.query("SELECT lease_owner, lease_until FROM outbox");
      expect(row!.lease_owner).toBe(d.owner);
      expect(Number(row!.lease_until)).toBeGreaterThanOrEqual(before + 11_000);
      expect(Number(row!.lease_until)).toBeLessThanOrEqual(after + 11_000);
      rx.release();
    } finally {
      await d.stop();
      await rx.close();
      await own.close();
    }
  });

  it("stop() waits for the deliveries in flight: an answer is recorded; one that never comes leaves the row queued, untried", async () => {
    const answered = await gatedReceiver();
    const silent = await gatedReceiver();
    const a = await queued(1, answered.url);
    const s = await queued(1, silent.url);
    const dA = calmDispatcher(a.db, { delaysMs: [60_000] });
    const dS = calmDispatcher(s.db, { timeoutMs: 300, delaysMs: [60_000] });
    try {
      dA.handOver(a.rows);
      dS.handOver(s.rows);
      await until(() => answered.seen.length === 1 && silent.seen.length === 1, "both open");
      const stopping = dA.stop();
      answered.release();
      await Promise.all([stopping, dS.stop()]);
      expect((await a.db.query("SELECT state, tries, last_status FROM outbox"))[0]).toEqual({ state: "delivered", tries: 1, last_status: 200 });
      expect((await s.db.query("SELECT state, tries, last_error FROM outbox"))[0]).toEqual({ state: "queued", tries: 0, last_error: null });
      expect(await s.db.query("SELECT * FROM delivery_attempts")).toEqual([]);
    } finally {
      await Promise.all([answered.close(), silent.close(), a.db.close(), s.db.close()]);
    }
  });

  it("a wake during a pass runs the claim again at once; the activity says what runs", async () => {
    const store = heldStore();
    const d = calmDispatcher(store.db, { timeoutMs: 1000 });
    await d.start();
    expect(d.activity()).toEqual({ passRunning: false, inFlight: 0, passScheduled: true });
    await until(() => store.pending.length === 1, "the first claim open");
    expect(d.activity()).toEqual({ passRunning: true, inFlight: 0, passScheduled: false });
    d.wake();
    store.answer([]);
    await until(() => store.pending.length === 1, "a second claim, without waiting for the poll");
    store.answer([]);
    await until(() => !d.activity().passRunning, "the pass over");
    expect(d.activity()).toEqual({ passRunning: false, inFlight: 0, passScheduled: true });
    await d.stop();
  });

  it("rows a claim returns after stop() are not delivered, and its failure then is not logged", async () => {
    const rx = await gatedReceiver();
    rx.release();
    const logs: string[] = [];
    const row = claimedRow(rx.url, "late");
    for (const outcome of [[row], new Error("database gone")] as (Row[] | Error)[]) {
      const store = heldStore();
      const d = calmDispatcher(store.db, { timeoutMs: 1000, log: (l) => logs.push(l) });
      await d.start();
      await until(() => store.pending.length === 1, "a claim open");
      const stopping = d.stop();
      store.answer(outcome);
      await stopping;
    }
    expect(rx.seen).toEqual([]);
    expect(logs).toEqual([]);
    await rx.close();
  });

  it("an answer that cannot be recorded is logged; a failing pass without `log` keeps polling", async () => {
    const rx = await gatedReceiver();
    rx.release();
    const logs: string[] = [];
    const gone = {
      kind: "pglite",
      exclusive: true,
      close: async () => {},
      query: async () => {
        throw new Error("database gone");
      },
    } as unknown as Db;
    const d = calmDispatcher(gone, { timeoutMs: 1000, log: (l) => logs.push(l) });
    d.handOver([claimedRow(rx.url, "unrecorded")]);
    await until(() => logs.length === 1, "the failure logged");
    expect(logs).toEqual(["dispatcher: database gone"]);
    expect(rx.seen).toEqual([{ method: "POST", id: "unrecorded" }]);
    await d.stop();
    await rx.close();
    let calls = 0;
    const broken = {
      kind: "postgres",
      exclusive: false,
      close: async () => {},
      query: async () => {
        calls++;
        throw new Error("database gone");
      },
    } as unknown as Db;
    const quiet = new Dispatcher({
      db: broken,
      sign: () => ({}),
      deliveryIdHeader: "X-Id",
      mediaType: "application/json",
      timeoutMs: 1000,
      delaysMs: [],
      pollMs: 5,
    });
    await quiet.start();
    await until(() => calls >= 3, "a third pass");
    await quiet.stop();
  });
});

describe("listDeliveries", () => {
  it("lists every trace newest first, with each row's own attempts", async () => {
    const quiet = await harness(db, { dispatch: false });
    try {
      const a = await quiet.service.createV5(v5Individual("List One"));
      const b = await quiet.service.createV5(v5Individual("List Two"));
      const all = await listDeliveries(db, DEFAULT_TENANT);
      expect(all.slice(0, 2).map((d) => d.trace)).toEqual([b.trace, a.trace]);
      expect(all[0]).toMatchObject({ url: null, state: "no_receiver", tries: 0, lastStatus: null, lastError: null, deliveredAt: null, attempts: [] });
      expect(await listDeliveries(db, DEFAULT_TENANT, "no-such-trace")).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
