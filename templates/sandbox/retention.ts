// --retain-days: a long-running shared sandbox keeps what it stored for that many days (by the
// sandbox's clock) and deletes the rest in small batches, each its own short statement, with a pause
// between batches, so requests never wait behind one long delete. Removed: verifications not changed
// since the cutoff (with their history), delivered, failed and receiver-less outbox rows created before
// it (with their attempts; queued rows stay until delivered), and hosted forms opened before it.
import type { Db } from "./store/index.js";
import { deleteOldDeliveries, deleteOldForms, deleteOldVerifications } from "./store/retention.js";

export const DEFAULT_RETAIN_DAYS = 30;
const DAY_MS = 86_400_000;
/** Rows per delete statement: a few milliseconds of database time, so requests interleave. */
export const RETENTION_BATCH = 500;

export interface RetentionPass {
  readonly verifications: number;
  readonly deliveries: number;
  readonly forms: number;
}

/** Deletes up to RETENTION_BATCH of each kind older than `cutoff` (ms); the counts deleted. */
export async function retentionBatch(db: Db, cutoff: number, wallCutoff: number, batch = RETENTION_BATCH): Promise<RetentionPass> {
  const verifications = await deleteOldVerifications(db, cutoff, batch);
  const deliveries = await deleteOldDeliveries(db, wallCutoff, batch);
  const forms = await deleteOldForms(db, cutoff, batch);
  return { verifications, deliveries, forms };
}

/** Runs batches until nothing older than the cutoff is left, pausing `pauseMs` between batches; the totals. */
export async function sweep(db: Db, o: { days: number; now: () => number; pauseMs?: number; stopped?: () => boolean }): Promise<RetentionPass> {
  const total = { verifications: 0, deliveries: 0, forms: 0 };
  for (;;) {
    if (o.stopped?.()) return total;
    const cutoff = o.now() - o.days * DAY_MS;
    const wallCutoff = Date.now() - o.days * DAY_MS;
    const pass = await retentionBatch(db, cutoff, wallCutoff);
    total.verifications += pass.verifications;
    total.deliveries += pass.deliveries;
    total.forms += pass.forms;
    if (pass.verifications + pass.deliveries + pass.forms === 0) return total;
    await new Promise((r) => setTimeout(r, o.pauseMs ?? 20));
  }
}
