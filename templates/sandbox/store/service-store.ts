// The ServiceStore of a database: each operation is this folder's statement for the tenant.
import { clockOps, offsetOps, sqlOffsetCell } from "./clock.js";
import { countFormOpening, insertForm, lockForm, saveFormAttempt } from "./forms.js";
import { latestWebhookBody, outboxBatch, type OutboxBatch } from "./outbox.js";
import type { OutboxWrite, ServiceStore, StoreOps } from "./port.js";
import type { Db, Sql } from "./sql.js";
import {
  childrenOf,
  claimDueVerifications,
  findVerification,
  historiesOf,
  historyOf,
  insertVerifications,
  latestVerifications,
  lockLatestResubmittable,
  lockVerification,
  olderTraceOf,
  updateVerification,
  userIdOf,
} from "./verifications.js";

const batch = (write: OutboxWrite): OutboxBatch => outboxBatch(write.rows, write.signatureVersion, Date.now());

function sqlOps(sql: Sql, tenant: string): StoreOps {
  return {
    userIdOf: (trace) => userIdOf(sql, tenant, trace),
    insertVerifications: (items, outbox) => insertVerifications(sql, tenant, items, batch(outbox)),
    updateVerification: (next, trigger, outbox) => updateVerification(sql, tenant, next, trigger, outbox ? batch(outbox) : undefined),
    lockLatestResubmittable: (userId, kind) => lockLatestResubmittable(sql, tenant, userId, kind),
    childrenOf: (trace) => childrenOf(sql, tenant, trace),
    findVerification: (trace) => findVerification(sql, tenant, trace),
    lockVerification: (trace, api) => lockVerification(sql, tenant, trace, api),
    claimDueVerifications: (now, status, limit) => claimDueVerifications(sql, tenant, now, status, limit),
    olderTraceOf: (key) => olderTraceOf(sql, tenant, key),
    latestVerifications: (limit) => latestVerifications(sql, tenant, limit),
    historyOf: (trace) => historyOf(sql, tenant, trace),
    historiesOf: (traces) => historiesOf(sql, tenant, traces),
    latestWebhookBody: (trace) => latestWebhookBody(sql, tenant, trace),
    insertForm: (id, request, now) => insertForm(sql, tenant, id, request, now),
    lockForm: (id) => lockForm(sql, tenant, id),
    countFormOpening: (id) => countFormOpening(sql, tenant, id),
    saveFormAttempt: (id, trace, request) => saveFormAttempt(sql, tenant, id, trace, request),
    ...offsetOps(sqlOffsetCell(sql, tenant)),
  };
}

/** The tenant's rows of `db`, every statement naming the tenant. */
export function sqlStore(db: Db, tenant: string): ServiceStore {
  return { ...sqlOps(db, tenant), ...clockOps(db, tenant), transaction: (fn) => db.transaction((tx) => fn(sqlOps(tx, tenant))) };
}
