// Issue 6, part 4: the reference page. `verispec docs` builds a self-contained Redoc page; headless
// Chromium opens it from disk and shows every operation, every webhook, the status tables and the
// "not shown" notes, while no request leaves the machine.
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

const chromiumProgram = needProgram("chromium", "apt-get install -y chromium");

const ARTIFACTS = join(ROOT, "test", ".artifacts");
/** Schemes a self-contained page may request: its own file, inline data, and in-memory objects Redoc makes (blob: workers). */
const LOCAL_SCHEMES = ["file:", "data:", "about:", "blob:"];

type Json = Record<string, any>;
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
  for (const [section, kind] of [["paths", "operation"], ["webhooks", "webhook"]] as const) {
    for (const [path, item] of Object.entries(doc[section] as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const o = op as Json;
        out.push({ kind, tag: o.tags[0], operationId: o.operationId, summary: o.summary, method, path, lead: normalize((o.description as string).split("\n\n")[0]!) });
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

  browser = await chromium.launch({ executablePath: chromiumProgram.path, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
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
    .waitForFunction((s) => document.body.innerText.replaceAll("`", "").replace(/\s+/g, " ").includes(s), expected, { timeout: 30_000 })
    .catch(() => undefined);
  return page.evaluate(() => document.body.innerText);
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
    for (const heading of ["Verification statuses (the service's specification, section 3)", "Submission statuses (the service's specification, section 3)", "Transitions (the service's specification, section 3)", "Not shown in the service's specification"]) {
      expect(text).toContain(heading);
    }
    const rows = description.split("\n").filter((l) => /^\| `[a-z]+` \|/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(11); // 8 verification statuses, 3 submission statuses
    for (const row of rows) {
      const cells = row.split("|").slice(1, -1).map((c) => normalize(c));
      expect(text, `status row ${row}`).toContain(cells.join(" "));
    }
    const notes = description.split("## Not shown in the service's specification")[1]!.split("\n").filter((l) => l.startsWith("- (the service's specification, section "));
    expect(notes.length).toBeGreaterThanOrEqual(10);
    for (const note of notes) expect(text, `note ${note}`).toContain(normalize(note.slice(2)));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "docs.png") });
  }, 120_000);

  it("shows the status life-cycle diagram (generated/statuses.svg without its legend, inline in info.description)", async () => {
    const svg = Buffer.from(/<img alt="Status life cycle" src="data:image\/svg\+xml;base64,([^"]+)"/.exec(doc.info.description as string)![1]!, "base64").toString("utf8");
    const [, width, height] = /<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg)!;
    const img = page.locator('img[alt="Status life cycle"]').first();
    await img.scrollIntoViewIfNeeded();
    const shown = await img.evaluate((el: HTMLImageElement) => ({ complete: el.complete, w: el.naturalWidth, h: el.naturalHeight, visible: el.getBoundingClientRect().width > 0 }));
    expect(shown).toEqual({ complete: true, w: Number(width), h: Number(height), visible: true });
  }, 60_000);

  it("lays the diagram out readably: every text inside the picture, no two status boxes overlapping", async () => {
    const diagram = await context.newPage();
    await diagram.goto(pathToFileURL(join(ROOT, "generated", "statuses.svg")).href);
    const layout = await diagram.evaluate(() => {
      const root = document.documentElement as unknown as SVGSVGElement;
      const box = (e: Element) => (e as SVGGraphicsElement).getBBox();
      const outside = Array.from(root.querySelectorAll("text")).filter((t) => {
        const b = box(t);
        return b.x < 0 || b.y < 0 || b.x + b.width > root.width.baseVal.value || b.y + b.height > root.height.baseVal.value;
      }).map((t) => t.textContent);
      const rects = Array.from(root.querySelectorAll("rect.node")).map(box);
      const overlaps = rects.flatMap((a, i) => rects.slice(i + 1).filter((b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height).map(() => i));
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
      // Redoc's sidebar links each operation as #/<tag>/<operationId in lower case>.
      const link = page.locator(`a[href="#/${op.tag}/${op.operationId.toLowerCase()}"]`).first();
      if ((await link.count()) === 0) await page.locator(`a[href="/${op.tag}"]`).first().click();
      await link.click();
      const text = normalize(await textShowing(op.lead));
      const shown = [op.summary, op.lead, ...(op.kind === "operation" ? [`${op.method.toUpperCase()} ${op.path}`] : [])];
      for (const s of shown) if (!text.includes(s)) missing.push(`${op.kind} ${op.operationId}: ${s}`);
      if (op.operationId === "verificationEventV5") await page.screenshot({ path: join(ARTIFACTS, "docs-webhook.png") });
    }
    expect(missing).toEqual([]);
  }, 180_000);

  it("makes no request that leaves the machine", () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests[0]).toBe(pageUrl);
    expect(requests.filter((u) => !LOCAL_SCHEMES.some((s) => u.startsWith(s)))).toEqual([]);
    expect(blocked).toEqual([]);
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
