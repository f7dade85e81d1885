// The verifications' statements: create (with history and webhooks in one statement), change, the
// lookups the behaviour needs (locked for its transaction where it changes what it read), and the listings.
// Every statement names its tenant (the account, migration 6) in its WHERE clause: another account's row
// is never read, so it answers exactly as a row that does not exist.
import type { Row, Sql } from "./sql.js";
import { OUTBOX_INSERT, toWrittenOutboxRow, type OutboxBatch, type WrittenOutboxRow } from "./outbox.js";
import { MATERIALIZE, readRequest, shareWithRequest, storedRequestText } from "./shared-text.js";

export type Api = "v5" | "older";

/** A verification as stored. The status fields keep the payload's names, so conditions read them directly. */
export interface Verification {
  readonly trace: string;
  readonly api: Api;
  readonly userId: string | null;
  readonly submissionId: string;
  readonly parentTrace: string | null;
  readonly roles: readonly string[] | null;
  readonly type: string;
  readonly subType: string | null;
  readonly name: string;
  readonly country: string | null;
  readonly request: Record<string, unknown>;
  readonly verificationStatus: string;
  readonly submissionStatus: string;
  readonly attempt: number;
  readonly maxAttempts: number | null;
  readonly outcome: string;
  readonly dueAt: number | null;
  readonly formId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const json = (v: unknown) => JSON.stringify(v);

export function toVerification(row: Row): Verification {
  return {
    trace: String(row.trace),
    api: row.api as Api,
    userId: (row.user_id as string | null) ?? null,
    submissionId: String(row.submission_id),
    parentTrace: (row.parent_trace as string | null) ?? null,
    roles: row.roles ? (JSON.parse(String(row.roles)) as string[]) : null,
    type: String(row.type),
    subType: (row.sub_type as string | null) ?? null,
    name: String(row.name),
    country: (row.country as string | null) ?? null,
    request: readRequest(String(row.trace), String(row.request)),
    verificationStatus: String(row.verification_status),
    submissionStatus: String(row.submission_status),
    attempt: Number(row.attempt),
    maxAttempts: num(row.max_attempts),
    outcome: String(row.outcome),
    dueAt: num(row.due_at),
    formId: (row.form_id as string | null) ?? null,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const DUE_CONDITION = "tenant = $3 AND due_at IS NOT NULL AND due_at <= $1 AND verification_status = $2";

/** The userId of a verification (a stakeholder's parent), or null. */
export async function userIdOf(sql: Sql, tenant: string, trace: string): Promise<string | null> {
  const rows = await sql.query("SELECT user_id FROM verifications WHERE tenant = $1 AND trace = $2", [tenant, trace]);
  return (rows[0]?.user_id as string | null) ?? null;
}

/** New verifications, their history rows and their webhooks in the outbox: one statement. The outbox rows written. */
export async function insertVerifications(
  sql: Sql,
  tenant: string,
  items: readonly { v: Verification; trigger: string }[],
  outbox: OutboxBatch,
): Promise<WrittenOutboxRow[]> {
  const column = (field: (v: Verification) => unknown) => items.map(({ v }) => field(v));
  const requests = column((v) => json(v.request)) as string[];
  shareBodies(outbox, new Map(items.map(({ v }, i) => [v.trace, { request: v.request, text: requests[i]! }])));
  const written = await sql.query(
    `WITH v AS (
       INSERT INTO verifications (tenant, trace, api, user_id, submission_id, parent_trace, roles, type, sub_type, name, country, request,
         verification_status, submission_status, attempt, max_attempts, outcome, due_at, form_id, created_at, updated_at)
       SELECT $22::text, * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
         $12::text[], $13::text[], $14::int[], $15::int[], $16::text[], $17::bigint[], $18::text[], $19::bigint[], $20::bigint[])),
     h AS (INSERT INTO history (tenant, trace, verification_status, submission_status, attempt, trigger, at)
       SELECT $22::text, * FROM unnest($1::text[], $12::text[], $13::text[], $14::int[], $21::text[], $20::bigint[]))
     ${OUTBOX_INSERT(22)}`,
    [
      column((v) => v.trace),
      column((v) => v.api),
      column((v) => v.userId),
      column((v) => v.submissionId),
      column((v) => v.parentTrace),
      column((v) => (v.roles ? json(v.roles) : null)),
      column((v) => v.type),
      column((v) => v.subType),
      column((v) => v.name),
      column((v) => v.country),
      requests,
      column((v) => v.verificationStatus),
      column((v) => v.submissionStatus),
      column((v) => v.attempt),
      column((v) => v.maxAttempts),
      column((v) => v.outcome),
      column((v) => v.dueAt),
      column((v) => v.formId),
      column((v) => v.createdAt),
      column((v) => v.updatedAt),
      items.map((i) => i.trigger),
      tenant,
      ...(outbox ?? []),
    ],
  );
  return written.map(toWrittenOutboxRow);
}

/**
 * A change of a verification, its history row and its webhook in the outbox (none without `outbox`): one statement.
 * A request read from the store and not replaced is not written again; a new one first gives the outbox rows
 * referring to the old one their whole body (shared-text.ts).
 */
export async function updateVerification(sql: Sql, tenant: string, next: Verification, trigger: string, outbox: OutboxBatch | undefined): Promise<void> {
  const kept = storedRequestText(next.trace, next.request);
  const request = kept ?? json(next.request);
  if (outbox) shareBodies(outbox, new Map([[next.trace, { request: next.request, text: request }]]));
  await sql.query(
    `WITH m AS (${MATERIALIZE("$8::text IS NOT NULL AND o.tenant = $13::text AND o.trace = $1")}),
     v AS (
       UPDATE verifications SET verification_status = $2, submission_status = $3, attempt = $4, max_attempts = $5, outcome = $6,
         due_at = $7, request = COALESCE($8, request), updated_at = $9, name = $11, country = $12 WHERE tenant = $13::text AND trace = $1),
     h AS (INSERT INTO history (tenant, trace, verification_status, submission_status, attempt, trigger, at) VALUES ($13::text, $1, $2, $3, $4, $10, $9))
     ${outbox ? OUTBOX_INSERT(13, true) : "SELECT 1"}`,
    [
      next.trace,
      next.verificationStatus,
      next.submissionStatus,
      next.attempt,
      next.maxAttempts,
      next.outcome,
      next.dueAt,
      kept === undefined ? request : null,
      next.updatedAt,
      trigger,
      next.name,
      next.country,
      tenant,
      ...(outbox ?? []),
    ],
  );
}

/** Each outbox body of `outbox` (an OutboxBatch) without the big string it shares with its verification's request, and where that goes. */
function shareBodies(outbox: OutboxBatch, requests: ReadonlyMap<string, { request: unknown; text: string }>): void {
  const [traces, bodies, at, from, len] = [1, 4, 8, 9, 10].map((i) => outbox[i] as unknown[]);
  traces!.forEach((trace, i) => {
    const request = requests.get(String(trace));
    const shared = request && shareWithRequest(String(bodies![i]), request.request, request.text);
    if (!shared) return;
    [bodies![i], at![i], from![i], len![i]] = [shared.body, shared.at, shared.from, shared.len];
  });
}

/** The kind of verification a v5 create resubmits (the binding's `resubmittable`: statuses.yaml conditions). */
export interface ResubmittableKind {
  readonly type: string;
  readonly subType: string;
}

/** The latest top-level v5 verification of `kind` of a userId, locked for the transaction: the one a resubmission retries. */
export async function lockLatestResubmittable(sql: Sql, tenant: string, userId: string, kind: ResubmittableKind): Promise<Verification | undefined> {
  const rows = await sql.query(
    "SELECT * FROM verifications WHERE tenant = $1 AND user_id = $2 AND api = 'v5' AND parent_trace IS NULL AND type = $3 AND sub_type = $4 ORDER BY seq DESC LIMIT 1 FOR UPDATE",
    [tenant, userId, kind.type, kind.subType],
  );
  return rows[0] ? toVerification(rows[0]) : undefined;
}

/** The stakeholder verifications of an entity. */
export async function childrenOf(sql: Sql, tenant: string, trace: string): Promise<Verification[]> {
  return (await sql.query("SELECT * FROM verifications WHERE tenant = $1 AND parent_trace = $2", [tenant, trace])).map(toVerification);
}

export async function findVerification(sql: Sql, tenant: string, trace: string): Promise<Verification | undefined> {
  const rows = await sql.query("SELECT * FROM verifications WHERE tenant = $1 AND trace = $2", [tenant, trace]);
  return rows[0] ? toVerification(rows[0]) : undefined;
}

/** A verification (of one interface, when `api` is given), locked for the transaction. */
export async function lockVerification(sql: Sql, tenant: string, trace: string, api?: Api): Promise<Verification | undefined> {
  const rows =
    api === undefined
      ? await sql.query("SELECT * FROM verifications WHERE tenant = $1 AND trace = $2 FOR UPDATE", [tenant, trace])
      : await sql.query("SELECT * FROM verifications WHERE tenant = $1 AND trace = $2 AND api = $3 FOR UPDATE", [tenant, trace, api]);
  return rows[0] ? toVerification(rows[0]) : undefined;
}

/** Verifications in `status` whose processing is due at `now`, locked (skipping those another transaction holds). */
export async function claimDueVerifications(sql: Sql, tenant: string, now: number, status: string, limit: number): Promise<Verification[]> {
  const rows = await sql.query(
    `SELECT * FROM verifications WHERE ${DUE_CONDITION} ORDER BY due_at LIMIT ${Math.max(0, Math.floor(limit))} FOR UPDATE SKIP LOCKED`,
    [now, status, tenant],
  );
  return rows.map(toVerification);
}

/** The trace of an older-interface verification by trace, or the latest one of a userId. */
export async function olderTraceOf(sql: Sql, tenant: string, key: { trace?: string; userId?: string }): Promise<string | undefined> {
  const rows =
    key.trace !== undefined
      ? await sql.query("SELECT trace FROM verifications WHERE tenant = $1 AND trace = $2 AND api = 'older'", [tenant, key.trace])
      : await sql.query("SELECT trace FROM verifications WHERE tenant = $1 AND user_id = $2 AND api = 'older' ORDER BY seq DESC LIMIT 1", [tenant, key.userId]);
  return rows[0] ? String(rows[0].trace) : undefined;
}

/** The newest verifications, newest first. */
export async function latestVerifications(sql: Sql, tenant: string, limit: number): Promise<Verification[]> {
  return (await sql.query("SELECT * FROM verifications WHERE tenant = $1 ORDER BY seq DESC LIMIT $2", [tenant, limit])).map(toVerification);
}

const HISTORY_COLUMNS = "verification_status, submission_status, attempt, trigger, at";

/** One entry of a verification's history. Its keys are the control API's (its history entries are these rows as they are). */
export interface HistoryRow {
  readonly verification_status: string;
  readonly submission_status: string;
  readonly attempt: number;
  readonly trigger: string;
  readonly at: number;
}

/** A history row (SQL or in memory) as a HistoryRow: these five keys only, in this order. */
export function toHistoryRow(row: Row): HistoryRow {
  return {
    verification_status: String(row.verification_status),
    submission_status: String(row.submission_status),
    attempt: Number(row.attempt),
    trigger: String(row.trigger),
    at: Number(row.at),
  };
}

/** A verification's history, oldest first. */
export async function historyOf(sql: Sql, tenant: string, trace: string): Promise<HistoryRow[]> {
  return (await sql.query(`SELECT ${HISTORY_COLUMNS} FROM history WHERE tenant = $1 AND trace = $2 ORDER BY id`, [tenant, trace])).map(toHistoryRow);
}

/** The histories of these verifications (a page's), oldest first each, in one statement: by trace, empty for a trace without any. */
export async function historiesOf(sql: Sql, tenant: string, traces: readonly string[]): Promise<Map<string, HistoryRow[]>> {
  const histories = new Map<string, HistoryRow[]>(traces.map((trace) => [trace, []]));
  if (!traces.length) return histories;
  const rows = await sql.query(`SELECT trace, ${HISTORY_COLUMNS} FROM history WHERE tenant = $1 AND trace = ANY($2::text[]) ORDER BY id`, [tenant, traces]);
  for (const row of rows) histories.get(String(row.trace))?.push(toHistoryRow(row));
  return histories;
}
