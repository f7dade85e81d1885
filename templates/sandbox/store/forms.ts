// The hosted forms' statements (4.2, 8): create, lock for a transaction, count an opening, save an attempt.
import type { Row, Sql } from "./sql.js";

export async function insertForm(sql: Sql, id: string, request: Record<string, unknown>, now: number): Promise<void> {
  await sql.query("INSERT INTO forms (id, request, created_at) VALUES ($1, $2, $3)", [id, JSON.stringify(request), now]);
}

/** The form's row, locked for the transaction, or undefined. */
export async function lockForm(sql: Sql, id: string): Promise<Row | undefined> {
  return (await sql.query("SELECT * FROM forms WHERE id = $1 FOR UPDATE", [id]))[0];
}

/** One more opening without a save. */
export async function countFormOpening(sql: Sql, id: string): Promise<void> {
  await sql.query("UPDATE forms SET opens_since_save = opens_since_save + 1 WHERE id = $1", [id]);
}

/** A saved attempt: openings counted anew, the attempt counted, the verification and the saved request kept. */
export async function saveFormAttempt(sql: Sql, id: string, trace: string, request: Record<string, unknown>): Promise<void> {
  await sql.query("UPDATE forms SET opens_since_save = 0, attempts = attempts + 1, trace = $2, request = $3 WHERE id = $1", [id, trace, JSON.stringify(request)]);
}
