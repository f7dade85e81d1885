// Delivers the outbox: claims due rows (FOR UPDATE SKIP LOCKED, then a lease), signs each body with the
// webhook runtime's signWebhook, POSTs it, and records the answer. Per verification and receiver, rows go
// out in order: a row waits while an earlier one of the same trace is still queued. A non-2xx answer or
// a timeout is retried after the next delay of the policy; the same body, timestamp and deliveryId.
// Several instances on one Postgres never deliver a row twice: the claim is one atomic UPDATE.
import { randomUUID } from "node:crypto";
import type { Db, Row } from "./store/index.js";

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

export class Dispatcher {
  readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Set<AbortController>();

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
          const claimed = await this.claim();
          await Promise.all(claimed.map((row) => this.deliver(row)));
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

  /** One atomic claim: due, unleased, and no earlier queued row of the same trace and receiver. */
  private async claim(): Promise<Row[]> {
    const now = Date.now();
    return this.o.db.query(
      `UPDATE outbox SET lease_owner = $2, lease_until = $3 WHERE id IN (
         SELECT o.id FROM outbox o
          WHERE o.state = 'queued' AND o.next_at <= $1 AND (o.lease_until IS NULL OR o.lease_until < $1)
            AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.trace = o.trace AND p.url = o.url AND p.state = 'queued' AND p.id < o.id)
          ORDER BY o.id LIMIT 32 FOR UPDATE SKIP LOCKED)
       RETURNING id, delivery_id, url, body, signature_version, tries`,
      [now, this.owner, now + this.o.timeoutMs * 2 + 1000],
    );
  }

  private async deliver(row: Row): Promise<void> {
    const id = Number(row.id);
    const body = String(row.body);
    const started = Date.now();
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(new Error(`no answer within ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(String(row.url), {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...this.o.sign(String(row.signature_version) as "1" | "2", body),
          [this.o.deliveryIdHeader]: String(row.delivery_id),
        },
        body,
        signal: controller.signal,
        redirect: "manual",
      });
      statusCode = response.status;
      await response.arrayBuffer().catch(() => undefined);
      if (statusCode < 200 || statusCode > 299) error = `answered ${statusCode}`;
    } catch (err) {
      error = controller.signal.aborted ? String((controller.signal.reason as Error)?.message ?? "aborted") : describeFetchError(err);
    } finally {
      clearTimeout(timeout);
      this.inFlight.delete(controller);
    }
    if (this.stopped && statusCode === null) return; // stopping: the lease lapses and the row stays queued
    const tries = Number(row.tries) + 1;
    const duration = Date.now() - started;
    // The attempt and the row's new state in one statement.
    const attempt = "WITH a AS (INSERT INTO delivery_attempts (outbox_id, at, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5))";
    if (error === null) {
      await this.o.db.query(
        `${attempt} UPDATE outbox SET state = 'delivered', tries = $6, last_status = $3, last_error = NULL, delivered_at = $7, lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $8`,
        [id, started, statusCode, error, duration, tries, Date.now(), this.owner],
      );
    } else {
      const delay = this.o.delaysMs[tries - 1];
      await this.o.db.query(
        `${attempt} UPDATE outbox SET state = $6, tries = $7, last_status = $3, last_error = $4, next_at = $8, lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $9`,
        [id, started, statusCode, error, duration, delay === undefined ? "failed" : "queued", tries, Date.now() + (delay ?? 0), this.owner],
      );
    }
  }

  /** Stops polling; waits for the current pass (in-flight deliveries finish or time out). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}

function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err as Error)?.message ?? "network error";
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
