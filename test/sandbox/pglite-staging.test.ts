// Big text parameters sent to the embedded database in parts (templates/sandbox/store/pglite-staging.ts,
// issue 39 item 1): the parts join back to the exact text (surrogate pairs never split), the statement's
// references are rewritten and nothing else, what a create stores is byte-identical to the text sent, and
// another statement sent while a big text is staged is answered before the big statement ends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import {
  batches,
  codeRanges,
  needsStaging,
  PART,
  partsOf,
  type Query,
  rewrite,
  STAGE_ABOVE,
  stagedRows,
  stagingQuery,
} from "../../templates/sandbox/store/pglite-staging.js";
import { openStore, type Db } from "../../templates/sandbox/store/index.js";
import { sqlStore } from "../../templates/sandbox/store/service-store.js";
import { BODY } from "../../templates/sandbox/store/shared-text.js";
import { verificationRow as verification } from "./inprocess.js";

describe("parts of a text", () => {
  it("join back to the text, each at most PART code units, never splitting a surrogate pair", () => {
    // An emoji (two code units) straddling every part boundary when the text is cut at PART.
    const text = `${"a".repeat(PART - 1)}😀${"b".repeat(PART - 2)}😀😀${"é".repeat(100)}`;
    const parts = partsOf(text);
    expect(parts.join("")).toBe(text);
    expect(parts.length).toBe(3);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(PART);
      // No lone half of a pair at either end: the part encodes to UTF-8 and back unchanged.
      expect(Buffer.from(p, "utf8").toString("utf8")).toBe(p);
    }
    expect(partsOf("")).toEqual([""]);
    expect(partsOf("😀", 1)).toEqual(["😀"]); // a part of one pair stays whole
    expect(partsOf("a😀", 1)).toEqual(["a", "😀"]);
  });

  it("a part ends before a pair's first half only: the range's two ends, a lone half at the text's end, other characters", () => {
    expect(partsOf("a\ud800\udc00b", 2)).toEqual(["a", "\ud800\udc00", "b"]);
    expect(partsOf("a\udbff\udfffb", 2)).toEqual(["a", "\udbff\udfff", "b"]);
    expect(partsOf("ab\ud800", 3)).toEqual(["ab\ud800"]);
    expect(partsOf("a\uff71b", 2)).toEqual(["a\uff71", "b"]);
    expect(partsOf("a\udc00b", 2)).toEqual(["a\udc00", "b"]);
  });

  it("only a text longer than STAGE_ABOVE, or a text[] holding one, is staged", () => {
    const big = "x".repeat(STAGE_ABOVE + 1);
    expect(needsStaging("x".repeat(STAGE_ABOVE))).toBe(false);
    expect(needsStaging(big)).toBe(true);
    expect(needsStaging([null, "a", big])).toBe(true);
    expect(needsStaging([1, big])).toBe(false);
    expect(needsStaging(["a", "b"])).toBe(false);
    expect(needsStaging(42)).toBe(false);
  });

  it("an array's null element is one row with a null part; batches carry at most PART characters", () => {
    const rows = stagedRows("k", ["a", null, "y".repeat(PART * 2 + 1)]);
    expect(rows.slice(0, 2)).toEqual([
      ["k", 0, 0, "a"],
      ["k", 1, 0, null],
    ]);
    expect(rows.filter((r) => r[1] === 2).map((r) => r[2])).toEqual([0, 1, 2]);
    const grouped = batches(rows);
    expect(grouped.flat()).toEqual(rows);
    for (const b of grouped) expect(b.reduce((n, r) => n + (r[3]?.length ?? 0), 0)).toBeLessThanOrEqual(PART);
    expect(grouped.map((b) => b.length)).toEqual([2, 1, 1, 1]);
    // Rows of exactly PART characters together share a statement; a text is one element, 0.
    expect(batches(stagedRows("k", ["a", "y".repeat(PART - 1)])).map((b) => b.length)).toEqual([2]);
    expect(stagedRows("k", "abc")).toEqual([["k", 0, 0, "abc"]]);
  });

  it("the rewrite replaces the staged parameters' references only ($2, not $20)", () => {
    const sql = rewrite("SELECT $2::text[], $20, $2, $1", new Map([[2, true]]));
    expect(sql).not.toMatch(/\$2(?!\d)(?!::text GROUP)/);
    expect(sql).toContain("$20");
    expect(sql).toContain("$1");
    expect(sql.match(/array_agg/g)).toHaveLength(2);
    expect(rewrite("VALUES ($1)", new Map([[1, false]]))).toMatch(/^VALUES \(\(SELECT v FROM \(SELECT i, string_agg/);
  });

  it("the rewrite never replaces a $n inside a string literal, a quoted identifier, a dollar-quoted string or a comment", () => {
    const staged = new Map([[1, false]]);
    const untouched = [
      "SELECT '$1'",
      "SELECT 'it''s $1'",
      "SELECT E'\\' $1'",
      'SELECT "$1" FROM t',
      'SELECT "a""$1"',
      "SELECT $$ $1 $$",
      "SELECT $tag$ it's $1 $tag$",
      "SELECT 1 -- $1",
      "SELECT /* $1 /* $1 */ $1 */ 1",
      "SELECT /* a*b $1 */ 1",
      "$$ $1 $$",
    ];
    for (const sql of untouched) expect(rewrite(sql, staged), sql).toBe(sql);
    // The reference after each such span is replaced (the span ended where it should).
    for (const sql of untouched.map((s) => `${s}\n, $1`)) {
      const out = rewrite(sql, staged);
      expect(out.startsWith(sql.slice(0, -3)), sql).toBe(true);
      expect(out.endsWith("s)"), sql).toBe(true);
    }
    // A quote inside a plain literal ends it there: 'a\' is a whole literal, so the $1 after it is code.
    expect(rewrite("SELECT 'a\\', $1", staged)).not.toContain("$1,");
    expect(rewrite("SELECT 'a\\', $1", staged)).toMatch(/string_agg/);
    // An identifier holding $ (x$1) is not a parameter; $1 right after an operator is.
    expect(rewrite("SELECT x$1", staged)).toBe("SELECT x$1");
    expect(rewrite("SELECT 1+$1", staged)).toMatch(/^SELECT 1\+\(SELECT v/);
    // Code that looks like the start of a span and is not: each $1 here is a parameter.
    for (const sql of [
      "SELECT ('a\\', $1)", // a backslash ends nothing in a plain literal
      "'a\\', $1",
      "SELECT date'a\\', $1", // a typed literal: the e before the quote ends a word
      "E'a\\'', $1", // an escape string at the start: \' is a quote inside it
      "SELECT 1-$1", // one - is an operator, not a comment
      "SELECT 1/$1",
      "SELECT /* a/b */ $1",
      "SELECT a$b$, $1", // $ inside a word is no dollar quote
      "SELECT $1, $$x$$",
    ])
      expect(rewrite(sql, staged), sql).toMatch(/\(SELECT v FROM/);
  });

  it("codeRanges: the spans between quoted and commented ones, an unclosed one running to the end", () => {
    const sql = "a 'b' c \"d\" e -- f\ng /* h */ i $x$ j $x$ k 'unclosed";
    expect(codeRanges(sql).map(([f, t]) => sql.slice(f, t))).toEqual(["a ", " c ", " e ", "g ", " i ", " k "]);
    // No empty range where a span starts the text or follows another.
    expect(codeRanges("'a''b' c")).toEqual([[6, 8]]);
    expect(codeRanges("'a'\"b\" c")).toEqual([[6, 8]]);
  });
});

// stagingQuery over a PGlite on this thread, every statement recorded: what it sends, not only what is stored
// (the store's own PGlite runs on a thread of its own).
describe("the statements of stagingQuery", { timeout: 60_000 }, () => {
  let pg: PGlite;
  let sent: { text: string; params: readonly unknown[] }[];
  let failCreate = false;
  const raw: Query = async (text, params = []) => {
    sent.push({ text, params });
    if (failCreate && text.startsWith("CREATE")) throw new Error("create refused");
    return (await pg.query(text, params as unknown[])).rows as never;
  };
  const kinds = () => sent.map(({ text }) => /^\w+/.exec(text)![0]);
  const stagedCount = async () => (await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_temp.verispec_staged")).rows[0]!.n;
  beforeAll(async () => {
    pg = await PGlite.create();
  }, 60_000);
  afterAll(async () => {
    await pg?.close();
  });

  it("a statement without a big text is sent as it is, alone", async () => {
    sent = [];
    const query = stagingQuery(raw);
    expect(await query("SELECT $1::text AS v", ["x".repeat(STAGE_ABOVE)])).toEqual([{ v: "x".repeat(STAGE_ABOVE) }]);
    expect(sent).toEqual([{ text: "SELECT $1::text AS v", params: ["x".repeat(STAGE_ABOVE)] }]);
  });

  it("a big text: the table made once, one insert a batch, the statement reading it back, then TRUNCATE", async () => {
    sent = [];
    const query = stagingQuery(raw);
    const big = `${"x".repeat(PART)}y`;
    expect(await query("SELECT $1::text AS v, $2::int AS n", [big, 7])).toEqual([{ v: big, n: 7 }]);
    expect(kinds()).toEqual(["CREATE", "INSERT", "INSERT", "SELECT", "TRUNCATE"]);
    expect(sent[0]!.text).toMatch(/^CREATE TEMP TABLE IF NOT EXISTS pg_temp\.verispec_staged /);
    const key = (sent[1]!.params[0] as string[])[0];
    expect(sent.slice(1, 3).map((s) => s.params)).toEqual([
      [[key], [0], [0], ["x".repeat(PART)]],
      [[key], [0], [1], ["y"]],
    ]);
    expect(sent[3]!.params).toEqual([key, 7]);
    expect(sent[4]!.text).toBe("TRUNCATE pg_temp.verispec_staged");
    expect(await stagedCount()).toBe(0);
    await query("SELECT $1::text[] AS v", [[big, null]]);
    expect(kinds().filter((k) => k === "CREATE")).toHaveLength(1);
  });

  it("two at once: the first to end deletes its own keys, the last truncates; each reads its own text", async () => {
    sent = [];
    const query = stagingQuery(raw);
    const one = `1${"a".repeat(STAGE_ABOVE)}`;
    const two = `2${"b".repeat(STAGE_ABOVE)}`;
    const answers = await Promise.all([query("SELECT $1::text AS v", [one]), query("SELECT $1::text AS v", [two])]);
    expect(answers).toEqual([[{ v: one }], [{ v: two }]]);
    const keys = sent.filter((s) => s.text.startsWith("INSERT")).map((s) => (s.params[0] as string[])[0]);
    expect(new Set(keys).size).toBe(2);
    const ends = sent.filter((s) => /^(DELETE|TRUNCATE)/.test(s.text));
    expect(ends.map((s) => s.text)).toEqual(["DELETE FROM pg_temp.verispec_staged WHERE key = ANY($1::text[])", "TRUNCATE pg_temp.verispec_staged"]);
    const first = sent.findIndex((s) => s.text.startsWith("SELECT"));
    expect(ends[0]!.params).toEqual([[sent[first]!.params[0]]]);
    expect(await stagedCount()).toBe(0);
  });

  it("the table's creation failing fails that statement; the next one tries again", async () => {
    sent = [];
    const query = stagingQuery(raw);
    const big = "z".repeat(STAGE_ABOVE + 1);
    failCreate = true;
    await expect(query("SELECT $1::text AS v", [big])).rejects.toThrow("create refused");
    failCreate = false;
    expect(await query("SELECT $1::text AS v", [big])).toEqual([{ v: big }]);
    expect(kinds().filter((k) => k === "CREATE")).toHaveLength(2);
  });

  it("two at once whose shared creation fails: both fail, nothing staged to delete, one TRUNCATE", async () => {
    sent = [];
    const query = stagingQuery(raw);
    const big = "w".repeat(STAGE_ABOVE + 1);
    failCreate = true;
    const both = await Promise.allSettled([query("SELECT $1::text AS v", [big]), query("SELECT $1::text AS v", [big])]);
    failCreate = false;
    expect(both.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(kinds()).toEqual(["CREATE", "TRUNCATE"]);
  });
});

describe("a big text stored through the embedded database", { timeout: 120_000 }, () => {
  let db: Db;
  beforeAll(async () => {
    db = await openStore("memory", process.cwd());
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it("a create's request and webhook body are read back byte-identical; a statement sent meanwhile is answered first", async () => {
    const store = sqlStore(db, "staging-test");
    // Over a MiB, with non-ASCII text, escapes and emoji across the part boundaries.
    const inputRisk = `${"r".repeat(PART - 1)}😀é\\"\n${"z".repeat(STAGE_ABOVE * 15)}😀`;
    const request = { type: "individual", inputRisk };
    const body = JSON.stringify({ trace: "t-big", inputRisk });
    const order: string[] = [];
    const write = store
      .insertVerifications([{ v: verification("t-big", request), trigger: "create" }], {
        rows: [
          ["d-big", "t-big", null, "v5", body, 1],
          ["d-big-2", "t-big", "http://127.0.0.1:9/hook", "v5", "small", 1],
        ],
        signatureVersion: "2",
      })
      .then((rows) => (order.push("big"), rows));
    const small = db.query("SELECT 1 AS one").then((rows) => (order.push("small"), rows));
    const [rows] = await Promise.all([write, small]);
    expect(order).toEqual(["small", "big"]);
    expect(rows.map((r) => r.deliveryId)).toEqual(["d-big", "d-big-2"]);
    const [stored] = await db.query<{ request: string }>("SELECT request FROM verifications WHERE trace = 't-big'");
    expect(stored!.request).toBe(JSON.stringify(request));
    const bodies = await db.query<{ delivery_id: string; body: string }>(
      `SELECT delivery_id, ${BODY("o")} AS body FROM outbox o WHERE trace = 't-big' ORDER BY id`,
    );
    expect(bodies).toEqual([
      { delivery_id: "d-big", body },
      { delivery_id: "d-big-2", body: "small" },
    ]);
    // Every part is gone once nothing is staged.
    expect(await db.query("SELECT count(*)::int AS n FROM pg_temp.verispec_staged")).toEqual([{ n: 0 }]);
  });

  it("two staged statements at once (two accounts' creates) each store their own text; no part is left", async () => {
    const one = { inputRisk: `1${"a".repeat(STAGE_ABOVE * 3)}` };
    const two = { inputRisk: `2${"b".repeat(STAGE_ABOVE * 2)}😀` };
    await Promise.all([
      sqlStore(db, "staging-a").insertVerifications([{ v: verification("t-a", one), trigger: "create" }], { rows: [], signatureVersion: "2" }),
      sqlStore(db, "staging-b").insertVerifications([{ v: verification("t-b", two), trigger: "create" }], { rows: [], signatureVersion: "2" }),
    ]);
    const rows = await db.query<{ trace: string; request: string }>("SELECT trace, request FROM verifications WHERE trace IN ('t-a', 't-b') ORDER BY trace");
    expect(rows).toEqual([
      { trace: "t-a", request: JSON.stringify(one) },
      { trace: "t-b", request: JSON.stringify(two) },
    ]);
    expect(await db.query("SELECT count(*)::int AS n FROM pg_temp.verispec_staged")).toEqual([{ n: 0 }]);
  });

  it("a staged statement that fails answers the database's error and leaves no part behind", async () => {
    const store = sqlStore(db, "staging-test");
    const big = { inputRisk: "q".repeat(STAGE_ABOVE * 2) };
    const insert = () => store.insertVerifications([{ v: verification("t-twice", big), trigger: "create" }], { rows: [], signatureVersion: "2" });
    await insert();
    await expect(insert()).rejects.toMatchObject({ code: "23505" });
    expect(await db.query("SELECT count(*)::int AS n FROM pg_temp.verispec_staged")).toEqual([{ n: 0 }]);
    const [stored] = await db.query<{ request: string }>("SELECT request FROM verifications WHERE trace = 't-twice'");
    expect(stored!.request).toBe(JSON.stringify(big));
  });
});
