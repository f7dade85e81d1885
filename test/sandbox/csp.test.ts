// The pages' security headers (templates/sandbox/csp.ts): a Content-Security-Policy allowing the page's own
// inline script and style by hash only, and no framing; sent with /_sandbox, the hosted form and its
// message pages, and with no JSON answer. (That the pages still work under it: page.test.ts and
// form-browser.test.ts, in Chromium.)
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentSecurityPolicy, inlineHashes, pageSecurityHeaders } from "../../templates/sandbox/csp.js";
import { basic, CREDENTIALS } from "./helpers.js";
import { harness, memoryDb, type Harness } from "./inprocess.js";
import type { Db } from "../../templates/sandbox/store/index.js";

const sha = (s: string) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`;

describe("contentSecurityPolicy", () => {
  it("allows each inline script and style by the hash of its text, nothing else", () => {
    const html = `<html><head><style>a{}</style></head><body><script>run()</script><script type="module">x()</script><script>run()</script></body></html>`;
    expect(inlineHashes(html, "script")).toEqual([sha("run()"), sha("x()")]);
    expect(inlineHashes(html, "style")).toEqual([sha("a{}")]);
    const csp = contentSecurityPolicy(html);
    expect(csp).toContain(`script-src ${sha("run()")} ${sha("x()")};`);
    expect(csp).toContain(`style-src ${sha("a{}")};`);
    expect(csp).toMatch(/^default-src 'none';/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });

  it("the whole policy and headers of a page with two styles and no script", () => {
    const html = "<style>a{}</style><style>b{}</style><p>hi</p>";
    expect(pageSecurityHeaders(html)).toEqual({
      "Content-Security-Policy": [
        "default-src 'none'",
        "script-src 'none'",
        `style-src ${sha("a{}")} ${sha("b{}")}`,
        "connect-src 'self'",
        "img-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join("; "),
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    });
  });

  it("a page without a script allows none", () => {
    expect(contentSecurityPolicy("<p>hi</p>")).toContain("script-src 'none'; style-src 'none'");
    expect(pageSecurityHeaders("<p>hi</p>")["X-Frame-Options"]).toBe("DENY");
  });
});

describe("the pages' headers", () => {
  let db: Db;
  let h: Harness;
  beforeAll(async () => {
    db = await memoryDb();
    h = await harness(db, { dispatch: false });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await db?.close();
  });

  const csp = /^default-src 'none'; script-src [^;]+; style-src 'sha256-[^;]+'; .*frame-ancestors 'none'$/;

  it("/_sandbox: the policy names the hash of the script the page holds", async () => {
    const r = await fetch(`${h.url}/_sandbox`, { headers: { authorization: basic(CREDENTIALS) } });
    const html = await r.text();
    expect(r.status).toBe(200);
    expect(r.headers.get("content-security-policy")).toMatch(csp);
    expect(r.headers.get("content-security-policy")).toContain(inlineHashes(html, "script")[0]!);
    expect(r.headers.get("x-frame-options")).toBe("DENY");
  });

  it("a hosted form that does not exist: its message page too", async () => {
    const r = await fetch(`${h.url}/_form/no-such-form`);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.headers.get("content-security-policy")).toMatch(csp);
    expect(r.headers.get("x-frame-options")).toBe("DENY");
  });

  it("JSON answers carry no page policy", async () => {
    const r = await fetch(`${h.url}/_sandbox/state`, { headers: { authorization: basic(CREDENTIALS) } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-security-policy")).toBeNull();
  });
});
