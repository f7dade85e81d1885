// Small pure helpers of the client core; no Node-only APIs (runs in browsers too).

/** Base64 of the UTF-8 bytes (btoa alone throws on non-Latin-1 input). */
export const base64Utf8 = (s: string): string => btoa(String.fromCharCode(...new TextEncoder().encode(s)));

/**
 * Fills `{name}` placeholders with URL-encoded values. The template must be a relative path
 * starting with a single "/" so a caller-supplied path can never change the host.
 */
export function buildPath(template: string | null | undefined, params: Record<string, string> = {}): string {
  // test(null) and test(undefined) see "null"/"undefined", which do not match either.
  if (!/^\/(?!\/)/.test(template!)) throw new TypeError("path must start with /");
  return template!.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (!value) throw new TypeError(`missing ${name}`);
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

const hex = (n: number, digits = 2) => n.toString(16).padStart(digits, "0");
const htmlEscape = (s: string, apos: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? apos);
/** `\uXXXX` for each UTF-16 unit `which` matches. */
// biome-ignore lint/style/useTemplate: the concatenation is 3 bytes smaller gzipped (the core's bytes are budgeted: test/client/size.test.ts)
const unicodeEscaped = (s: string, which: RegExp) => s.replace(which, (c) => "\\u" + hex(c.charCodeAt(0), 4));

/**
 * A secret as a response body may echo it: as written; JSON-escaped (also with "\/", also with every
 * non-ASCII or every character as `\u` escapes); HTML-escaped (&amp; &lt; &gt; &quot;, and &#39; or
 * &#x27;); URL-encoded as a component (encodeURIComponent) and as a form
 * value (URLSearchParams), once or twice; the hex, base64 and base64url of its UTF-8 bytes (padding
 * left: it carries nothing of the secret). Hex digits in either case, each form as one piece: exact
 * needles, no regex to compile per client.
 */
export function encodings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const urls = [encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)].flatMap(bothCases);
  const hexForm = [...new TextEncoder().encode(secret)].map((b) => hex(b)).join("");
  const base64 = base64Utf8(secret).replace(/=+$/, "");
  return [
    secret,
    json,
    json.replace(/\//g, "\\/"),
    ...bothCases(unicodeEscaped(json, /[^ -~]/g)),
    ...bothCases(unicodeEscaped(secret, /[^]/g)),
    htmlEscape(secret, "&#39;"),
    htmlEscape(secret, "&#x27;"),
    ...urls,
    ...urls.map(encodeURIComponent),
    hexForm,
    hexForm.toUpperCase(),
    base64,
    base64.replace(/\+/g, "-").replace(/\//g, "_"),
  ];
}

const flip = (c: string) => (c < "a" ? c.toLowerCase() : c.toUpperCase());
/** The form, and the form with the other case of the hex digits of its escapes: %2F %2f, \u00e9 \u00E9. */
const bothCases = (form: string) => [form, form.replace(/%[\da-f]{2}|\\u[\da-f]{4}/gi, (e) => e.replace(/[a-f]/gi, flip))];

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
    key == "metadata_secretKey" ? REDACTED : typeof v == "string" ? needles.reduce((text, n) => text.split(n).join(REDACTED), v) : v;
  // Falsy values (undefined, "", null, 0) hold no secret and would not survive the JSON round trip.
  return (value) => value && JSON.parse(JSON.stringify(value, replace));
}
