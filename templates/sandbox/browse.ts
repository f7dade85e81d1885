// Paged reading for the control API and the /_sandbox page, whatever the row count: a filter (trace,
// userId, status) and a cursor, each page one index range scan of at most `limit` rows (indexes of
// migration 6, led by the tenant). The cursor is opaque to callers: the position of the page's last row.
import { describeDeliveries } from "./dispatcher.js";
import type { Db, Row } from "./store/index.js";
import { outboxPageRows, verificationPageRows } from "./store/pages.js";

export const MAX_PAGE = 500;

export interface Browse {
  readonly trace?: string;
  readonly userId?: string;
  readonly status?: string;
  readonly limit: number;
  /** Rows after this position (exclusive). */
  readonly after?: number;
}

export interface Page<T> {
  readonly items: T[];
  /** The cursor of the next page, or null when this is the last. */
  readonly nextCursor: string | null;
}

const encode = (n: number) => Buffer.from(`v1:${n}`, "utf8").toString("base64url");

/** The filter of a query string, or a one-line reason it is refused. */
export function parseBrowse(params: URLSearchParams, defaultLimit = MAX_PAGE): Browse | string {
  const one = (k: string) => {
    const v = params.get(k);
    return v === null || v === "" ? undefined : v;
  };
  const limitText = one("limit");
  if (limitText !== undefined && (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_PAGE)) return `limit must be an integer from 1 to ${MAX_PAGE}.`;
  const cursor = one("cursor");
  let after: number | undefined;
  if (cursor !== undefined) {
    const m = /^v1:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!m) return "cursor is not one this sandbox gave.";
    after = Number(m[1]);
  }
  return { trace: one("trace"), userId: one("userId"), status: one("status"), limit: limitText === undefined ? defaultLimit : Number(limitText), after };
}

/** A page of at most `b.limit` rows from the `limit + 1` the store read, and the next page's cursor. */
function cut(rows: Row[], b: Browse, key: string): { rows: Row[]; nextCursor: string | null } {
  const more = rows.length > b.limit;
  const items = more ? rows.slice(0, b.limit) : rows;
  return { rows: items, nextCursor: more ? encode(Number(items.at(-1)![key])) : null };
}

/** The tenant's deliveries, newest first (one trace's: in order, oldest first); status is the delivery's state. */
export async function deliveriesPage(db: Db, tenant: string, b: Browse): Promise<Page<Record<string, unknown>>> {
  const read = await outboxPageRows(db, tenant, { trace: b.trace, state: b.status, userId: b.userId }, { limit: b.limit, after: b.after, ascending: b.trace !== undefined });
  const { rows, nextCursor } = cut(read, b, "id");
  return { items: await describeDeliveries(db, rows), nextCursor };
}

/** The tenant's verification rows, newest first; status is the verification status. */
export async function verificationsPage(db: Db, tenant: string, b: Browse): Promise<Page<Row>> {
  const read = await verificationPageRows(db, tenant, { trace: b.trace, userId: b.userId, verificationStatus: b.status }, { limit: b.limit, after: b.after, ascending: false });
  const { rows, nextCursor } = cut(read, b, "seq");
  return { items: rows, nextCursor };
}
