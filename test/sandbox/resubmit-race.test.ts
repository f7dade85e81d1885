// 475 under concurrency (issue 39): N resubmissions of the same rejected individual at once, through two
// instances on one database, make exactly one retry (200, attempt 2, pending, one history row, one
// webhook); every other answer is 475 submission_conflict and stores nothing. On Postgres (two instances,
// each with its own connection pool) the row lock of lockLatestResubmittable (`FOR UPDATE`) is what
// serialises them: with it removed this test fails there (N answers 200). PGlite runs one transaction at a
// time, so there the race is the same test without a lock to prove.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Db } from "../../templates/sandbox/store/index.js";
import { needPostgres, startPostgres, type LocalPostgres } from "../support/postgres.js";
import { call, v5Individual } from "./helpers.js";
import { harness, memoryDb, type Harness } from "./inprocess.js";

const N = 8;

/** Races N resubmissions of one rejected individual through the instances in turn; checks that exactly one won. */
async function race(instances: readonly Harness[], db: Db, userId: string): Promise<void> {
  const [first] = instances;
  const created = await call(first!.url, "POST", "/v5/verifications", v5Individual("Race Person", userId));
  expect(created.status).toBe(200);
  const trace = String(created.body.trace);
  expect((await call(first!.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "rejected" })).status).toBe(200);
  const before = (await db.query("SELECT count(*)::int AS n FROM outbox WHERE trace = $1", [trace]))[0]!.n as number;

  const answers = await Promise.all(
    Array.from({ length: N }, (_, i) => call(instances[i % instances.length]!.url, "POST", "/v5/verifications", v5Individual("Race Person", userId))),
  );
  const statuses = answers.map((a) => a.status).sort();
  expect(statuses).toEqual([200, ...Array(N - 1).fill(475)]);
  for (const a of answers.filter((x) => x.status === 475)) expect(a.body.error).toMatchObject({ type: "submission_conflict" });
  expect(answers.find((a) => a.status === 200)!.body.trace).toBe(trace);

  const row = (await db.query("SELECT verification_status, attempt FROM verifications WHERE trace = $1", [trace]))[0]!;
  expect([row.verification_status, Number(row.attempt)]).toEqual(["pending", 2]);
  const history = await db.query("SELECT verification_status FROM history WHERE trace = $1 ORDER BY at, verification_status", [trace]);
  expect(history.map((h) => h.verification_status).sort()).toEqual(["pending", "pending", "rejected"]);
  expect((await db.query("SELECT count(*)::int AS n FROM outbox WHERE trace = $1", [trace]))[0]!.n).toBe(before + 1);
  expect((await db.query("SELECT count(*)::int AS n FROM verifications WHERE user_id = $1", [userId]))[0]!.n).toBe(1);
}

describe("N resubmissions at once on PGlite, through two instances over one database", () => {
  let db: Db;
  const hs: Harness[] = [];
  beforeAll(async () => {
    db = await memoryDb();
    hs.push(await harness(db, { dispatch: false }), await harness(db, { dispatch: false }));
  }, 60_000);
  afterAll(async () => {
    for (const h of hs) await h.close();
    await db?.close();
  });

  it("exactly one wins (200), the rest are 475", async () => {
    await race(hs, db, "race-pglite-1");
    await race(hs, db, "race-pglite-2");
  }, 60_000);
});

const postgres = needPostgres();

describe.skipIf(!postgres.found)("N resubmissions at once on Postgres, through two instances (two pools) on one server", () => {
  let server: LocalPostgres | undefined;
  const dbs: Db[] = [];
  const hs: Harness[] = [];
  beforeAll(async () => {
    server = await startPostgres(postgres.tools);
    dbs.push(await openStore(server.url, process.cwd()), await openStore(server.url, process.cwd()));
    for (const db of dbs) hs.push(await harness(db, { dispatch: false }));
  }, 120_000);
  afterAll(async () => {
    for (const h of hs) await h.close();
    for (const db of dbs) await db.close();
    server?.stop();
  });

  it("exactly one wins (200), the rest are 475, in each of five rounds", async () => {
    for (let round = 0; round < 5; round++) await race(hs, dbs[0]!, `race-postgres-${round}`);
  }, 120_000);
});
