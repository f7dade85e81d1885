// Retention's batch on a big store (templates/sandbox/store/retention.ts, migration 9): the oldest
// verifications are read in the order they are locked in, (updated_at, trace), straight from the index.
// Rows written in one group commit share their updated_at; with an index on updated_at alone each batch
// read and sorted every row of the oldest instant before taking the first (create + GET p99 3.3x during a
// sweep of a store filled at one instant, bench/growth.bench.ts, docs/engineering/speed-goals.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteOldVerifications } from "../../templates/sandbox/store/retention.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { memoryDb, planOf } from "./inprocess.js";

let db: Db;
beforeAll(async () => {
  db = await memoryDb();
  // 3,000 verifications written at one instant, and 1,000 later.
  await db.query(
    `INSERT INTO verifications (trace, api, submission_id, type, sub_type, name, country, request, verification_status, submission_status, attempt, outcome, created_at, updated_at)
     SELECT 'old-' || g, 'v5', 'sub-' || g, 'individual', 'data', 'Old Person', 'AUS', '{}', 'verified', 'completed', 1, 'verified', CASE WHEN g <= 3000 THEN 1000 ELSE 5000 END, CASE WHEN g <= 3000 THEN 1000 ELSE 5000 END
       FROM generate_series(1, 4000) g`,
  );
  await db.query("ANALYZE verifications");
}, 60_000);
afterAll(async () => {
  await db?.close();
});

describe("retention's batch of old verifications", () => {
  it("takes them in lock order from the index: no sort of the rows that share the oldest instant", async () => {
    const plan = await planOf(db, (explain) => deleteOldVerifications(explain, "default", 2000, 100));
    expect(plan).toMatch(/Index (Only )?Scan using verifications_updated/);
    expect(plan).not.toMatch(/Sort/);
  });

  it("deletes the batch asked for, oldest first in trace order, and leaves the rest", async () => {
    expect(await deleteOldVerifications(db, "default", 2000, 100)).toBe(100);
    const [left] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM verifications WHERE updated_at = 1000");
    expect(left!.n).toBe(2900);
    const gone = await db.query("SELECT 1 FROM verifications WHERE trace IN ('old-1', 'old-10', 'old-100')");
    expect(gone).toEqual([]); // the first three in text order
  });
});
