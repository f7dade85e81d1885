// Credentials (the service's specification, section 5): HTTP Basic on /v5 and the control API, the older
// endpoints' body fields; every check in constant time (SHA-256 digests compared with timingSafeEqual).
import { createHash, timingSafeEqual } from "node:crypto";
import type { Credentials } from "../exchange.js";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

export function basicCredentials(header: string | undefined): Credentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match) return undefined;
  const text = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = text.indexOf(":");
  return colon < 0 ? undefined : { serviceUid: text.slice(0, colon), secret: text.slice(colon + 1) };
}

/** Credentials as given: a body's may be any JSON value. */
type GivenPair = { readonly serviceUid?: unknown; readonly secret?: unknown } | undefined;

/**
 * Credential checks in constant time: SHA-256 digests of what was given against digests of every
 * account's values, made once (so strings of any length compare alike). Every account is compared, the
 * loop never stops at a match or a miss, so the time does not tell which service UID exists. The Basic
 * header as clients write it is one digest; another spelling of it (scheme case, spaces) is decoded and
 * checked field by field. Each check answers the account the credentials belong to, or undefined.
 */
export function accountChecker<A extends { readonly credentials: Credentials }>(accounts: readonly A[]) {
  const expected = accounts.map((account) => {
    const { serviceUid, secret } = account.credentials;
    return {
      account,
      uid: digest(serviceUid),
      secret: digest(secret),
      header: digest(`Basic ${Buffer.from(`${serviceUid}:${secret}`, "utf8").toString("base64")}`),
    };
  });
  // A body credential may be any JSON value: only strings are compared (no String() of an object, whose toString may be anything).
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const pair = (given: GivenPair): A | undefined => {
    const uid = digest(text(given?.serviceUid));
    const secret = digest(text(given?.secret));
    const strings = typeof given?.serviceUid === "string" && typeof given?.secret === "string";
    let found: A | undefined;
    for (const e of expected) {
      const uidOk = timingSafeEqual(uid, e.uid);
      const secretOk = timingSafeEqual(secret, e.secret);
      if (uidOk && secretOk && strings && found === undefined) found = e.account;
    }
    return found;
  };
  const header = (value: string): A | undefined => {
    const given = digest(value);
    let found: A | undefined;
    for (const e of expected) if (timingSafeEqual(given, e.header) && found === undefined) found = e.account;
    return found;
  };
  return { pair, basic: (value: string | undefined): A | undefined => (value === undefined ? undefined : header(value)) ?? pair(basicCredentials(value)) };
}

/** The one-account check (true or false), as accountChecker makes it. */
export function credentialChecker(expected: Credentials) {
  const check = accountChecker([{ credentials: expected }]);
  return {
    pair: (given: GivenPair): boolean => check.pair(given) !== undefined,
    basic: (value: string | undefined): boolean => check.basic(value) !== undefined,
  };
}
