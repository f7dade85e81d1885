/**
 * Payload timestamps in Unix milliseconds.
 *
 * the service's specification, section 6.2 — a v5 payload's `timestamp` is Unix milliseconds.
 * the service's specification, section 6.3 — an older payload's `timestamp` is "when sent (examples show seconds and milliseconds)".
 * verispec reads an older payload's value below 1e12 as seconds (1e12 ms is September 2001, and
 * 1e12 s is far in the future, so the two ranges do not overlap for real dates) and converts it to ms.
 */

const SECONDS_LIMIT = 1e12;

/** True for the current format (the service's specification, section 6.2, `version` is always "v5"). */
export function isV5Payload(payload: object): boolean {
  return (payload as { version?: unknown }).version === "v5";
}

/** The payload's timestamp in Unix ms, or undefined when it is not a finite non-negative number. */
export function payloadTimestampMs(payload: object): number | undefined {
  const raw = (payload as { timestamp?: unknown }).timestamp;
  if (typeof raw !== "number" || !Number.isFinite(raw) || raw < 0) return undefined;
  if (!isV5Payload(payload) && raw < SECONDS_LIMIT) return raw * 1000; // the service's specification, section 6.3
  return raw;
}

/** Inclusive in both directions (the service's specification, section 6.4, 8: "plus or minus 5 minutes"). */
export function withinTolerance(timestampMs: number, nowMs: number, toleranceMs: number): boolean {
  return Math.abs(nowMs - timestampMs) <= toleranceMs;
}
