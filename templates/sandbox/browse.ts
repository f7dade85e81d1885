// Paged reading for the control API and the /_sandbox page, whatever the row count: a filter (trace,
// userId, status) and a cursor, each page one index range scan of at most `limit` rows (indexes of
// migration 6, led by the tenant). The cursor is opaque and the tenant's own: the position of the page's
// last row, sealed with AES-256-GCM under the database's key (store/cursor-key.ts), bound to the tenant and
// the listing, so a caller learns nothing of the row ids (no gap between them tells of another tenant's
// rows) and a cursor works only for the tenant and the listing that were given it.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { describeDeliveries } from "./deliveries.js";
import { loadCursorKey } from "./store/cursor-key.js";
import type { Db } from "./store/index.js";
import { outboxPageRows, verificationPageRows, type VerificationPageRow } from "./store/pages.js";

export const MAX_PAGE = 500;

export interface Browse {
  readonly trace?: string;
  readonly userId?: string;
  readonly status?: string;
  readonly limit: number;
  /** The sealed position this page starts after (exclusive), as the caller sent it. */
  readonly cursor?: string;
}

export interface Page<T> {
  readonly items: T[];
  /** The cursor of the next page, or null when this is the last. */
  readonly nextCursor: string | null;
}

/** What a cursor that this sandbox did not give (for this tenant and listing) is answered. */
export const FOREIGN_CURSOR = "cursor is not one this sandbox gave.";

/** A cursor refused: the handler answers it 400 with FOREIGN_CURSOR. */
export class CursorRefused extends Error {
  constructor() {
    super(FOREIGN_CURSOR);
  }
}

type Listing = "deliveries" | "verifications";

/** Each database's key, read once. */
const keys = new WeakMap<Db, Promise<Buffer>>();
const keyOf = (db: Db) => {
  let key = keys.get(db);
  if (!key) keys.set(db, (key = loadCursorKey(db)));
  return key;
};

/** The sealed cursor of position `n`: nonce, ciphertext and tag, base64url; the tenant and listing are its associated data. */
export function sealCursor(key: Buffer, tenant: string, listing: Listing, n: number): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(`${listing}\0${tenant}`, "utf8"));
  const body = Buffer.concat([cipher.update(String(n), "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
}

/** The position a cursor holds, or undefined when it was not sealed by this key for this tenant and listing. */
export function openCursor(key: Buffer, tenant: string, listing: Listing, cursor: string): number | undefined {
  const raw = Buffer.from(cursor, "base64url");
  if (raw.length < 12 + 1 + 16 || raw.length > 12 + 16 + 16) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12)).setAAD(Buffer.from(`${listing}\0${tenant}`, "utf8"));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
    return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The filter of a query string, or a one-line reason it is refused. */
export function parseBrowse(params: URLSearchParams, defaultLimit = MAX_PAGE): Browse | string {
  const one = (k: string) => {
    const v = params.get(k);
    return v === null || v === "" ? undefined : v;
  };
  const limitText = one("limit");
  if (limitText !== undefined && (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_PAGE))
    return `limit must be an integer from 1 to ${MAX_PAGE}.`;
  const cursor = one("cursor");
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(cursor)) return FOREIGN_CURSOR;
  return { trace: one("trace"), userId: one("userId"), status: one("status"), limit: limitText === undefined ? defaultLimit : Number(limitText), cursor };
}

/** Where the page starts: the cursor's position, opened for this tenant and listing (CursorRefused when it will not open). */
async function startOf(db: Db, tenant: string, listing: Listing, browse: Browse): Promise<number | undefined> {
  if (browse.cursor === undefined) return undefined;
  const after = openCursor(await keyOf(db), tenant, listing, browse.cursor);
  if (after === undefined) throw new CursorRefused();
  return after;
}

/** A page of at most `browse.limit` rows from the `limit + 1` the store read, and the next page's cursor (sealing `positionOf` its last row). */
async function cut<T>(
  db: Db,
  tenant: string,
  listing: Listing,
  rows: T[],
  browse: Browse,
  positionOf: (row: T) => number,
): Promise<{ rows: T[]; nextCursor: string | null }> {
  const more = rows.length > browse.limit;
  const items = more ? rows.slice(0, browse.limit) : rows;
  return { rows: items, nextCursor: more ? sealCursor(await keyOf(db), tenant, listing, positionOf(items.at(-1)!)) : null };
}

/** The tenant's deliveries, newest first (one trace's: in order, oldest first); status is the delivery's state. */
export async function deliveriesPage(db: Db, tenant: string, browse: Browse): Promise<Page<Record<string, unknown>>> {
  const after = await startOf(db, tenant, "deliveries", browse);
  const read = await outboxPageRows(
    db,
    tenant,
    { trace: browse.trace, state: browse.status, userId: browse.userId },
    { limit: browse.limit, after, ascending: browse.trace !== undefined },
  );
  const { rows, nextCursor } = await cut(db, tenant, "deliveries", read, browse, (row) => row.id);
  return { items: await describeDeliveries(db, rows), nextCursor };
}

/** The tenant's verifications, newest first; status is the verification status. */
export async function verificationsPage(db: Db, tenant: string, browse: Browse): Promise<Page<VerificationPageRow>> {
  const after = await startOf(db, tenant, "verifications", browse);
  const read = await verificationPageRows(
    db,
    tenant,
    { trace: browse.trace, userId: browse.userId, verificationStatus: browse.status },
    { limit: browse.limit, after, ascending: false },
  );
  const { rows, nextCursor } = await cut(db, tenant, "verifications", read, browse, (row) => row.seq);
  return { items: rows, nextCursor };
}
