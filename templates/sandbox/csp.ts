// The security headers of every HTML page the sandbox serves (/_sandbox, /_form, their message pages): a
// Content-Security-Policy that allows only the page's own inline <script> and <style> blocks, each by its
// SHA-256 hash (computed from the page served, so a changed script keeps working and an injected one does
// not run), nothing from another origin, no framing (frame-ancestors 'none' and X-Frame-Options: DENY).
import { createHash } from "node:crypto";

const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The hashes of the contents of every `<tag>...</tag>` block of the page, in order, without repeats. */
export function inlineHashes(html: string, tag: "script" | "style"): string[] {
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "gi");
  return [...new Set([...html.matchAll(re)].map((m) => hashOf(m[1]!)))];
}

/** The Content-Security-Policy of this page: its own inline blocks only, forms posting to the sandbox itself. */
export function contentSecurityPolicy(html: string): string {
  const scripts = inlineHashes(html, "script");
  const styles = inlineHashes(html, "style");
  return [
    "default-src 'none'",
    `script-src ${scripts.length ? scripts.join(" ") : "'none'"}`,
    `style-src ${styles.length ? styles.join(" ") : "'none'"}`,
    "connect-src 'self'",
    "img-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The headers an HTML page is sent with. */
export function pageSecurityHeaders(html: string): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(html),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };
}
