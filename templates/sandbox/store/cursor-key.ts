// The key that seals the listings' cursors (browse.ts), kept in the shared store (sandbox_meta): made once
// by whichever instance asks first, so every instance on one database opens the cursors of the others
// and a restart keeps them valid. It never leaves the store and the process.
import { randomBytes } from "node:crypto";
import type { Sql } from "./sql.js";

const KEY = "cursorKey";

/** The database's cursor key (32 bytes), made on first use. */
export async function loadCursorKey(sql: Sql): Promise<Buffer> {
  await sql.query("INSERT INTO sandbox_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [KEY, randomBytes(32).toString("hex")]);
  const rows = await sql.query("SELECT value FROM sandbox_meta WHERE key = $1", [KEY]);
  return Buffer.from(String(rows[0]!.value), "hex");
}
