// The dispatcher's statements on the outbox: finding due rows (a plain SELECT on an exclusive store, an
// atomic leased claim on a shared Postgres), recording answers, and taking back an earlier run's leases.
// Each is one SQL statement over `Sql`, so a test can run two claims on two connections at once.
import { OUTBOX_ROW, QUEUED_ROW, BODY } from "./shared-text.js";
import type { Db, Row, Sql } from "./sql.js";

/** The outbox columns a delivery reads (a claim's rows, and a hand-over's): typed here, at the store's boundary. */
export interface QueuedRow {
  readonly id: number;
  /** The account whose webhook this is (its signing secret signs it). */
  readonly tenant: string;
  readonly deliveryId: string;
  readonly url: string;
  readonly body: string;
  readonly signatureVersion: string;
  readonly tries: number;
}

/** A claim's row (bigint columns arrive as text from a Postgres server) as a QueuedRow. */
export function toQueuedRow(row: Row): QueuedRow {
  return {
    id: Number(row.id),
    tenant: String(row.tenant),
    deliveryId: String(row.delivery_id),
    url: String(row.url),
    body: String(row.body),
    signatureVersion: String(row.signature_version),
    tries: Number(row.tries),
  };
}

/** An outbox row as the control API and the page read it. */
export interface OutboxRow {
  readonly id: number;
  readonly deliveryId: string;
  readonly trace: string;
  /** null: the verification had no receiver. */
  readonly url: string | null;
  readonly format: string;
  readonly signatureVersion: string;
  readonly body: string;
  readonly timestamp: number;
  readonly state: string;
  readonly tries: number;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  /** The row this one re-sends (the portal's re-send), or null for a first delivery. */
  readonly resendOf: number | null;
  readonly createdAt: number;
  readonly deliveredAt: number | null;
}

const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A `SELECT *` row of the outbox as an OutboxRow. */
export function toOutboxRow(row: Row): OutboxRow {
  return {
    id: Number(row.id),
    deliveryId: String(row.delivery_id),
    trace: String(row.trace),
    url: textOrNull(row.url),
    format: String(row.format),
    signatureVersion: String(row.signature_version),
    body: String(row.body),
    timestamp: Number(row.timestamp),
    state: String(row.state),
    tries: Number(row.tries),
    lastStatus: numberOrNull(row.last_status),
    lastError: textOrNull(row.last_error),
    resendOf: numberOrNull(row.resend_of),
    createdAt: Number(row.created_at),
    deliveredAt: numberOrNull(row.delivered_at),
  };
}

/** One delivery attempt of an outbox row. */
export interface AttemptRow {
  readonly outboxId: number;
  readonly at: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

const toAttemptRow = (row: Row): AttemptRow => ({
  outboxId: Number(row.outbox_id),
  at: Number(row.at),
  statusCode: numberOrNull(row.status_code),
  error: textOrNull(row.error),
  durationMs: Number(row.duration_ms),
});

/** What a write's outbox statement returns of each row (OUTBOX_INSERT's RETURNING); the rest is the writer's own. */
export interface WrittenOutboxRow {
  readonly id: number;
  readonly deliveryId: string;
  readonly url: string | null;
  readonly state: string;
}

export const toWrittenOutboxRow = (row: Row): WrittenOutboxRow => ({
  id: Number(row.id),
  deliveryId: String(row.delivery_id),
  url: textOrNull(row.url),
  state: String(row.state),
});

/** One delivery's answer and the row's next state. `nextAt` is the retry time, or the delivery time when delivered. */
export interface Outcome {
  readonly id: number;
  readonly at: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly tries: number;
  readonly state: "delivered" | "queued" | "failed";
  readonly nextAt: number;
}

/**
 * Due rows, earliest due first, each the head of its trace and receiver's queue (that keeps each
 * verification's webhooks in order). The index of migration 7 on (next_at, id) of queued rows makes it a
 * range scan that stops at the LIMIT or at the first row not yet due: its cost is in the rows due, not in
 * those queued. A row waiting behind its head is not due before the head's next try: recordOutcomes and a
 * change's OUTBOX_INSERT set its next_at so (a dead receiver's queues are then never read). The head test
 * is a scalar subquery, evaluated per candidate as one probe of outbox_queued_trace (its min id), never
 * planned as an anti join over every queued row. `$1` is now.
 */
export const due = (limit: number, extra: string) => `SELECT ${QUEUED_ROW("o")} FROM outbox o
   WHERE o.state = 'queued' AND o.next_at <= $1 AND (o.lease_until IS NULL OR o.lease_until < $1)${extra}
     AND o.id = (SELECT min(p.id) FROM outbox p WHERE p.tenant = o.tenant AND p.trace = o.trace AND p.url = o.url AND p.state = 'queued')
   ORDER BY o.next_at, o.id LIMIT ${Math.max(0, Math.floor(limit))}`;

/**
 * An exclusive store (PGlite) has one dispatcher, whose passes never overlap: a plain SELECT that skips
 * the rows it has in flight, and no lease to write and clear.
 */
export async function selectDue(sql: Sql, now: number, limit: number, inFlight: readonly number[]): Promise<QueuedRow[]> {
  return (await sql.query(due(limit, " AND o.id <> ALL($2::bigint[])"), [now, inFlight])).map(toQueuedRow);
}

/**
 * A shared Postgres: one atomic UPDATE taking a lease. FOR UPDATE SKIP LOCKED: a claim running at the
 * same time as another skips the rows the other holds instead of waiting for it and then taking them
 * too (test/sandbox/postgres.test.ts holds one claim open in a transaction to check this).
 */
export async function claimDue(sql: Sql, now: number, limit: number, owner: string, leaseUntil: number): Promise<QueuedRow[]> {
  const rows = await sql.query(
    `UPDATE outbox u SET lease_owner = $2, lease_until = $3 WHERE id IN (SELECT id FROM (${due(limit, "")} FOR UPDATE OF o SKIP LOCKED) c)
     RETURNING ${QUEUED_ROW("u")}`,
    [now, owner, leaseUntil],
  );
  return rows.map(toQueuedRow);
}

/**
 * Answers in one statement: the attempts, and each row's new state while the lease is still `owner`'s
 * (null: an exclusive store, no lease). A row whose lease another instance took meanwhile keeps its state.
 * A row retried later holds back the rows queued behind it: their next_at moves to its retry time (they
 * cannot go before it), so the claim's scan of due rows does not read them until then.
 */
export async function recordOutcomes(sql: Sql, outcomes: readonly Outcome[], owner: string | null): Promise<void> {
  if (!outcomes.length) return;
  const col = <K extends keyof Outcome>(k: K) => outcomes.map((o) => o[k]);
  await sql.query(
    `WITH r AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[], $8::bigint[])
                  AS r(id, at, status_code, error, duration_ms, tries, state, next_at)),
     a AS (INSERT INTO delivery_attempts (outbox_id, at, status_code, error, duration_ms) SELECT id, at, status_code, error, duration_ms FROM r),
     u AS (UPDATE outbox o SET state = r.state, tries = r.tries, last_status = r.status_code, last_error = r.error,
       next_at = CASE WHEN r.state = 'queued' THEN r.next_at ELSE o.next_at END,
       delivered_at = CASE WHEN r.state = 'delivered' THEN r.next_at ELSE o.delivered_at END, lease_owner = NULL, lease_until = NULL
       FROM r WHERE o.id = r.id AND o.lease_owner IS NOT DISTINCT FROM $9 RETURNING o.id, o.tenant, o.trace, o.url, r.state, r.next_at)
     UPDATE outbox q SET next_at = u.next_at FROM u
       WHERE u.state = 'queued' AND q.tenant = u.tenant AND q.trace = u.trace AND q.url = u.url AND q.state = 'queued' AND q.id > u.id
         AND q.next_at < u.next_at AND NOT q.id = ANY($1::bigint[])`,
    [col("id"), col("at"), col("statusCode"), col("error"), col("durationMs"), col("tries"), col("state"), col("nextAt"), owner],
  );
}

/** An exclusive store's earlier run is gone: its leases are taken back. */
export async function releaseLeases(sql: Sql): Promise<void> {
  await sql.query("UPDATE outbox SET lease_owner = NULL, lease_until = NULL WHERE state = 'queued' AND lease_owner IS NOT NULL");
}

// ---- reading the outbox for the control API, the page and the metrics; the portal's re-send -------------

/** One trace's outbox rows, oldest first. */
export async function outboxRowsOfTrace(sql: Sql, tenant: string, trace: string): Promise<OutboxRow[]> {
  return (await sql.query(`SELECT ${OUTBOX_ROW("o")} FROM outbox o WHERE tenant = $1 AND trace = $2 ORDER BY id`, [tenant, trace])).map(toOutboxRow);
}

/** The newest `limit` outbox rows, newest first. */
export async function latestOutboxRows(sql: Sql, tenant: string, limit: number): Promise<OutboxRow[]> {
  return (await sql.query(`SELECT ${OUTBOX_ROW("o")} FROM outbox o WHERE tenant = $1 ORDER BY id DESC LIMIT ${Math.max(0, Math.floor(limit))}`, [tenant])).map(
    toOutboxRow,
  );
}

/** The newest `limit` outbox rows of these traces, newest first. */
export async function outboxRowsOfTraces(sql: Sql, tenant: string, traces: readonly string[], limit: number): Promise<OutboxRow[]> {
  const rows = await sql.query(
    `SELECT ${OUTBOX_ROW("o")} FROM outbox o WHERE tenant = $1 AND trace = ANY($2::text[]) ORDER BY id DESC LIMIT ${Math.max(0, Math.floor(limit))}`,
    [tenant, traces],
  );
  return rows.map(toOutboxRow);
}

/** The delivery attempts of these outbox rows, in the order they were made. */
export async function attemptsOf(sql: Sql, outboxIds: readonly number[]): Promise<AttemptRow[]> {
  return (await sql.query("SELECT * FROM delivery_attempts WHERE outbox_id = ANY($1::bigint[]) ORDER BY id", [outboxIds])).map(toAttemptRow);
}

/**
 * The portal's manual re-send (6.1): a new queued row for each first delivery of `deliveryId` that had a
 * receiver, with the same body, timestamp and deliveryId. The number of rows queued; 0 when the delivery
 * exists but had no receiver; -1 when no row has that deliveryId.
 */
export function requeueDelivery(db: Db, tenant: string, deliveryId: string, now: number): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.query("SELECT * FROM outbox WHERE tenant = $1 AND delivery_id = $2 AND resend_of IS NULL AND url IS NOT NULL ORDER BY id", [
      tenant,
      deliveryId,
    ]);
    for (const r of rows) {
      await tx.query(
        `INSERT INTO outbox (tenant, delivery_id, trace, url, format, signature_version, body, timestamp, state, next_at, resend_of, created_at, body_at, body_from, body_len)
         VALUES ($10, $1, $2, $3, $4, $5, $6, $7, 'queued', $8, $9, $8, $11, $12, $13)`,
        [r.delivery_id, r.trace, r.url, r.format, r.signature_version, r.body, r.timestamp, now, r.id, tenant, r.body_at, r.body_from, r.body_len],
      );
    }
    return rows.length ? rows.length : (await tx.query("SELECT 1 FROM outbox WHERE tenant = $1 AND delivery_id = $2", [tenant, deliveryId])).length ? 0 : -1;
  });
}

/** Outbox rows stored, by state. */
export async function outboxCountsByState(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql.query<{ state: string; n: string }>("SELECT state, count(*) AS n FROM outbox GROUP BY state");
  return new Map(rows.map((r) => [String(r.state), Number(r.n)]));
}

/** How many deliveries are queued. */
export async function queuedCount(sql: Sql): Promise<number> {
  const rows = await sql.query<{ n: string }>("SELECT count(*) AS n FROM outbox WHERE state = 'queued'");
  return Number(rows[0]!.n);
}

/** When the earliest queued delivery is due (ms), or undefined when none is queued: the first entry of outbox_due. */
export async function earliestQueued(sql: Sql): Promise<number | undefined> {
  const rows = await sql.query<{ next_at: string }>("SELECT next_at FROM outbox WHERE state = 'queued' ORDER BY next_at LIMIT 1");
  return rows.length ? Number(rows[0]!.next_at) : undefined;
}

/** When the oldest queued delivery was created (ms), or undefined when none is queued. */
export async function oldestQueuedCreatedAt(sql: Sql): Promise<number | undefined> {
  // At a metrics scrape only: a scan of the queued rows' index (as the queue depth's count is).
  const rows = await sql.query<{ created_at: string | null }>("SELECT min(created_at) AS created_at FROM outbox WHERE state = 'queued'");
  return rows[0]?.created_at == null ? undefined : Number(rows[0].created_at);
}

// ---- enqueueing, in the caller's statement and transaction ----------------------------------------------

/** The parameters of OUTBOX_INSERT after its tenant's: six column arrays (one row per receiver of each webhook), the signature version, now, and three of where each body's shared string goes (shared-text.ts; null: none). */
export type OutboxBatch = unknown[];

/** Outbox rows as parameters: `rows` are [deliveryId, trace, url, format, body, timestamp]. */
export function outboxBatch(rows: readonly (readonly unknown[])[], signatureVersion: string, now: number): OutboxBatch {
  const none = () => rows.map(() => null);
  return [0, 1, 2, 3, 4, 5].map((i) => rows.map((r) => r[i])).concat([signatureVersion, now, none(), none(), none()]);
}

/**
 * Outbox rows, one per receiver of each webhook, as SQL appended to a statement: the tenant is parameter
 * `tenantAt`, an OutboxBatch follows it. Returns each row's id, delivery_id, url and state only: the rest
 * of a QueuedRow is the caller's own (tenant, signature version, no tries yet), and every column returned
 * is cloned from the database thread (store/pglite-worker.ts) for every create. `behind`: the trace may have rows queued already (a change, not a
 * new verification), so a row's next_at is not before theirs (it goes after them; see recordOutcomes).
 */
export const OUTBOX_INSERT = (tenantAt: number, behind = false, at = tenantAt + 1) =>
  `INSERT INTO outbox (tenant, delivery_id, trace, url, format, signature_version, body, timestamp, state, next_at, created_at, body_at, body_from, body_len)
     SELECT $${tenantAt}::text, w.delivery_id, w.trace, w.url, w.format, $${at + 6}, w.body, w.timestamp, CASE WHEN w.url IS NULL THEN 'no_receiver' ELSE 'queued' END,
       ${behind ? `GREATEST($${at + 7}::bigint, (SELECT max(q.next_at) FROM outbox q WHERE q.tenant = $${tenantAt}::text AND q.trace = w.trace AND q.url = w.url AND q.state = 'queued'))` : `$${at + 7}`}, $${at + 7}, w.body_at, w.body_from, w.body_len
       FROM unnest($${at}::text[], $${at + 1}::text[], $${at + 2}::text[], $${at + 3}::text[], $${at + 4}::text[], $${at + 5}::bigint[], $${at + 8}::int[], $${at + 9}::int[], $${at + 10}::int[])
         AS w(delivery_id, trace, url, format, body, timestamp, body_at, body_from, body_len)
     RETURNING id, delivery_id, url, state`;

/** The body of a trace's latest first delivery (not a re-send), or undefined. */
export async function latestWebhookBody(sql: Sql, tenant: string, trace: string): Promise<string | undefined> {
  const body = await sql.query(`SELECT ${BODY("o")} AS body FROM outbox o WHERE tenant = $1 AND trace = $2 AND resend_of IS NULL ORDER BY id DESC LIMIT 1`, [
    tenant,
    trace,
  ]);
  return body[0] ? String(body[0].body) : undefined;
}
