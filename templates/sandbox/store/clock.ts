// The sandbox clock's offset, kept across restarts (sandbox_meta).
import type { Sql } from "./sql.js";

export async function saveClockOffset(sql: Sql, offset: number): Promise<void> {
  await sql.query("INSERT INTO sandbox_meta (key, value) VALUES ('clockOffset', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [String(offset)]);
}

/** The stored offset, 0 when none is stored. */
export async function loadClockOffset(sql: Sql): Promise<number> {
  const rows = await sql.query("SELECT value FROM sandbox_meta WHERE key = 'clockOffset'");
  return rows[0] ? Number(rows[0].value) : 0;
}
