// The test clock is data in the shared store (issue 39, item 2): two instances on one database tell the
// same time. The clock advanced through one is the other's at its next request (no restart), the same
// 31-day-old hosted form is 410 through both, two advances at once through both both count, and each
// tenant's offset is its own. On PGlite (two instances in-process over one database) and on Postgres
// (two `verispec sandbox` processes on one server).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advanceClockOffset, loadClockOffset } from "../../templates/sandbox/store/clock.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { needPostgres, startPostgres, type LocalPostgres } from "../support/postgres.js";
import { CREDENTIALS, request, startSandbox, type Sandbox } from "./helpers.js";
import { harness, memoryDb, type Harness } from "./inprocess.js";

const DAY = 86_400_000;
const auth = { authorization: `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}` };

/** A hosted form (older /idform) created through `base`; its id. */
async function newForm(base: string, userId: string): Promise<string> {
  const r = await request(base, "POST", "/idform", {
    metadata_version: "4",
    metadata_serviceUid: CREDENTIALS.serviceUid,
    metadata_secretKey: CREDENTIALS.secret,
    metadata_userId: userId,
    serviceLink_dataAccessType: "idForm",
    type: "soleTrader",
    fields: { country: "AUS", name: "Clock Trader", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
  });
  expect(r.status).toBe(200);
  return String(r.body.verificationUuid);
}

const formStatus = async (base: string, id: string) => (await fetch(`${base}/_form/${id}`)).status;
const offsetThrough = async (base: string) => (await request(base, "GET", "/_sandbox/state", undefined, auth)).body.clockOffsetMs as number;
const advance = (base: string, ms: number) => request(base, "POST", "/_sandbox/clock", { advanceMs: ms }, auth);

/** What must hold of two instances `a` and `b` on one database (their URLs), whose clocks start at the same stored offset. */
async function sharedClock(a: string, b: string, userId: string): Promise<void> {
  const start = await offsetThrough(a);
  expect(await offsetThrough(b)).toBe(start);
  const form = await newForm(a, userId);
  expect([await formStatus(a, form), await formStatus(b, form)]).toEqual([200, 200]);
  // Advanced through one: the other tells the new time at its next request, and refuses the form too.
  expect((await advance(a, 31 * DAY + 1000)).status).toBe(200);
  expect(await offsetThrough(b)).toBe(start + 31 * DAY + 1000);
  expect([await formStatus(b, form), await formStatus(a, form)]).toEqual([410, 410]);
  // Advances through both at once: each counts (one statement in the store, not read-then-write).
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => advance(i % 2 ? a : b, 1000)));
  expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
  expect(new Set(answers.map((r) => r.body.clockOffsetMs)).size).toBe(10);
  const end = start + 31 * DAY + 11_000;
  expect([await offsetThrough(a), await offsetThrough(b)]).toEqual([end, end]);
}

describe("the shared clock on PGlite: two instances over one database", () => {
  let db: Db;
  let one: Harness;
  let two: Harness;
  beforeAll(async () => {
    db = await memoryDb();
    one = await harness(db, { dispatch: false });
    two = await harness(db, { dispatch: false });
  }, 60_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await db?.close();
  });

  it("advanced through one, the other tells the same time; the 31-day form is 410 through both", async () => {
    await sharedClock(one.url, two.url, "clock-pglite");
  }, 60_000);

  it("processing by the other instance goes by the advanced clock", async () => {
    const before = two.clock.offset;
    await one.service.advanceClock(5000);
    await two.process();
    expect(two.clock.offset).toBe(before + 5000);
  });

  it("each tenant's offset is its own; an advance past the maximum changes nothing", async () => {
    expect(await advanceClockOffset(db, "tenant-a", 500, 10_000)).toBe(500);
    expect(await advanceClockOffset(db, "tenant-a", 700, 10_000)).toBe(1200);
    expect(await advanceClockOffset(db, "tenant-b", 0, 10_000)).toBe(0);
    expect(await advanceClockOffset(db, "tenant-a", 9000, 10_000)).toBeUndefined();
    expect(await advanceClockOffset(db, "tenant-c", 10_001, 10_000)).toBeUndefined();
    expect([await loadClockOffset(db, "tenant-a"), await loadClockOffset(db, "tenant-b"), await loadClockOffset(db, "tenant-c")]).toEqual([1200, 0, 0]);
  });
});

const postgres = needPostgres();

describe.skipIf(!postgres.found)("the shared clock on Postgres: two sandbox processes on one server", () => {
  let server: LocalPostgres | undefined;
  const sandboxes: Sandbox[] = [];
  beforeAll(async () => {
    server = await startPostgres(postgres.tools);
    const args = ["--db", server.url, "--processing-ms", "manual"];
    sandboxes.push(await startSandbox(args));
    sandboxes.push(await startSandbox(args));
  }, 120_000);
  afterAll(async () => {
    for (const s of sandboxes) await s.stop();
    server?.stop();
  });

  it("advanced through one, the other tells the same time without a restart; the 31-day form is 410 through both", async () => {
    await sharedClock(sandboxes[0]!.url, sandboxes[1]!.url, "clock-postgres");
  }, 60_000);
});
