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

/**
 * Returns a deep-copying redaction: every occurrence of the given secrets in strings, and the value
 * of any `metadata_secretKey` key (the service's specification, section 2.1), become "[redacted]" — for bodies the service echoes back.
 * JSON.stringify's replacer does the walk; bodies are JSON (or raw text) by construction.
 */
export function redactor(secrets: string[]): <T>(value: T) => T {
  const needles = secrets.filter(Boolean); // an empty needle would split every character
  const replace = (key: string, v: unknown) =>
    key == "metadata_secretKey"
      ? REDACTED
      : typeof v == "string"
        ? needles.reduce((text, n) => text.split(n).join(REDACTED), v)
        : v;
  // Falsy values (undefined, "", null, 0) hold no secret and would not survive the JSON round trip.
  return (value) => value && JSON.parse(JSON.stringify(value, replace));
}
