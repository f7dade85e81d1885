// Delivers the outbox: finds due rows (store/outbox.ts: on a shared Postgres an atomic claim with a
// lease), signs each body with the webhook runtime's signWebhook, POSTs it, and records its answer as soon
// as it arrives. On an exclusive store (PGlite) a new verification's rows are handed over once committed
// and go out without a claim; the claim skips rows in flight, so no row goes out twice at once.
// Per verification and receiver, rows go out in order: a row waits while an earlier one of the same trace
// is still queued. A non-2xx answer or a timeout is retried after the next delay of the policy; the same
// body, timestamp and deliveryId. Several instances on one Postgres never deliver a row twice: the claim
// is one atomic UPDATE.
//
// Crashes (docs/engineering/delivery-soak.md): a row is in flight from its POST until its answer is
// committed, and at most `concurrency` rows are in flight. A row stays queued in the database until its
// answer is committed, so after kill -9 the rows in flight then are sent again (same deliveryId): at
// least once, and a duplicate only for a delivery in flight at the crash, at most `concurrency` per crash.
import type { SignatureVersion } from "../webhooks/index.js";
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Group } from "./store/group.js";
import type { Db } from "./store/index.js";
import { claimDue, earliestQueued, recordOutcomes, releaseLeases, selectDue, type Outcome, type QueuedRow } from "./store/outbox.js";

export type { QueuedRow } from "./store/outbox.js";
export { describeDeliveries, listDeliveries, resend, type DeliveryAttempt } from "./deliveries.js";

export interface DispatcherOptions {
  readonly db: Db;
  /** The signature headers of a body, with the signing secret of the tenant whose webhook it is. */
  readonly sign: (version: SignatureVersion, body: string, tenant: string) => Record<string, string>;
  readonly deliveryIdHeader: string;
  /** The Content-Type of a delivery: the spec's body media type (section 4, endpoints.yaml bodies). */
  readonly mediaType: string;
  readonly timeoutMs: number;
  readonly delaysMs: readonly number[];
  /** How often to look for due rows when nothing wakes the dispatcher. */
  readonly pollMs?: number;
  /**
   * On an exclusive store, idle (nothing claimed, nothing in flight): the longest wait before the next
   * look, shortened to when the earliest queued row is due (default IDLE_MS). Every row that becomes due
   * otherwise is written by this process, which wakes the dispatcher. Not above pollMs.
   */
  readonly idleMs?: number;
  /** Deliveries in flight at most (default DELIVERY_CONCURRENCY). */
  readonly concurrency?: number;
  readonly log?: (line: string) => void;
}

/**
 * Deliveries in flight at most: the bound on what one crash can send twice. 64 keeps a receiver on the
 * same machine busy (a delivery takes about a millisecond there) while the sandbox answers creates.
 */
export const DELIVERY_CONCURRENCY = 64;

/**
 * An idle exclusive store's longest wait between looks for due rows: a dead receiver's backlog costs no
 * claim every 200 ms while none of it is due (bench/backlog.bench.ts).
 */
export const IDLE_MS = 1000;

/** What the dispatcher reports as it works (tests wait on these instead of sleeping). */
export interface DispatcherEvents {
  /** A claim returned: how many rows it took. */
  claimed: [rows: number];
  /** Answers committed: the outbox ids. */
  recorded: [ids: readonly number[]];
}

/** Whether anything can still happen: a pass running, deliveries in flight, a pass scheduled. */
export interface DispatcherActivity {
  readonly passRunning: boolean;
  readonly inFlight: number;
  readonly passScheduled: boolean;
}

export class Dispatcher {
  readonly owner = randomUUID();
  readonly events = new EventEmitter<DispatcherEvents>();
  readonly concurrency: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true });
  /** Rows from their POST until their answer is committed, by id: neither path takes one the other holds. */
  private readonly inFlight = new Set<number>();
  /** The deliveries in flight, awaited by stop(). */
  private readonly deliveries = new Set<Promise<void>>();
  /** Claims finished so far: a hand-over that saw one finish while it was in flight runs another after it. */
  private claimsEnded = 0;
  /** The last claim found nothing and nothing was in flight. */
  private idle = false;
  /** Due rows were left for want of a free slot: each finished delivery runs a claim. */
  private backlog = false;
  /** Answers committed as they arrive; answers arriving while a commit runs share the next one. */
  private readonly recorder = new Group<Outcome, void>(async (outcomes) => {
    await recordOutcomes(this.options.db, outcomes, this.options.db.exclusive ? null : this.owner);
    this.events.emit(
      "recorded",
      outcomes.map((o) => o.id),
    );
    return outcomes.map(() => undefined);
  });

  constructor(private readonly options: DispatcherOptions) {
    this.concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
  }

  /** Starts polling. With an exclusive store (PGlite) leases of an earlier run are taken back first. */
  async start(): Promise<void> {
    if (this.options.db.exclusive) await releaseLeases(this.options.db);
    this.schedule(0);
  }

  /** Runs a pass soon (after a commit that queued rows). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  activity(): DispatcherActivity {
    return { passRunning: this.running !== undefined, inFlight: this.inFlight.size, passScheduled: this.timer !== undefined };
  }

  /**
   * Rows just committed, each the first of its trace and due now, delivered without a claim as far as
   * slots are free (the rest wait for a claim). Only on an exclusive store: on a shared Postgres another
   * instance may claim them, so they wait for a leased claim.
   */
  handOver(rows: readonly QueuedRow[]): void {
    if (!this.options.db.exclusive) return this.wake();
    if (this.stopped) return;
    const fresh = rows.filter((row) => !this.inFlight.has(row.id));
    const mine = fresh.slice(0, Math.max(0, this.concurrency - this.inFlight.size));
    if (mine.length < fresh.length) this.backlog = true;
    const seen = this.claimsEnded;
    for (const row of mine) this.launch(row, () => this.backlog || this.claimsEnded !== seen);
  }

  /**
   * Delivers one row and records its answer; the row leaves the in-flight set once recorded. Then, when
   * `wakeAfter()` says so, a claim runs: a slot is free, and a later row of the trace may be due now.
   */
  private launch(row: QueuedRow, wakeAfter: () => boolean): void {
    const { id } = row;
    this.inFlight.add(id);
    const job = (async () => {
      try {
        const outcome = await this.deliver(row);
        if (outcome) await this.recorder.add(outcome);
      } catch (err) {
        if (!this.stopped) this.options.log?.(`dispatcher: ${(err as Error).message}`);
      } finally {
        this.inFlight.delete(id);
      }
      if (wakeAfter()) this.wake();
    })();
    this.deliveries.add(job);
    void job.finally(() => this.deliveries.delete(job));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pass();
    }, ms);
    this.timer.unref?.();
  }

  /** Claims as many due rows as there are free slots, again while woken or while every slot was filled. */
  private async pass(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = (async () => {
      try {
        do {
          this.again = false;
          const free = this.concurrency - this.inFlight.size;
          if (free <= 0) {
            this.backlog = true; // each finished delivery runs the claim again
            break;
          }
          const claimed = await this.claim(free);
          this.claimsEnded++;
          this.idle = claimed.length === 0 && this.inFlight.size === 0;
          this.backlog = claimed.length >= free;
          this.events.emit("claimed", claimed.length);
          if (this.stopped) break; // a lease lapses; an exclusive store keeps the rows queued
          for (const row of claimed) if (!this.inFlight.has(row.id)) this.launch(row, () => true);
        } while (this.again && !this.stopped);
      } catch (err) {
        if (!this.stopped) this.options.log?.(`dispatcher: ${(err as Error).message}`);
      }
    })();
    await this.running;
    this.running = undefined;
    this.schedule(await this.nextLookMs());
  }

  /** When to look for due rows again: the poll interval, or on an idle exclusive store until the earliest queued row is due (at most idleMs). */
  private async nextLookMs(): Promise<number> {
    const poll = this.options.pollMs ?? 200;
    const longest = this.options.idleMs ?? IDLE_MS;
    if (!this.idle || !this.options.db.exclusive || this.stopped || poll >= longest) return poll;
    const earliest = await earliestQueued(this.options.db).catch(() => undefined);
    return Math.max(poll, Math.min(longest, earliest === undefined ? longest : earliest - Date.now()));
  }

  private claim(limit: number): Promise<QueuedRow[]> {
    const now = Date.now();
    if (this.options.db.exclusive) return selectDue(this.options.db, now, limit, [...this.inFlight]);
    return claimDue(this.options.db, now, limit, this.owner, now + this.options.timeoutMs * 2 + 1000);
  }

  /** POSTs one row; its answer, or undefined when the dispatcher is stopping (the lease lapses and the row stays queued). */
  private async deliver(row: QueuedRow): Promise<Outcome | undefined> {
    const { body } = row;
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      statusCode = await this.post(row.url, body, {
        "Content-Type": this.options.mediaType,
        ...this.options.sign(row.signatureVersion, body, row.tenant),
        [this.options.deliveryIdHeader]: row.deliveryId,
      });
      if (statusCode < 200 || statusCode > 299) error = `answered ${statusCode}`;
    } catch (err) {
      error = (err as Error).message;
    }
    if (this.stopped && statusCode === null) return undefined;
    const tries = row.tries + 1;
    const delay = error === null ? 0 : this.options.delaysMs[tries - 1];
    return {
      id: row.id,
      at: started,
      statusCode,
      error,
      durationMs: Date.now() - started,
      tries,
      state: error === null ? "delivered" : delay === undefined ? "failed" : "queued",
      nextAt: Date.now() + (delay ?? 0),
    };
  }

  /**
   * node:http with keep-alive agents rather than fetch: fetch costs about five times the CPU per request,
   * taken from the event loop that also answers the sandbox's callers. Redirects are not followed.
   */
  private post(url: string, body: string, headers: Record<string, string>): Promise<number> {
    const target = new URL(url);
    const secure = target.protocol === "https:";
    return new Promise((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(
        target,
        { method: "POST", agent: secure ? this.httpsAgent : this.httpAgent, headers: { ...headers, "Content-Length": Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.once("end", () => resolve(res.statusCode ?? 0));
          res.once("error", reject);
        },
      );
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
      req.once("close", () => clearTimeout(timer));
      req.once("error", (err: NodeJS.ErrnoException) => reject(new Error(err.code ?? err.message)));
      req.end(body);
    });
  }

  /**
   * The shutdown bound passed: the deliveries still in flight are cut (their sockets destroyed), so the
   * process can exit now rather than at the delivery timeout. Their rows stay queued and are sent again
   * after the restart, as after a crash (docs/sandbox-delivery.md states this bound).
   */
  abandon(): void {
    this.stopped = true;
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** Stops polling; waits for the current pass and the deliveries in flight (they finish or time out, and their answers are recorded). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    while (this.deliveries.size) await Promise.all(this.deliveries);
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
