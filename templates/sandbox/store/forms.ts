// The hosted forms' statements (4.2, 8): create, lock for a transaction, count an opening, save an attempt.
// A form id is a capability (the form is opened without credentials): it is found by its id alone, and
// it belongs to the tenant that created it, whose verification its submission creates.
import type { Row, Sql } from "./sql.js";

export async function insertForm(sql: Sql, tenant: string, id: string, request: Record<string, unknown>, now: number): Promise<void> {
  await sql.query("INSERT INTO forms (tenant, id, request, created_at) VALUES ($1, $2, $3, $4)", [tenant, id, JSON.stringify(request), now]);
}

/** The tenant a form belongs to, or undefined when there is no such form. */
export async function formTenant(sql: Sql, id: string): Promise<string | undefined> {
  const rows = await sql.query("SELECT tenant FROM forms WHERE id = $1", [id]);
  return rows[0] ? String(rows[0].tenant) : undefined;
}

/** A hosted form as the service reads it: typed here, at the store's boundary. */
export interface HostedFormRow {
  /** The request it was created with, or the last one saved. */
  readonly request: Record<string, unknown>;
  readonly createdAt: number;
  readonly opensSinceSave: number;
  readonly attempts: number;
  /** The verification its first saved attempt created (its id), or null. */
  readonly trace: string | null;
}

/** A `forms` row (SQL or in memory) as a HostedFormRow. */
export function toHostedForm(row: Row): HostedFormRow {
  return {
    request: JSON.parse(String(row.request)) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    opensSinceSave: Number(row.opens_since_save),
    attempts: Number(row.attempts),
    trace: (row.trace as string | null) ?? null,
  };
}

/** The tenant's form, locked for the transaction, or undefined. */
export async function lockForm(sql: Sql, tenant: string, id: string): Promise<HostedFormRow | undefined> {
  const row = (await sql.query("SELECT * FROM forms WHERE tenant = $1 AND id = $2 FOR UPDATE", [tenant, id]))[0];
  return row ? toHostedForm(row) : undefined;
}

/** One more opening without a save. */
export async function countFormOpening(sql: Sql, tenant: string, id: string): Promise<void> {
  await sql.query("UPDATE forms SET opens_since_save = opens_since_save + 1 WHERE tenant = $1 AND id = $2", [tenant, id]);
}

/** A saved attempt: openings counted anew, the attempt counted, the verification and the saved request kept. */
export async function saveFormAttempt(sql: Sql, tenant: string, id: string, trace: string, request: Record<string, unknown>): Promise<void> {
  await sql.query("UPDATE forms SET opens_since_save = 0, attempts = attempts + 1, trace = $3, request = $4 WHERE tenant = $1 AND id = $2", [
    tenant,
    id,
    trace,
    JSON.stringify(request),
  ]);
}
