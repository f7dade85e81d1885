// The deliveries as the control API and the page show them (each with its attempts), and the portal's manual
// re-send (the service's specification, section 6.1): reads and one write of the outbox, beside the dispatcher.
import { attemptsOf, latestOutboxRows, outboxRowsOfTrace, requeueDelivery, type OutboxRow } from "./store/outbox.js";
import type { Db } from "./store/sql.js";

export interface DeliveryAttempt {
  readonly at: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/** Listing for the control API and the page: a tenant's deliveries with their attempts. */
export async function listDeliveries(db: Db, tenant: string, trace?: string): Promise<Record<string, unknown>[]> {
  const rows = trace ? await outboxRowsOfTrace(db, tenant, trace) : await latestOutboxRows(db, tenant, 500);
  return describeDeliveries(db, rows);
}

/** Outbox rows as the control API shows them, each with its attempts. */
export async function describeDeliveries(db: Db, rows: readonly OutboxRow[]): Promise<Record<string, unknown>[]> {
  const ids = rows.map((row) => row.id);
  const attempts = ids.length ? await attemptsOf(db, ids) : [];
  return rows.map((row) => ({
    deliveryId: row.deliveryId,
    trace: row.trace,
    url: row.url,
    format: row.format,
    signatureVersion: row.signatureVersion,
    timestamp: row.timestamp,
    state: row.state,
    tries: row.tries,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    resend: row.resendOf !== null,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
    payload: JSON.parse(row.body) as unknown,
    attempts: attempts
      .filter((attempt) => attempt.outboxId === row.id)
      .map(({ at, statusCode, error, durationMs }): DeliveryAttempt => ({ at, statusCode, error, durationMs })),
  }));
}

/** The portal's manual re-send (6.1): new outbox rows with the same body, timestamp and deliveryId. */
export function resend(db: Db, tenant: string, deliveryId: string): Promise<number> {
  return requeueDelivery(db, tenant, deliveryId, Date.now());
}
