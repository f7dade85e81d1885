// A big text stored once (templates/sandbox/store/shared-text.ts, migration 8, issue 39 item 1): an outbox
// row's body leaves out the big string it shares with its verification's request, and every read puts it back
// byte-identical (the outbox listing, a delivery's claim, the latest webhook body, the portal's re-send, a
// page); a status change sends no big text to the database; a resubmission (new request) and retention
// (verification removed) first give the rows referring to the old request their whole body. On PGlite, on
// Postgres when its server programs are installed, and the memory store answering the same bodies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Db } from "../../templates/sandbox/store/index.js";
import { memoryStore } from "../../templates/sandbox/store/memory.js";
import { claimDue, latestWebhookBody, outboxBatch, outboxRowsOfTrace, requeueDelivery } from "../../templates/sandbox/store/outbox.js";
import { outboxPageRows } from "../../templates/sandbox/store/pages.js";
import { deleteOldVerifications } from "../../templates/sandbox/store/retention.js";
import { characters, longestString, SHARE_ABOVE, shareWithRequest } from "../../templates/sandbox/store/shared-text.js";
import { sqlStore } from "../../templates/sandbox/store/service-store.js";
import type { Sql } from "../../templates/sandbox/store/sql.js";
import { lockVerification, updateVerification } from "../../templates/sandbox/store/verifications.js";
import { needPostgres, startPostgres, type LocalPostgres } from "../support/postgres.js";
import { verificationRow as verification } from "./inprocess.js";

/** Over 64 KiB, with emoji, escapes and non-ASCII text at its ends. */
const big = (seed: string) => `é😀\\"\n${seed}${"z".repeat(70_000)}${seed}😀`;

/** A webhook body holding the request's inputRisk, with an emoji before it (characters and UTF-16 units differ). */
const webhook = (trace: string, status: string, inputRisk: unknown) =>
  JSON.stringify({ note: "😀 ✓", trace, inputRisk, verificationStatus: status, tail: "é" });

/** The texts equal one by one (compared without printing a megabyte when they differ: their lengths and the first difference instead). */
function same(got: readonly unknown[], want: readonly string[]): void {
  expect(got.map((g) => (typeof g === "string" ? g.length : g))).toEqual(want.map((w) => w.length));
  got.forEach((g, i) => {
    const w = want[i]!;
    const at = [...w].findIndex((_, j) => (g as string)[j] !== w[j]);
    expect(g === w, `text ${i} differs at ${at}: ${JSON.stringify((g as string).slice(at, at + 40))}`).toBe(true);
  });
}

/** The longest string a statement's parameters carry (arrays looked into). */
const longestParam = (params: readonly unknown[]) =>
  Math.max(0, ...params.flatMap((p) => (Array.isArray(p) ? p : [p])).map((p) => (typeof p === "string" ? p.length : 0)));

describe("where a body's shared string goes", () => {
  it("counts characters as Postgres does (a surrogate pair is one), cuts at the quoted string only when both texts hold it", () => {
    expect(characters("a😀b", 0, 4)).toBe(3);
    expect(characters("😀", 0, 1)).toBe(1);
    const inputRisk = big("x");
    const request = { inputRisk, short: "s" };
    const requestText = JSON.stringify(request);
    const body = webhook("t", "pending", inputRisk);
    const shared = shareWithRequest(body, request, requestText)!;
    const quoted = JSON.stringify(inputRisk);
    expect(shared.body).toBe(body.replace(quoted, ""));
    expect(shared.at).toBe(characters(body, 0, body.indexOf(quoted)));
    expect(shared.from).toBe(characters(requestText, 0, requestText.indexOf(quoted)) + 1);
    expect(shared.len).toBe(characters(quoted, 0, quoted.length));
    // Nothing shared: a small request, or a body without the request's string.
    expect(shareWithRequest(body, { inputRisk: "small" }, '{"inputRisk":"small"}')).toBeUndefined();
    expect(shareWithRequest(webhook("t", "pending", "other"), request, requestText)).toBeUndefined();
  });

  it("counts a pair only when a high half (\\ud800-\\udbff) is followed by a low half (\\udc00-\\udfff), from any start", () => {
    for (const pair of ["\ud800\udc00", "\udbff\udfff", "\ud800\udfff", "\udbff\udc00"]) expect(characters(pair, 0, 2), pair).toBe(1);
    // Just outside either range: two characters (lone halves count one each, as Postgres reads them).
    for (const two of ["\ud7ff\udc00", "\udc00\udc00", "\ud800\udbff", "\ud800\ue000", "a\udc00", "\ud800a"]) expect(characters(two, 0, 2), two).toBe(2);
    expect(characters("ab😀c", 1, 5)).toBe(3);
    expect(characters("ab😀c", 2, 4)).toBe(1);
    // A pair cut by `to` is not looked past.
    expect(characters("a😀", 0, 2)).toBe(2);
  });

  it("takes the longest big string wherever it is (not the last one walked), from exactly SHARE_ABOVE code units, past nulls", () => {
    const long = "l".repeat(SHARE_ABOVE + 2);
    const short = "s".repeat(SHARE_ABOVE + 1);
    expect(longestString({ a: long, b: short })).toBe(long);
    expect(longestString({ a: short, b: [null, long, 3, true] })).toBe(long);
    expect(longestString([long, { n: null }, short])).toBe(long);
    expect(longestString("x".repeat(SHARE_ABOVE))).toBe("x".repeat(SHARE_ABOVE));
    expect(longestString({ a: "x".repeat(SHARE_ABOVE - 1), b: null })).toBeUndefined();
    // Of two as long, the first the walk meets is kept (an object's values are walked last first).
    expect(longestString({ a: "a".repeat(SHARE_ABOVE), b: "b".repeat(SHARE_ABOVE) })).toBe("b".repeat(SHARE_ABOVE));
  });

  it("shares a string found at the very start of either text, and nothing when the request has no big string", () => {
    const value = big("s");
    const quoted = JSON.stringify(value);
    // The body and the stored request both begin with the quoted string (a request that is the string itself).
    expect(shareWithRequest(`${quoted},1`, value, quoted)).toEqual({ body: ",1", at: 0, from: 1, len: characters(quoted, 0, quoted.length) });
    // No big string: nothing is looked for, even where both texts hold the word "undefined".
    expect(shareWithRequest('{"a":"undefined"}', { a: "undefined" }, '{"a":"undefined"}')).toBeUndefined();
  });
});

/** The whole story on one database: every read answers the exact body; the big text is stored once and never sent again for a status change. */
async function storedOnce(db: Db, tenant: string): Promise<void> {
  const store = sqlStore(db, tenant);
  const inputRisk = big("a");
  const trace = `${tenant}-t`;
  const first = webhook(trace, "pending", inputRisk);
  await store.insertVerifications([{ v: verification(trace, { type: "individual", inputRisk }), trigger: "create" }], {
    rows: [[`${tenant}-d1`, trace, "http://127.0.0.1:9/hook", "v5", first, 1]],
    signatureVersion: "2",
  });
  // Stored once: the outbox row holds the body without the big string.
  const raw = await db.query("SELECT char_length(body) AS n, body_from FROM outbox WHERE tenant = $1 AND trace = $2", [tenant, trace]);
  expect(Number(raw[0]!.n)).toBeLessThan(200);
  expect(raw[0]!.body_from).not.toBeNull();
  same(
    (await outboxRowsOfTrace(db, tenant, trace)).map((r) => r.body),
    [first],
  );
  same([await latestWebhookBody(db, tenant, trace)], [first]);
  const now = Date.now() + 60_000;
  same(
    (await claimDue(db, now, 100, "owner", now + 60_000)).filter((r) => r.tenant === tenant).map((r) => r.body),
    [first],
  );
  same(
    (await outboxPageRows(db, tenant, { trace }, { limit: 10, ascending: true })).map((r) => r.body),
    [first],
  );

  // A status change: the request read back is not sent again, its webhook shares the stored text.
  const seen: unknown[][] = [];
  const second = webhook(trace, "approved", inputRisk);
  await db.transaction(async (tx) => {
    const spy: Sql = { query: (text, params) => (seen.push([...(params ?? [])]), tx.query(text, params)) };
    const v = (await lockVerification(spy, tenant, trace))!;
    seen.length = 0;
    const next = { ...v, verificationStatus: "approved", updatedAt: 2 };
    await updateVerification(spy, tenant, next, "complete", outboxBatch([[`${tenant}-d2`, trace, "http://127.0.0.1:9/hook", "v5", second, 2]], "2", 2));
  });
  expect(longestParam(seen.flat())).toBeLessThan(200);
  same(
    (await outboxRowsOfTrace(db, tenant, trace)).map((r) => r.body),
    [first, second],
  );
  same(
    [(await db.query("SELECT request FROM verifications WHERE tenant = $1 AND trace = $2", [tenant, trace]))[0]!.request],
    [JSON.stringify({ type: "individual", inputRisk })],
  );

  // The portal's re-send keeps the exact bytes.
  expect(await requeueDelivery(db, tenant, `${tenant}-d2`, 3)).toBe(1);
  same(
    (await outboxRowsOfTrace(db, tenant, trace)).map((r) => r.body),
    [first, second, second],
  );

  // A resubmission replaces the request: the rows referring to the old one keep their bodies, whole now.
  const otherRisk = big("b");
  const third = webhook(trace, "pending", otherRisk);
  await store.transaction(async (tx) => {
    const v = (await tx.lockVerification(trace))!;
    await tx.updateVerification({ ...v, request: { type: "individual", inputRisk: otherRisk }, attempt: 2, updatedAt: 4 }, "resubmit", {
      rows: [[`${tenant}-d3`, trace, "http://127.0.0.1:9/hook", "v5", third, 4]],
      signatureVersion: "2",
    });
  });
  same(
    (await outboxRowsOfTrace(db, tenant, trace)).map((r) => r.body),
    [first, second, second, third],
  );
  const refs = await db.query("SELECT body_from FROM outbox WHERE tenant = $1 AND trace = $2 ORDER BY id", [tenant, trace]);
  expect(refs.map((r) => r.body_from === null)).toEqual([true, true, true, false]);

  // Retention removes the verification: its outbox rows keep their bodies.
  expect(await deleteOldVerifications(db, tenant, 1_000, 10)).toBe(1);
  same(
    (await outboxRowsOfTrace(db, tenant, trace)).map((r) => r.body),
    [first, second, second, third],
  );
  same([await latestWebhookBody(db, tenant, trace)], [third]);
}

describe("a big text stored once on PGlite", { timeout: 120_000 }, () => {
  let db: Db;
  beforeAll(async () => {
    db = await openStore("memory", process.cwd());
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it("every read answers the exact body; a status change sends no big text; resubmission and retention keep the bodies", async () => {
    await storedOnce(db, "shared-pglite");
  });

  it("the memory store answers the same bodies", async () => {
    const store = memoryStore();
    const inputRisk = big("m");
    const body = webhook("m", "pending", inputRisk);
    await store.insertVerifications([{ v: verification("m", { inputRisk }), trigger: "create" }], {
      rows: [["m1", "m", null, "v5", body, 1]],
      signatureVersion: "2",
    });
    same([await store.latestWebhookBody("m")], [body]);
    const second = webhook("m", "approved", inputRisk);
    await store.updateVerification(verification("m", { inputRisk }, { verificationStatus: "approved" }), "complete", {
      rows: [["m2", "m", null, "v5", second, 2]],
      signatureVersion: "2",
    });
    same([await store.latestWebhookBody("m")], [second]);
  });
});

const postgres = needPostgres();

describe.skipIf(!postgres.found)("a big text stored once on Postgres", { timeout: 180_000 }, () => {
  let server: LocalPostgres | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    server = await startPostgres(postgres.tools);
    db = await openStore(server.url, process.cwd());
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    server?.stop();
  });

  it("every read answers the exact body; a status change sends no big text; resubmission and retention keep the bodies", async () => {
    await storedOnce(db!, "shared-postgres");
  });
});
