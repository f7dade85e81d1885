// Big text parameters sent to PGlite in parts. PGlite runs one statement at a time on its one
// connection, and a statement carrying a 1 MiB text held it for 100-250 ms on a loaded machine (the text
// serialised, copied into WebAssembly, parsed as an array literal, stored): every other client's request
// waited behind it. Here each big text (or a text[] holding one) is first written in parts of at most
// PART characters into a temporary table, one short statement per part, so another request's statement
// runs between two parts; the statement itself then reads the text back from there inside the database
// (string_agg), one atomic statement as before, so what is stored and when it becomes visible do not
// change. Only outside a transaction: inside one, PGlite holds the connection for the whole transaction.
import type { Row } from "./sql.js";

export type Query = <T extends Row>(text: string, params?: readonly unknown[]) => Promise<T[]>;

/** A text parameter longer than this (in UTF-16 code units) is staged. */
export const STAGE_ABOVE = 64 * 1024;
/** The most characters written by one statement while staging. */
export const PART = 64 * 1024;

const TABLE = "pg_temp.verispec_staged";

/** One staged row: the parameter's key, the array element (0 for a text), the part's order, its text (null: a null element). */
type StagedRow = readonly [key: string, i: number, seq: number, part: string | null];

const isBig = (v: unknown): boolean => typeof v === "string" && v.length > STAGE_ABOVE;

/** A text parameter, or a text[] one, holding a text worth staging. */
export function needsStaging(value: unknown): boolean {
  if (isBig(value)) return true;
  return Array.isArray(value) && value.some(isBig) && value.every((e) => e === null || typeof e === "string");
}

/** `text` in parts of at most `size` code units, never splitting a surrogate pair (each part stays valid UTF-16). */
export function partsOf(text: string, size = PART): string[] {
  const parts: string[] = [];
  for (let from = 0; from < text.length || parts.length === 0; ) {
    let to = Math.min(text.length, from + size);
    const last = text.charCodeAt(to - 1);
    // A part ending in a pair's first half ends before it (or, a part of that half alone, after the pair).
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to += to - from > 1 ? -1 : 1;
    parts.push(text.slice(from, to));
    from = to;
  }
  return parts;
}

/** The rows that stage a parameter's value under `key`. */
export function stagedRows(key: string, value: unknown): StagedRow[] {
  const elements = Array.isArray(value) ? (value as (string | null)[]) : [value as string];
  return elements.flatMap((e, i): StagedRow[] => (e === null ? [[key, i, 0, null]] : partsOf(e).map((part, seq): StagedRow => [key, i, seq, part])));
}

/** `rows` grouped into statements of at most PART characters each (a row longer than that, alone). */
export function batches(rows: readonly StagedRow[]): StagedRow[][] {
  const out: StagedRow[][] = [];
  let size = Infinity;
  for (const row of rows) {
    const n = row[3]?.length ?? 0;
    if (size + n > PART) {
      out.push([]);
      size = 0;
    }
    out[out.length - 1]!.push(row);
    size += n;
  }
  return out;
}

/** The expression read in place of parameter `$n` (whose value is now its key): the text, or the array, put back together. */
function readBack(n: number, array: boolean): string {
  const texts = `SELECT i, string_agg(part, '' ORDER BY seq) AS v FROM ${TABLE} WHERE key = $${n}::text GROUP BY i`;
  return array ? `(SELECT array_agg(v ORDER BY i) FROM (${texts}) s)` : `(SELECT v FROM (${texts}) s)`;
}

/**
 * Where a statement's text is SQL, not a quoted or commented span: [from, to) ranges of the code between
 * string literals ('...', E'...' with backslash escapes, $tag$...$tag$), quoted identifiers ("...") and
 * comments (-- to the line's end, nested /* ... *\/). A `$n` is a parameter only in those ranges.
 */
export function codeRanges(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const end = quotedEnd(text, i);
    if (end === i) {
      i++;
      continue;
    }
    if (i > from) ranges.push([from, i]);
    i = from = end;
  }
  if (from < text.length) ranges.push([from, text.length]);
  return ranges;
}

/** The end of the quoted or commented span starting at `i`, or `i` when none starts there (an unclosed one runs to the end). */
function quotedEnd(text: string, i: number): number {
  const c = text[i];
  const closing = (close: string, from: number) => (text.indexOf(close, from) < 0 ? text.length : text.indexOf(close, from) + close.length);
  if (c === "'" || c === '"') {
    const escapes = c === "'" && /[eE]/.test(text[i - 1] ?? "") && !/[\w$]/.test(text[i - 2] ?? "");
    let j = i + 1;
    for (; j < text.length; j++) {
      if (escapes && text[j] === "\\") j++;
      else if (text[j] === c) {
        if (text[j + 1] !== c) return j + 1;
        j++; // a doubled quote stands for itself
      }
    }
    return text.length;
  }
  if (c === "-" && text[i + 1] === "-") return closing("\n", i);
  if (c === "/" && text[i + 1] === "*") return blockCommentEnd(text, i);
  if (c === "$" && !/[\w$]/.test(text[i - 1] ?? "")) {
    const tag = /^\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$/.exec(text.slice(i, i + 64))?.[0];
    if (tag) return closing(tag, i + tag.length);
  }
  return i;
}

function blockCommentEnd(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length - 1; j++) {
    if (text[j] === "/" && text[j + 1] === "*") {
      depth++;
      j++;
    } else if (text[j] === "*" && text[j + 1] === "/") {
      j++;
      if (--depth === 0) return j + 1;
    }
  }
  return text.length;
}

/** The statement with each staged parameter's references (`$n`, not `$n0`, outside literals, identifiers and comments) reading the staged value instead. */
export function rewrite(text: string, staged: ReadonlyMap<number, boolean>): string {
  let out = "";
  let at = 0;
  for (const [from, to] of codeRanges(text)) {
    const code = text.slice(from, to).replace(/(?<![\w$])\$(\d+)(?!\d)/g, (ref, n: string) => {
      const array = staged.get(Number(n));
      return array === undefined ? ref : readBack(Number(n), array);
    });
    out += text.slice(at, from) + code;
    at = to;
  }
  return out + text.slice(at);
}

/**
 * `query` with its big text parameters staged first (outside a transaction only: pass the plain query for
 * one). The staging table is emptied (TRUNCATE: its storage given back) whenever no staged statement is in
 * flight, else this statement's rows are deleted.
 */
export function stagingQuery(query: Query): Query {
  let created: Promise<unknown> | undefined;
  let inFlight = 0;
  let next = 0;
  return async <T extends Row>(text: string, params: readonly unknown[] = []): Promise<T[]> => {
    const positions = params.flatMap((p, i) => (needsStaging(p) ? [i] : []));
    if (!positions.length) return query<T>(text, params);
    created ??= query(`CREATE TEMP TABLE IF NOT EXISTS ${TABLE} (key text NOT NULL, i integer NOT NULL, seq integer NOT NULL, part text)`).catch((err) => {
      created = undefined; // tried again by the next one
      throw err;
    });
    inFlight++;
    const keys: string[] = [];
    try {
      await created;
      const values = [...params];
      const staged = new Map<number, boolean>();
      for (const i of positions) {
        const key = `s${next++}`;
        keys.push(key);
        for (const batch of batches(stagedRows(key, params[i]))) await insertRows(query, batch);
        values[i] = key;
        staged.set(i + 1, Array.isArray(params[i]));
      }
      return await query<T>(rewrite(text, staged), values);
    } finally {
      if (--inFlight === 0) await query(`TRUNCATE ${TABLE}`).catch(() => {});
      else if (keys.length) await query(`DELETE FROM ${TABLE} WHERE key = ANY($1::text[])`, [keys]).catch(() => {});
    }
  };
}

function insertRows(query: Query, rows: readonly StagedRow[]): Promise<unknown> {
  const col = (k: number) => rows.map((r) => r[k]);
  return query(`INSERT INTO ${TABLE} (key, i, seq, part) SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[])`, [col(0), col(1), col(2), col(3)]);
}
