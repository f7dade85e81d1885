// Paged reads of the outbox and the verifications: a filter and a key position, one index range scan of
// at most `limit + 1` rows (the extra row tells the caller another page follows; indexes of migration 6,
// each leading with the tenant: a page holds the caller's rows only).
import { toOutboxRow, type OutboxRow } from "./outbox.js";
import { OUTBOX_ROW } from "./shared-text.js";
import type { Row, Sql } from "./sql.js";
import { toVerification, type Verification } from "./verifications.js";

/** Where a page starts and how long it is: rows after `after` on the key (exclusive), in key order. */
export interface PageRange {
  readonly limit: number;
  readonly after?: number;
  readonly ascending: boolean;
}

/** WHERE clauses and their parameters, numbered from $1; a clause whose value is undefined is left out. */
function where(parts: readonly [string, unknown][]): { sql: string; params: unknown[] } {
  const given = parts.filter(([, v]) => v !== undefined);
  return { sql: given.length ? `WHERE ${given.map(([c], i) => c.replace("?", `$${i + 1}`)).join(" AND ")}` : "", params: given.map(([, v]) => v) };
}

/** `columns` of `table` (aliased `t`). */
function pageRows(sql: Sql, table: string, columns: string, key: string, range: PageRange, filters: [string, unknown][]): Promise<Row[]> {
  const conditions = where([...filters, [`${key} ${range.ascending ? ">" : "<"} ?`, range.after]]);
  return sql.query(
    `SELECT ${columns} FROM ${table} t ${conditions.sql} ORDER BY ${key} ${range.ascending ? "ASC" : "DESC"} LIMIT ${Math.max(0, Math.floor(range.limit)) + 1}`,
    conditions.params,
  );
}

/** Outbox rows by id, filtered by trace, delivery state and the verification's userId. */
export async function outboxPageRows(
  sql: Sql,
  tenant: string,
  filter: { trace?: string; state?: string; userId?: string },
  range: PageRange,
): Promise<OutboxRow[]> {
  const rows =
    filter.userId !== undefined
      ? await outboxRowsOfUser(sql, tenant, filter.userId, filter, range)
      : await pageRows(sql, "outbox", OUTBOX_ROW("t"), "id", range, [
          ["tenant = ?", tenant],
          ["trace = ?", filter.trace],
          ["state = ?", filter.state],
        ]);
  return rows.map(toOutboxRow);
}

/**
 * A userId's page: for each of the user's verifications (verifications_user_set), its outbox rows from the
 * cursor on (outbox_trace), at most a page each, merged by id. Reads at most a page a verification of the
 * user, whatever the outbox holds; `trace IN (SELECT ...)` walked the whole outbox by id, filtering every
 * row (seconds at a million delivered rows: docs/engineering/sandbox-start.md).
 */
function outboxRowsOfUser(sql: Sql, tenant: string, userId: string, filter: { trace?: string; state?: string }, range: PageRange): Promise<Row[]> {
  const params: unknown[] = [tenant, userId];
  const inner = ["o.tenant = v.tenant", "o.trace = v.trace"];
  const add = (clause: string, value: unknown) => {
    if (value === undefined) return;
    params.push(value);
    inner.push(clause.replace("?", `$${params.length}`));
  };
  add("o.trace = ?", filter.trace);
  add("o.state = ?", filter.state);
  add(`o.id ${range.ascending ? ">" : "<"} ?`, range.after);
  const order = `ORDER BY o.id ${range.ascending ? "ASC" : "DESC"} LIMIT ${Math.max(0, Math.floor(range.limit)) + 1}`;
  return sql.query(
    `SELECT ${OUTBOX_ROW("o")} FROM verifications v CROSS JOIN LATERAL (SELECT * FROM outbox o WHERE ${inner.join(" AND ")} ${order}) o WHERE v.tenant = $1 AND v.user_id = $2 ${order}`,
    params,
  );
}

/** A verification of a page, and its position (`seq`: the order verifications were stored in). */
export interface VerificationPageRow {
  readonly seq: number;
  readonly verification: Verification;
}

/** Verification rows by seq, filtered by trace, userId and verification status. */
export async function verificationPageRows(
  sql: Sql,
  tenant: string,
  filter: { trace?: string; userId?: string; verificationStatus?: string },
  range: PageRange,
): Promise<VerificationPageRow[]> {
  const rows = await pageRows(sql, "verifications", "*", "seq", range, [
    ["tenant = ?", tenant],
    ["trace = ?", filter.trace],
    ["user_id = ?", filter.userId],
    ["verification_status = ?", filter.verificationStatus],
  ]);
  return rows.map((row) => ({ seq: Number(row.seq), verification: toVerification(row) }));
}
