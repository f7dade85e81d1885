// The dispatcher's wait between looks for due rows on an idle exclusive store (templates/sandbox/dispatcher.ts,
// nextLookMs): until the earliest queued row is due, at most idleMs, and no claim at every poll meanwhile.
// dispatcher.test.ts has delivery, retries, slots, leases and stopping.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Dispatcher } from "../../templates/sandbox/dispatcher.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { startReceiver, until, v5Individual } from "./helpers.js";
import { harness, memoryDb } from "./inprocess.js";

/** A database holding one queued webhook for `url`, due `dueInMs` from now. */
async function oneQueued(url: string, dueInMs: number): Promise<Db> {
  const db = await memoryDb();
  const quiet = await harness(db, { webhookUrls: [url], dispatch: false });
  await quiet.service.createV5(v5Individual("Idle Person") as unknown as Record<string, unknown>);
  await quiet.close();
  await db.query("UPDATE outbox SET next_at = $1 WHERE state = 'queued'", [Date.now() + dueInMs]);
  return db;
}

const dispatcher = (db: Db, idleMs: number, delaysMs: number[] = []) =>
  new Dispatcher({ db, sign: () => ({}), deliveryIdHeader: "X-Id", mediaType: "application/json", timeoutMs: 10_000, delaysMs, pollMs: 10, idleMs });

describe("an idle exclusive store", { timeout: 60_000 }, () => {
  it("a row due later is delivered when it is due, not at the longest wait, with no claim at every poll meanwhile", async () => {
    const rx = await startReceiver();
    const db = await oneQueued(rx.url, 1500);
    const d = dispatcher(db, 600_000);
    const claims: number[] = [];
    d.events.on("claimed", (n) => claims.push(n));
    try {
      await d.start();
      await until(() => rx.deliveries.length === 1, "the delivery when due");
      // The start's claim found nothing due; the next ones ran around the row's due time and after its delivery
      // (5 seen on a loaded machine); a claim at every 10 ms poll would be well over a hundred.
      expect(claims.length).toBeLessThanOrEqual(15);
      expect(claims).toContain(1);
    } finally {
      await d.stop();
      await db.close();
      await rx.close();
    }
  });

  it("with nothing queued it looks again after idleMs, not at every poll", async () => {
    const db = await memoryDb();
    const d = dispatcher(db, 500);
    const claims: number[] = [];
    d.events.on("claimed", (n) => claims.push(n));
    try {
      await d.start();
      await until(() => claims.length >= 3, "three looks");
      await new Promise((r) => setTimeout(r, 300));
      // 1.3 s and more at one look per 500 ms: a handful; at the 10 ms poll it would be over a hundred.
      expect(claims.length).toBeLessThanOrEqual(6);
      expect(claims.every((n) => n === 0)).toBe(true);
    } finally {
      await d.stop();
      await db.close();
    }
  });
});

describe("an answer cut mid-body", { timeout: 60_000 }, () => {
  it("is a failed attempt without a status code, retried as the policy says; the delivery does not hang", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "Content-Length": "100" });
      res.write("only part of it");
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const db = await oneQueued(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, 0);
    const d = dispatcher(db, 600_000, [600_000]);
    try {
      await d.start();
      const [attempt] = await until(async () => {
        const rows = await db.query("SELECT status_code, error FROM delivery_attempts");
        return rows.length > 0 && rows;
      }, "the attempt recorded");
      expect(attempt!.status_code).toBeNull();
      expect(typeof attempt!.error).toBe("string");
      expect(await db.query("SELECT state, tries FROM outbox")).toEqual([{ state: "queued", tries: 1 }]);
    } finally {
      await d.stop();
      await db.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
