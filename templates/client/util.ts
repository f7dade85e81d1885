// Small pure helpers of the client core; no Node-only APIs (runs in browsers too).

/** Base64 of the UTF-8 bytes (btoa alone throws on non-Latin-1 input). */
export const base64Utf8 = (s: string): string =>
  btoa(String.fromCharCode(...new TextEncoder().encode(s)));

/**
 * Fills `{name}` placeholders with URL-encoded values. The template must be a relative path
 * starting with a single "/" so a caller-supplied path can never change the host.
 */
export function buildPath(template: string | null | undefined, params: Record<string, string> = {}): string {
  // test(null) and test(undefined) see "null"/"undefined", which do not match either.
  if (!/^\/(?!\/)/.test(template!)) throw new TypeError("path must start with /");
  return template!.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (!value) throw new TypeError("missing " + name);
    return encodeURIComponent(value);
  });
}

/** JSON when it parses, the raw text otherwise, undefined for an empty body. */
export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Capped exponential backoff with "equal jitter": between half and all of the capped delay. */
export const backoffMs = (attempt: number, baseMs: number, maxMs: number, random = Math.random): number =>
  (Math.min(maxMs, baseMs * 2 ** attempt) * (1 + random())) / 2;

const REDACTED = "[redacted]";

const htmlEscape = (s: string, apos: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? apos);

/**
 * A secret as a response body may echo it: as written; JSON-escaped (also with "\/"); HTML-escaped
 * (&amp; &lt; &gt; &quot;, and &#39; or &#x27;); URL-encoded as a component (encodeURIComponent) and
 * as a form value (URLSearchParams), with upper- or lower-case hex.
 */
export function encodings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const urls = [encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
  return [
    secret,
    json,
    json.replace(/\//g, "\\/"),
    htmlEscape(secret, "&#39;"),
    htmlEscape(secret, "&#x27;"),
    ...urls,
    ...urls.map((u) => u.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())),
  ];
}

/**
 * Returns a deep-copying redaction: every occurrence of the given secrets, in any of their
 * `encodings`, in strings, and the value of any `metadata_secretKey` key (the service's specification, section 2.1), become
 * "[redacted]" — for bodies the service echoes back.
 * JSON.stringify's replacer does the walk; bodies are JSON (or raw text) by construction.
 */
export function redactor(secrets: string[]): <T>(value: T) => T {
  // Longest first: a longer encoding is replaced whole before a shorter one could split it.
  const needles = [...new Set(secrets.filter(Boolean).flatMap(encodings))].sort((a, b) => b.length - a.length); // an empty needle would split every character
  const replace = (key: string, v: unknown) =>
    key == "metadata_secretKey"
      ? REDACTED
      : typeof v == "string"
        ? needles.reduce((text, n) => text.split(n).join(REDACTED), v)
        : v;
  // Falsy values (undefined, "", null, 0) hold no secret and would not survive the JSON round trip.
  return (value) => value && JSON.parse(JSON.stringify(value, replace));
}
