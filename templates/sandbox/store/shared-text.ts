// A big text stored once (migration 8). A webhook's body repeats the request's longest string (a 1 MiB
// `inputRisk` is in both): the outbox row keeps its body without that string and says where it goes and
// where it is in its verification's stored request (body_at, body_from, body_len, in characters as
// Postgres counts them); every read of a body puts it back (BODY). A verification's request changes only
// on a resubmission, and a verification is removed only by retention: both first write the whole body
// back into the outbox rows that refer to it (MATERIALIZE), so a delivery's bytes never change between
// retries. The memory store keeps whole strings (JavaScript shares them): this is the SQL stores' only.

/** A string shorter than this (in UTF-16 code units) is stored where it is. */
export const SHARE_ABOVE = 8 * 1024;

/** Where a body's shared string was cut out: `at` characters into the body, `len` characters from `from` (1-based) of the request. */
export interface Shared {
  readonly body: string;
  readonly at: number;
  readonly from: number;
  readonly len: number;
}

/** The longest string value in `value` (object keys aside) of at least `min` code units, or undefined. */
export function longestString(value: unknown, min = SHARE_ABOVE): string | undefined {
  let best: string | undefined;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (v.length >= min && v.length > (best?.length ?? 0)) best = v;
    } else if (v && typeof v === "object") stack.push(...(Array.isArray(v) ? v : Object.values(v)));
  }
  return best;
}

/** The characters (code points: a surrogate pair is one) of text[from, to). */
export function characters(text: string, from: number, to: number): number {
  let n = to - from;
  for (let i = from; i < to - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** `body` without the longest big string of `request` that it and `requestText` (the request as stored) both hold, and where it was; undefined when none. */
export function shareWithRequest(body: string, request: unknown, requestText: string): Shared | undefined {
  const value = longestString(request);
  if (value === undefined) return undefined;
  const quoted = JSON.stringify(value);
  const at = body.indexOf(quoted);
  const from = at < 0 ? -1 : requestText.indexOf(quoted);
  if (from < 0) return undefined;
  return {
    body: body.slice(0, at) + body.slice(at + quoted.length),
    at: characters(body, 0, at),
    from: characters(requestText, 0, from) + 1,
    len: characters(quoted, 0, quoted.length),
  };
}

/** The body of outbox row `o` as sent: its own text, or with the string it shares with its verification's request put back. */
export const BODY = (o: string) =>
  `CASE WHEN ${o}.body_from IS NULL THEN ${o}.body ELSE left(${o}.body, ${o}.body_at) || (SELECT substr(sv.request, ${o}.body_from, ${o}.body_len)
     FROM verifications sv WHERE sv.tenant = ${o}.tenant AND sv.trace = ${o}.trace) || substr(${o}.body, ${o}.body_at + 1) END`;

/** An outbox row's columns as OutboxRow reads them (toOutboxRow), the body put together. */
export const OUTBOX_ROW = (o: string) =>
  `${o}.id, ${o}.delivery_id, ${o}.trace, ${o}.url, ${o}.format, ${o}.signature_version, ${BODY(o)} AS body, ${o}.timestamp, ${o}.state, ${o}.tries,
   ${o}.last_status, ${o}.last_error, ${o}.resend_of, ${o}.created_at, ${o}.delivered_at`;

/** An outbox row's columns as a delivery reads them (toQueuedRow), the body put together. */
export const QUEUED_ROW = (o: string) => `${o}.id, ${o}.tenant, ${o}.delivery_id, ${o}.url, ${BODY(o)} AS body, ${o}.signature_version, ${o}.tries`;

/** The outbox rows matching `where` (over `o`) get their whole body back, before the request they refer to changes or goes. */
export const MATERIALIZE = (where: string) =>
  `UPDATE outbox o SET body = ${BODY("o")}, body_at = NULL, body_from = NULL, body_len = NULL WHERE o.body_from IS NOT NULL AND ${where}`;

const storedTexts = new WeakMap<object, { readonly trace: string; readonly text: string }>();

/** Remembers the text a verification's request was read from (toVerification), so a change that keeps it neither writes it again nor re-serialises it. */
export function readRequest(trace: string, text: string): Record<string, unknown> {
  const request = JSON.parse(text) as Record<string, unknown>;
  storedTexts.set(request, { trace, text });
  return request;
}

/** The stored text of `trace`'s request when `request` is the object readRequest read it into (unchanged), else undefined. */
export function storedRequestText(trace: string, request: object): string | undefined {
  const stored = storedTexts.get(request);
  return stored?.trace === trace ? stored.text : undefined;
}
