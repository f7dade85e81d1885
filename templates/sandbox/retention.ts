// --retain-days: a long-running shared sandbox keeps what it stored for that many days (by the
// sandbox's clock) and deletes the rest in small batches, each its own short statement, with a pause
// between batches, so requests never wait behind one long delete. Removed: verifications not changed
// since the cutoff (with their history), delivered, failed and receiver-less outbox rows created before
// it (with their attempts; queued rows stay until delivered), and hosted forms opened before it.
import { DEFAULT_TENANT, type Db } from "./store/index.js";
import { deleteOldDeliveries, deleteOldForms, deleteOldVerifications } from "./store/retention.js";

export const DEFAULT_RETAIN_DAYS = 30;
const DAY_MS = 86_400_000;
/** Rows per delete statement: a few milliseconds of database time, so requests interleave. */
export const RETENTION_BATCH = 500;
/**
 * On an exclusive store (PGlite: one connection, one thread) a request waits for the whole of a batch's
 * statement: smaller batches, so that the wait stays short (bench/growth.bench.ts measured create and GET
 * p99 1.61x during a sweep of 500-row batches at 100,000 rows; docs/engineering/sandbox-start.md).
 */
export const EXCLUSIVE_RETENTION_BATCH = 100;

export interface RetentionPass {
  readonly verifications: number;
  readonly deliveries: number;
  readonly forms: number;
}

/**
 * Deletes up to `batch` of each kind older than a cutoff (ms): the tenant's verifications and forms by its
 * own clock (`cutoff`), finished deliveries of every tenant by wall time (`wallCutoff`); the counts deleted.
 */
export async function retentionBatch(db: Db, cutoff: number, wallCutoff: number, batch = RETENTION_BATCH, tenant = DEFAULT_TENANT): Promise<RetentionPass> {
  const verifications = await deleteOldVerifications(db, tenant, cutoff, batch);
  const deliveries = await deleteOldDeliveries(db, wallCutoff, batch);
  const forms = await deleteOldForms(db, tenant, cutoff, batch);
  return { verifications, deliveries, forms };
}

/** A tenant and its clock (each tenant's control API moves its own). */
export interface ClockedTenant {
  readonly name: string;
  readonly now: () => number;
}

/**
 * Runs batches until nothing older than the cutoff is left, pausing `pauseMs` between batches; the totals.
 * `tenants` (default: the one account, on `now`) each by their own clock.
 */
export async function sweep(
  db: Db,
  o: { days: number; now: () => number; tenants?: readonly ClockedTenant[]; pauseMs?: number; stopped?: () => boolean },
): Promise<RetentionPass> {
  const total = { verifications: 0, deliveries: 0, forms: 0 };
  const tenants = o.tenants ?? [{ name: DEFAULT_TENANT, now: o.now }];
  const batch = db.exclusive ? EXCLUSIVE_RETENTION_BATCH : RETENTION_BATCH;
  for (;;) {
    let removed = 0;
    for (const t of tenants) {
      if (o.stopped?.()) return total;
      const pass = await retentionBatch(db, t.now() - o.days * DAY_MS, Date.now() - o.days * DAY_MS, batch, t.name);
      total.verifications += pass.verifications;
      total.deliveries += pass.deliveries;
      total.forms += pass.forms;
      removed += pass.verifications + pass.deliveries + pass.forms;
    }
    if (removed === 0) return total;
    await new Promise((r) => setTimeout(r, o.pauseMs ?? 20));
  }
}
