// The dispatcher's statements on the outbox: finding due rows (a plain SELECT on an exclusive store, an
// atomic leased claim on a shared Postgres), recording answers, and taking back an earlier run's leases.
// Each is one SQL statement over `Sql`, so a test can run two claims on two connections at once.
import type { Row, Sql } from "./sql.js";

/** The outbox columns a delivery reads: a claim's rows, and a hand-over's. */
export interface QueuedRow extends Row {
  readonly id: unknown;
  readonly delivery_id: unknown;
  readonly url: unknown;
  readonly body: unknown;
  readonly signature_version: unknown;
  readonly tries: unknown;
}

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

const COLUMNS = "id, delivery_id, url, body, signature_version, tries";

/**
 * Due rows, oldest first, with no earlier queued row of the same trace and receiver (that keeps each
 * verification's webhooks in order); the partial indexes of migration 2 make it an index scan that stops
 * at the LIMIT. `$1` is now.
 */
const due = (limit: number, extra: string) => `SELECT o.${COLUMNS.split(", ").join(", o.")} FROM outbox o
   WHERE o.state = 'queued' AND o.next_at <= $1 AND (o.lease_until IS NULL OR o.lease_until < $1)${extra}
     AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.trace = o.trace AND p.url = o.url AND p.state = 'queued' AND p.id < o.id)
   ORDER BY o.id LIMIT ${Math.max(0, Math.floor(limit))}`;

/**
 * An exclusive store (PGlite) has one dispatcher, whose passes never overlap: a plain SELECT that skips
 * the rows it has in flight, and no lease to write and clear.
 */
export function selectDue(sql: Sql, now: number, limit: number, inFlight: readonly number[]): Promise<QueuedRow[]> {
  return sql.query<QueuedRow>(due(limit, " AND o.id <> ALL($2::bigint[])"), [now, inFlight]);
}

/**
 * A shared Postgres: one atomic UPDATE taking a lease. FOR UPDATE SKIP LOCKED: a claim running at the
 * same time as another skips the rows the other holds instead of waiting for it and then taking them
 * too (test/sandbox/postgres.test.ts holds one claim open in a transaction to check this).
 */
export function claimDue(sql: Sql, now: number, limit: number, owner: string, leaseUntil: number): Promise<QueuedRow[]> {
  return sql.query<QueuedRow>(
    `UPDATE outbox SET lease_owner = $2, lease_until = $3 WHERE id IN (SELECT id FROM (${due(limit, "")} FOR UPDATE OF o SKIP LOCKED) c)
     RETURNING ${COLUMNS}`,
    [now, owner, leaseUntil],
  );
}

/**
 * Answers in one statement: the attempts, and each row's new state while the lease is still `owner`'s
 * (null: an exclusive store, no lease). A row whose lease another instance took meanwhile keeps its state.
 */
export async function recordOutcomes(sql: Sql, outcomes: readonly Outcome[], owner: string | null): Promise<void> {
  if (!outcomes.length) return;
  const col = <K extends keyof Outcome>(k: K) => outcomes.map((o) => o[k]);
  await sql.query(
    `WITH r AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[], $8::bigint[])
                  AS r(id, at, status_code, error, duration_ms, tries, state, next_at)),
     a AS (INSERT INTO delivery_attempts (outbox_id, at, status_code, error, duration_ms) SELECT id, at, status_code, error, duration_ms FROM r)
     UPDATE outbox o SET state = r.state, tries = r.tries, last_status = r.status_code, last_error = r.error,
       next_at = CASE WHEN r.state = 'queued' THEN r.next_at ELSE o.next_at END,
       delivered_at = CASE WHEN r.state = 'delivered' THEN r.next_at ELSE o.delivered_at END, lease_owner = NULL, lease_until = NULL
       FROM r WHERE o.id = r.id AND o.lease_owner IS NOT DISTINCT FROM $9`,
    [col("id"), col("at"), col("statusCode"), col("error"), col("durationMs"), col("tries"), col("state"), col("nextAt"), owner],
  );
}

/** An exclusive store's earlier run is gone: its leases are taken back. */
export async function releaseLeases(sql: Sql): Promise<void> {
  await sql.query("UPDATE outbox SET lease_owner = NULL, lease_until = NULL WHERE state = 'queued' AND lease_owner IS NOT NULL");
}
