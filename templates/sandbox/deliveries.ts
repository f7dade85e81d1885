// The deliveries as the control API and the page show them (each with its attempts), and the portal's manual
// re-send (the service's specification, section 6.1): reads and one write of the outbox, beside the dispatcher.
import { attemptsOf, latestOutboxRows, outboxRowsOfTrace, requeueDelivery } from "./store/outbox.js";
import type { Db, Row } from "./store/sql.js";

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
export async function describeDeliveries(db: Db, rows: readonly Row[]): Promise<Record<string, unknown>[]> {
  const ids = rows.map((r) => Number(r.id));
  const attempts = ids.length ? await attemptsOf(db, ids) : [];
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
      .map(
        (a): DeliveryAttempt => ({
          at: Number(a.at),
          statusCode: a.status_code === null ? null : Number(a.status_code),
          error: (a.error as string | null) ?? null,
          durationMs: Number(a.duration_ms),
        }),
      ),
  }));
}

/** The portal's manual re-send (6.1): new outbox rows with the same body, timestamp and deliveryId. */
export function resend(db: Db, tenant: string, deliveryId: string): Promise<number> {
  return requeueDelivery(db, tenant, deliveryId, Date.now());
}
