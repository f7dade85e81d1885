// Issue 6, part 4: the reference page. `verispec docs` builds a self-contained Redoc page; headless
// Chromium opens it from disk and shows every operation, every webhook, the status tables and the
// "not shown" notes, while no request leaves the machine. Issue 36: it reads on a phone (390 px) and on
// a desktop (1400 px), and the cases of a request are named by what they show.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import type { Io } from "../../generator/context.js";
import { OPENAPI, ROOT } from "./helpers.js";
import { needProgram } from "../support/services.js";
import type { LooseJson } from "../support/loose.js";

const chromiumProgram = needProgram("chromium", "apt-get install -y chromium");

const ARTIFACTS = join(ROOT, "test", ".artifacts");
/** Schemes a self-contained page may request: its own file, inline data, and in-memory objects Redoc makes (blob: workers). */
const LOCAL_SCHEMES = ["file:", "data:", "about:", "blob:"];

type Json = LooseJson;
const doc = JSON.parse(readFileSync(OPENAPI, "utf8")) as Json;
/** Made in beforeAll: when Chromium is missing every test is skipped and no hook runs, so nothing may be left. */
let temp = "";
const normalize = (s: string) => s.replaceAll("`", "").replace(/\*\*/g, "").replace(/\s+/g, " ").trim();

interface Op {
  readonly kind: "operation" | "webhook";
  readonly tag: string;
  readonly operationId: string;
  readonly summary: string;
  readonly method: string;
  readonly path: string;
  /** The first paragraph of its description: shown only on the operation's own page. */
  readonly lead: string;
}

function operations(): Op[] {
  const out: Op[] = [];
  for (const [section, kind] of [
    ["paths", "operation"],
    ["webhooks", "webhook"],
  ] as const) {
    for (const [path, item] of Object.entries(doc[section] as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const o = op as Json;
        out.push({
          kind,
          tag: o.tags[0],
          operationId: o.operationId,
          summary: o.summary,
          method,
          path,
          lead: normalize((o.description as string).split("\n\n")[0]!),
        });
      }
    }
  }
  return out;
}

let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageUrl: string;
let built: { code: number; stdout: string; stderr: string };
const requests: string[] = [];
const blocked: string[] = [];
const violations: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!chromiumProgram.found) return;
  temp = mkdtempSync(join(tmpdir(), "verispec-docs-"));
  copyFileSync(OPENAPI, join(temp, "openapi.json"));
  copyFileSync(join(OPENAPI, "..", ".verispec-manifest"), join(temp, ".verispec-manifest")); // docs writes only into verispec's output
  let stdout = "";
  let stderr = "";
  const io: Io = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: process.env, cwd: ROOT, stdin: async () => "" };
  const code = await main(["docs", "--out", temp], io);
  built = { code, stdout, stderr };
  if (code !== 0) return;
  pageUrl = pathToFileURL(join(temp, "docs", "index.html")).href;

  browser = await chromium.launch({
    executablePath: chromiumProgram.path,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Every request is recorded; anything that is not local is also refused, so the test never reaches out.
  context.on("request", (r) => void requests.push(r.url()));
  await context.route(/^(?!file:|data:|about:|blob:)/, async (route) => {
    blocked.push(route.request().url());
    await route.abort();
  });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  page = await context.newPage();
  page.on("console", (m) => {
    if (/Content Security Policy|CSP violation/i.test(m.text())) violations.push(m.text().slice(0, 300));
  });
  page.on("pageerror", (e) => void pageErrors.push(e.message));
  await page.goto(pageUrl);
  await page.getByRole("heading", { name: doc.info.title }).first().waitFor({ timeout: 60_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (temp) rmSync(temp, { recursive: true, force: true });
}, 60_000);

/** The visible text of the page, once `expected` shows (Redoc routes by hash and renders after a tick). */
async function textShowing(expected: string): Promise<string> {
  await page
    // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees is the point (textContent holds hidden text too)
    .waitForFunction((s) => document.body.innerText.replaceAll("`", "").replace(/\s+/g, " ").includes(s), expected, { timeout: 30_000 })
    .catch(() => undefined);
  // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees is the point (textContent holds hidden text too)
  return page.evaluate(() => document.body.innerText);
}

/** Opens an operation from Redoc's sidebar, which links it as #/<tag>/<operationId in lower case>. */
async function openOperation(op: Op): Promise<void> {
  const link = page.locator(`a[href="#/${op.tag}/${op.operationId.toLowerCase()}"]`).first();
  if ((await link.count()) === 0) await page.locator(`a[href="/${op.tag}"]`).first().click();
  await link.click();
}

/** The titles openapi.json gives the cases of its conditionals (`if` and `else`). */
function conditionalNames(): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== "object") return;
    const o = v as Json;
    for (const k of ["if", "else"]) if (typeof o[k]?.title === "string") out.add(o[k].title);
    Object.values(o).forEach(walk);
  };
  walk(doc.components.schemas);
  return [...out];
}

describe.skipIf(!chromiumProgram.found)("verispec docs: the reference page", () => {
  it("builds generated/docs/index.html with Redoc inline, offline by construction", () => {
    expect(built.stderr).toBe("");
    expect(built.code).toBe(0);
    const html = readFileSync(join(temp, "docs", "index.html"), "utf8");
    expect(html).toContain("Content-Security-Policy");
    expect(html).toContain('"disableTelemetry":true');
    expect(html).not.toContain("cdn.redoc.ly/redoc/logo");
    expect(html).not.toMatch(/<script[^>]+\bsrc=/i);
  });

  it("shows the status tables and every 'not shown' note of info.description", async () => {
    const text = normalize(await textShowing("Verification statuses (the service's specification, section 3)"));
    const description = doc.info.description as string;
    for (const heading of [
      "Verification statuses (the service's specification, section 3)",
      "Submission statuses (the service's specification, section 3)",
      "Transitions (the service's specification, section 3)",
      "Not shown in the service's specification",
    ]) {
      expect(text).toContain(heading);
    }
    const rows = description.split("\n").filter((l) => /^\| `[a-z]+` \|/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(11); // 8 verification statuses, 3 submission statuses
    for (const row of rows) {
      const cells = row
        .split("|")
        .slice(1, -1)
        .map((c) => normalize(c));
      expect(text, `status row ${row}`).toContain(cells.join(" "));
    }
    const notes = description
      .split("## Not shown in the service's specification")[1]!
      .split("\n")
      .filter((l) => l.startsWith("- (the service's specification, section "));
    expect(notes.length).toBeGreaterThanOrEqual(10);
    for (const note of notes) expect(text, `note ${note}`).toContain(normalize(note.slice(2)));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "docs.png") });
  }, 120_000);

  it("shows the status life-cycle diagram (generated/statuses.svg without its legend, inline in info.description)", async () => {
    const svg = Buffer.from(
      /<img alt="Status life cycle" src="data:image\/svg\+xml;base64,([^"]+)"/.exec(doc.info.description as string)![1]!,
      "base64",
    ).toString("utf8");
    const [, width, height] = /<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg)!;
    const img = page.locator('img[alt="Status life cycle"]').first();
    await img.scrollIntoViewIfNeeded();
    const shown = await img.evaluate((el: HTMLImageElement) => ({
      complete: el.complete,
      w: el.naturalWidth,
      h: el.naturalHeight,
      visible: el.getBoundingClientRect().width > 0,
    }));
    expect(shown).toEqual({ complete: true, w: Number(width), h: Number(height), visible: true });
  }, 60_000);

  it("lays the diagram out readably: every text inside the picture, no two status boxes overlapping", async () => {
    const diagram = await context.newPage();
    await diagram.goto(pathToFileURL(join(ROOT, "generated", "statuses.svg")).href);
    const layout = await diagram.evaluate(() => {
      const root = document.documentElement as unknown as SVGSVGElement;
      const box = (e: Element) => (e as SVGGraphicsElement).getBBox();
      const outside = Array.from(root.querySelectorAll("text"))
        .filter((t) => {
          const b = box(t);
          return b.x < 0 || b.y < 0 || b.x + b.width > root.width.baseVal.value || b.y + b.height > root.height.baseVal.value;
        })
        .map((t) => t.textContent);
      const rects = Array.from(root.querySelectorAll("rect.node")).map(box);
      const overlaps = rects.flatMap((a, i) =>
        rects
          .slice(i + 1)
          .filter((b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
          .map(() => i),
      );
      const labels = Array.from(root.querySelectorAll("text.label")).map((t) => t.textContent);
      return { outside, overlaps, labels, badges: root.querySelectorAll("circle.badge").length };
    });
    expect(layout.outside).toEqual([]);
    expect(layout.overlaps).toEqual([]);
    for (const s of ["pending", "verified", "rejected", "info", "removed", "locked", "new", "error"]) expect(layout.labels).toContain(s);
    expect(layout.badges).toBeGreaterThanOrEqual(8);
    mkdirSync(ARTIFACTS, { recursive: true });
    await diagram.screenshot({ path: join(ARTIFACTS, "statuses.png") });
    await diagram.close();
  }, 60_000);

  it("renders every operation and every webhook", async () => {
    const ops = operations();
    expect(ops.filter((o) => o.kind === "operation").length).toBe(5);
    expect(ops.filter((o) => o.kind === "webhook").length).toBe(2);
    const missing: string[] = [];
    for (const op of ops) {
      await openOperation(op);
      const text = normalize(await textShowing(op.lead));
      const shown = [op.summary, op.lead, ...(op.kind === "operation" ? [`${op.method.toUpperCase()} ${op.path}`] : [])];
      for (const s of shown) if (!text.includes(s)) missing.push(`${op.kind} ${op.operationId}: ${s}`);
      if (op.operationId === "verificationEventV5") await page.screenshot({ path: join(ARTIFACTS, "docs-webhook.png") });
    }
    expect(missing).toEqual([]);
  }, 180_000);

  it("names every case of a request by what it shows, never 'case 1' / 'case 2' or 'object (2)'", async () => {
    const names = conditionalNames();
    expect(names).toContain("type individual");
    expect(names).toContain("type other than individual");
    const shown = new Set<string>();
    const record = async (operationId: string) => {
      // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees is the point (textContent holds hidden text too)
      const text = normalize(await page.evaluate(() => document.body.innerText));
      expect(text, operationId).not.toMatch(/\bcase \d\b|\bobject \(\d+\)/);
      for (const m of text.matchAll(/One of: ((?:\S+ ){1,12}?)(?:\+|−|Show|POST|GET)/g)) shown.add(m[1]!.trim());
    };
    for (const op of operations().filter((o) => o.kind === "operation")) {
      await openOperation(op);
      await textShowing(op.lead);
      await record(op.operationId);
      // Nested cases (a stakeholder's fields by its type) show once their property is expanded.
      const expand = page.getByRole("button", { name: "Expand all" });
      for (let i = 0; i < 8 && (await expand.count()) > 0; i++) await expand.first().click();
      await record(op.operationId);
    }
    const all = [...shown].join(" | ");
    expect(all).toContain("with trace with userId");
    expect(all).toMatch(/\btype (individual|privateCompany|publicCompany|governmentBody)\b/);
  }, 180_000);

  it("on a phone (390 px): no sideways scroll, the guides bar folded behind its button, the status diagram at its own size in a box that scrolls", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.route(/^(?!file:|data:|about:|blob:)/, (route) => route.abort());
    const p = await phone.newPage();
    try {
      await p.goto(pageUrl);
      await p.getByRole("heading", { name: doc.info.title }).first().waitFor({ timeout: 60_000 });
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const nav = p.locator(".verispec-site-nav");
      const button = nav.locator("label.verispec-nav-button");
      const guides = nav.getByRole("link", { name: "Your own spec" });
      expect(await button.isVisible()).toBe(true);
      expect(await guides.isVisible()).toBe(false);
      expect((await nav.boundingBox())!.height).toBeLessThan(60);
      await button.click();
      expect(await guides.isVisible()).toBe(true);
      expect(await nav.getByRole("link", { name: "API reference" }).isVisible()).toBe(true);
      await button.click();
      expect(await guides.isVisible()).toBe(false);

      const img = p.locator('img[alt="Status life cycle"]').first();
      await img.scrollIntoViewIfNeeded();
      const shown = await img.evaluate((el: HTMLImageElement) => {
        const box = el.parentElement!;
        const r = box.getBoundingClientRect();
        return {
          width: Math.round(el.getBoundingClientRect().width),
          natural: el.naturalWidth,
          scrolls: box.scrollWidth > box.clientWidth,
          overflowX: getComputedStyle(box).overflowX,
          boxRight: r.right,
        };
      });
      expect(shown.natural).toBeGreaterThan(390);
      expect(shown.width).toBe(shown.natural);
      expect(shown.scrolls).toBe(true);
      expect(shown.overflowX).toBe("auto");
      expect(shown.boxRight).toBeLessThanOrEqual(390);
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      mkdirSync(ARTIFACTS, { recursive: true });
      await p.screenshot({ path: join(ARTIFACTS, "docs-390.png") });
    } finally {
      await phone.close();
    }
  }, 120_000);

  it("on a desktop (1400 px): the guides bar open, no button, the status diagram fits its column", async () => {
    const wide = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await wide.route(/^(?!file:|data:|about:|blob:)/, (route) => route.abort());
    const p = await wide.newPage();
    try {
      await p.goto(pageUrl);
      await p.getByRole("heading", { name: doc.info.title }).first().waitFor({ timeout: 60_000 });
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1400);
      const nav = p.locator(".verispec-site-nav");
      expect(await nav.locator("label.verispec-nav-button").isVisible()).toBe(false);
      expect(await nav.getByRole("link", { name: "Your own spec" }).isVisible()).toBe(true);
      const img = p.locator('img[alt="Status life cycle"]').first();
      await img.scrollIntoViewIfNeeded();
      const shown = await img.evaluate((el: HTMLImageElement) => ({
        width: el.getBoundingClientRect().width,
        column: el.parentElement!.clientWidth,
        scrolls: el.parentElement!.scrollWidth > el.parentElement!.clientWidth,
      }));
      expect(shown.width).toBeGreaterThan(0);
      expect(shown.width).toBeLessThanOrEqual(shown.column + 1);
      expect(shown.scrolls).toBe(false);
    } finally {
      await wide.close();
    }
  }, 120_000);

  it("makes no request that leaves the machine", () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests[0]).toBe(pageUrl);
    expect(requests.filter((u) => !LOCAL_SCHEMES.some((s) => u.startsWith(s)))).toEqual([]);
    expect(blocked).toEqual([]);
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
