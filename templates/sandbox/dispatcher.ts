// Delivers the outbox: claims due rows (on a shared Postgres: FOR UPDATE SKIP LOCKED, then a lease), signs
// each body with the webhook runtime's signWebhook, POSTs it, and records the answers together (group
// commit). On an exclusive store (PGlite) a new verification's rows are handed over once committed and go
// out without a claim; the claim skips rows in flight, so no row goes out twice at once.
// Per verification and receiver, rows go out in order: a row waits while an earlier one of the same trace
// is still queued. A non-2xx answer or a timeout is retried after the next delay of the policy; the same
// body, timestamp and deliveryId. Several instances on one Postgres never deliver a row twice: the claim
// is one atomic UPDATE.
import { randomUUID } from "node:crypto";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Group } from "./store/group.js";
import type { Db, Row } from "./store/index.js";

/** The outbox columns a delivery reads: a claim's rows, and a hand-over's. */
export interface QueuedRow extends Row {
  readonly id: unknown;
  readonly delivery_id: unknown;
  readonly url: unknown;
  readonly body: unknown;
  readonly signature_version: unknown;
  readonly tries: unknown;
}

export interface DispatcherOptions {
  readonly db: Db;
  readonly sign: (version: "1" | "2", body: string) => Record<string, string>;
  readonly deliveryIdHeader: string;
  readonly timeoutMs: number;
  readonly delaysMs: readonly number[];
  /** How often to look for due rows when nothing wakes the dispatcher. */
  readonly pollMs?: number;
  readonly log?: (line: string) => void;
}

export interface DeliveryAttempt {
  readonly at: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/** Rows per claim: one pass delivers them concurrently and records their answers in one statement. */
const CLAIM_LIMIT = 100;

/** One delivery's answer and the row's next state. `nextAt` is the retry time, or the delivery time when delivered. */
interface Outcome {
  readonly id: number;
  readonly at: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly tries: number;
  readonly state: "delivered" | "queued" | "failed";
  readonly nextAt: number;
}

export class Dispatcher {
  readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true });
  /** Rows being delivered (claimed or handed over), by id: neither path takes one the other holds. */
  private readonly inFlight = new Set<number>();
  /** Hand-overs being delivered, awaited by stop(). */
  private readonly handOvers = new Set<Promise<void>>();
  /** A claim ran while hand-overs were in flight: a later row of their trace may be waiting for them. */
  private claimAfterHandOver = false;
  private readonly recorder = new Group<Outcome, void>(async (outcomes) => {
    await this.record(outcomes);
    return outcomes.map(() => undefined);
  });

  constructor(private readonly o: DispatcherOptions) {}

  /** Starts polling. With an exclusive store (PGlite) leases of an earlier run are taken back first. */
  async start(): Promise<void> {
    if (this.o.db.exclusive) await this.o.db.query("UPDATE outbox SET lease_owner = NULL, lease_until = NULL WHERE state = 'queued' AND lease_owner IS NOT NULL");
    this.schedule(0);
  }

  /** Runs a pass soon (after a commit that queued rows). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /**
   * Rows just committed, each the first of its trace and due now, delivered without a claim. Only on an
   * exclusive store: on a shared Postgres another instance may claim them, so they wait for a leased claim.
   */
  handOver(rows: readonly QueuedRow[]): void {
    if (!this.o.db.exclusive) return this.wake();
    if (this.stopped) return;
    const mine = this.take(rows);
    if (!mine.length) return;
    const job = this.deliverAll(mine).catch((err: Error) => {
      if (!this.stopped) this.o.log?.(`dispatcher: ${err.message}`);
    });
    this.handOvers.add(job);
    void job.finally(() => {
      this.handOvers.delete(job);
      if (this.claimAfterHandOver && !this.handOvers.size) {
        this.claimAfterHandOver = false;
        this.wake();
      }
    });
  }

  /** The rows no other path is delivering, marked as in flight. */
  private take(rows: readonly QueuedRow[]): QueuedRow[] {
    const mine = rows.filter((r) => !this.inFlight.has(Number(r.id)));
    for (const r of mine) this.inFlight.add(Number(r.id));
    return mine;
  }

  /** Delivers rows concurrently, then records their answers; the rows leave the in-flight set once recorded. */
  private async deliverAll(rows: readonly QueuedRow[]): Promise<void> {
    try {
      const outcomes = (await Promise.all(rows.map((row) => this.deliver(row)))).filter((o) => o !== undefined);
      await Promise.all(outcomes.map((o) => this.recorder.add(o)));
    } finally {
      for (const r of rows) this.inFlight.delete(Number(r.id));
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), ms);
    this.timer.unref?.();
  }

  private async pass(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = (async () => {
      try {
        do {
          this.again = false;
          if (this.handOvers.size) this.claimAfterHandOver = true;
          const claimed = this.take(await this.claim());
          await this.deliverAll(claimed);
          if (claimed.length) this.again = true;
        } while (this.again && !this.stopped);
      } catch (err) {
        if (!this.stopped) this.o.log?.(`dispatcher: ${(err as Error).message}`);
      }
    })();
    await this.running;
    this.running = undefined;
    this.schedule(this.o.pollMs ?? 200);
  }

  /**
   * Due rows, oldest first, with no earlier queued row of the same trace and receiver (that keeps each
   * verification's webhooks in order); the partial indexes of migration 2 make it an index scan that stops
   * at the LIMIT. On a shared Postgres the claim is one atomic UPDATE taking a lease (FOR UPDATE SKIP
   * LOCKED), so two instances never take one row. An exclusive store (PGlite) has one dispatcher, whose
   * passes never overlap: a plain SELECT that skips the rows in flight, and no lease to write and clear.
   */
  private async claim(): Promise<QueuedRow[]> {
    const now = Date.now();
    const due = (skip: string) => `SELECT o.id, o.delivery_id, o.url, o.body, o.signature_version, o.tries FROM outbox o
       WHERE o.state = 'queued' AND o.next_at <= $1 AND (o.lease_until IS NULL OR o.lease_until < $1)${skip}
         AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.trace = o.trace AND p.url = o.url AND p.state = 'queued' AND p.id < o.id)
       ORDER BY o.id LIMIT ${CLAIM_LIMIT}`;
    if (this.o.db.exclusive) return this.o.db.query(due(" AND o.id <> ALL($2::bigint[])"), [now, [...this.inFlight]]);
    return this.o.db.query(
      `UPDATE outbox SET lease_owner = $2, lease_until = $3 WHERE id IN (SELECT id FROM (${due("")} FOR UPDATE OF o SKIP LOCKED) c)
       RETURNING id, delivery_id, url, body, signature_version, tries`,
      [now, this.owner, now + this.o.timeoutMs * 2 + 1000],
    );
  }

  /** POSTs one row; its answer, or undefined when the dispatcher is stopping (the lease lapses and the row stays queued). */
  private async deliver(row: QueuedRow): Promise<Outcome | undefined> {
    const body = String(row.body);
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      statusCode = await this.post(String(row.url), body, {
        "Content-Type": "application/json",
        ...this.o.sign(String(row.signature_version) as "1" | "2", body),
        [this.o.deliveryIdHeader]: String(row.delivery_id),
      });
      if (statusCode < 200 || statusCode > 299) error = `answered ${statusCode}`;
    } catch (err) {
      error = (err as Error).message;
    }
    if (this.stopped && statusCode === null) return undefined;
    const tries = Number(row.tries) + 1;
    const delay = error === null ? 0 : this.o.delaysMs[tries - 1];
    return {
      id: Number(row.id), at: started, statusCode, error, durationMs: Date.now() - started, tries,
      state: error === null ? "delivered" : delay === undefined ? "failed" : "queued", nextAt: Date.now() + (delay ?? 0),
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
      const req = (secure ? httpsRequest : httpRequest)(target, { method: "POST", agent: secure ? this.httpsAgent : this.httpAgent, headers: { ...headers, "Content-Length": Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
        res.once("error", reject);
      });
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
      req.once("close", () => clearTimeout(timer));
      req.once("error", (err: NodeJS.ErrnoException) => reject(new Error(err.code ?? err.message)));
      req.end(body);
    });
  }

  /** Every answer of a pass in one statement: the attempts, and each row's new state while the lease is still ours (no lease: exclusive store). */
  private async record(outcomes: readonly Outcome[]): Promise<void> {
    if (!outcomes.length) return;
    const col = <K extends keyof Outcome>(k: K) => outcomes.map((o) => o[k]);
    await this.o.db.query(
      `WITH r AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[], $8::bigint[])
                    AS r(id, at, status_code, error, duration_ms, tries, state, next_at)),
       a AS (INSERT INTO delivery_attempts (outbox_id, at, status_code, error, duration_ms) SELECT id, at, status_code, error, duration_ms FROM r)
       UPDATE outbox o SET state = r.state, tries = r.tries, last_status = r.status_code, last_error = r.error,
         next_at = CASE WHEN r.state = 'queued' THEN r.next_at ELSE o.next_at END,
         delivered_at = CASE WHEN r.state = 'delivered' THEN r.next_at ELSE o.delivered_at END, lease_owner = NULL, lease_until = NULL
         FROM r WHERE o.id = r.id AND o.lease_owner IS NOT DISTINCT FROM $9`,
      [col("id"), col("at"), col("statusCode"), col("error"), col("durationMs"), col("tries"), col("state"), col("nextAt"), this.o.db.exclusive ? null : this.owner],
    );
  }

  /** Stops polling; waits for the current pass (in-flight deliveries finish or time out). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.handOvers);
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** Listing for the control API and the page: deliveries with their attempts. */
export async function listDeliveries(db: Db, trace?: string): Promise<Record<string, unknown>[]> {
  const rows = trace
    ? await db.query("SELECT * FROM outbox WHERE trace = $1 ORDER BY id", [trace])
    : await db.query("SELECT * FROM outbox ORDER BY id DESC LIMIT 500");
  const ids = rows.map((r) => Number(r.id));
  const attempts = ids.length ? await db.query("SELECT * FROM delivery_attempts WHERE outbox_id = ANY($1::bigint[]) ORDER BY id", [ids]) : [];
  return rows.map((r) => ({
    deliveryId: String(r.delivery_id),
    trace: String(r.trace),
    url: r.url ?? null,
    format: String(r.format),
    signatureVersion: String(r.signature_version),
    timestamp: Number(r.timestamp),
    state: String(r.state),
    tries: Number(r.tries),
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    lastError: r.last_error ?? null,
    resend: r.resend_of !== null,
    createdAt: Number(r.created_at),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
    payload: JSON.parse(String(r.body)) as unknown,
    attempts: attempts
      .filter((a) => Number(a.outbox_id) === Number(r.id))
      .map((a): DeliveryAttempt => ({ at: Number(a.at), statusCode: a.status_code === null ? null : Number(a.status_code), error: (a.error as string | null) ?? null, durationMs: Number(a.duration_ms) })),
  }));
}

/** The portal's manual re-send (6.1): new outbox rows with the same body, timestamp and deliveryId. */
export async function resend(db: Db, deliveryId: string): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.query("SELECT * FROM outbox WHERE delivery_id = $1 AND resend_of IS NULL AND url IS NOT NULL ORDER BY id", [deliveryId]);
    for (const r of rows) {
      await tx.query(
        `INSERT INTO outbox (delivery_id, trace, url, format, signature_version, body, timestamp, state, next_at, resend_of, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8, $9, $8)`,
        [r.delivery_id, r.trace, r.url, r.format, r.signature_version, r.body, r.timestamp, Date.now(), r.id],
      );
    }
    const any = rows.length ? rows.length : (await tx.query("SELECT 1 FROM outbox WHERE delivery_id = $1", [deliveryId])).length ? 0 : -1;
    return any;
  });
}
