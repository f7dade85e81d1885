// Retention's deletes (--retain-days): each removes at most `batch` rows older than a cutoff, with what
// hangs off them, in one short transaction; the number of rows removed.
import { MATERIALIZE } from "./shared-text.js";
import type { Db } from "./sql.js";

/** Verifications not changed since `cutoff`, with their history; the outbox rows referring to their requests first get their whole bodies. */
export function deleteOldVerifications(db: Db, tenant: string, cutoff: number, batch: number): Promise<number> {
  // The same rows twice: locked by the first statement (unchanged until the commit), in one total order.
  const old = "SELECT trace FROM verifications WHERE tenant = $3 AND updated_at < $1 ORDER BY updated_at, trace LIMIT $2";
  return db.transaction(async (tx) => {
    await tx.query(MATERIALIZE(`o.tenant = $3 AND o.trace IN (${old} FOR UPDATE)`), [cutoff, batch, tenant]);
    const gone = await tx.query<{ trace: string }>(`DELETE FROM verifications WHERE tenant = $3 AND trace IN (${old}) RETURNING trace`, [
      cutoff,
      batch,
      tenant,
    ]);
    if (gone.length) await tx.query("DELETE FROM history WHERE tenant = $1 AND trace = ANY($2::text[])", [tenant, gone.map((g) => g.trace)]);
    return gone.length;
  });
}

/** Finished outbox rows (delivered, failed, without a receiver) created before `cutoff`, with their attempts. */
export function deleteOldDeliveries(db: Db, cutoff: number, batch: number): Promise<number> {
  return db.transaction(async (tx) => {
    const gone = await tx.query<{ id: string }>(
      `DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE state <> 'queued' AND created_at < $1 ORDER BY created_at LIMIT $2) RETURNING id`,
      [cutoff, batch],
    );
    if (gone.length) await tx.query("DELETE FROM delivery_attempts WHERE outbox_id = ANY($1::bigint[])", [gone.map((g) => Number(g.id))]);
    return gone.length;
  });
}

/** Hosted forms opened before `cutoff`. */
export async function deleteOldForms(db: Db, tenant: string, cutoff: number, batch: number): Promise<number> {
  return (
    await db.query(`DELETE FROM forms WHERE id IN (SELECT id FROM forms WHERE tenant = $3 AND created_at < $1 ORDER BY created_at LIMIT $2) RETURNING id`, [
      cutoff,
      batch,
      tenant,
    ])
  ).length;
}
