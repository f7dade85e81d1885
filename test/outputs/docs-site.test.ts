// Issue 24, item 7: the offline site `verispec docs` writes reads well at 1400 px and at 390 px (a phone):
// no horizontal overflow of the content, no inline code (status names, enum values) broken inside a
// word, no table cut off, the status diagram's legend (the numbered transitions) at body size; and the
// user guides (docs/*.md) are pages of the same site, with one navigation bar and no broken link.
// Screenshots go to test/.artifacts/ (gitignored).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { siteHref, slugger } from "../../generator/cli/commands/docs-site.js";
import type { Io } from "../../generator/context.js";
import { needProgram } from "../support/services.js";
import { OPENAPI, ROOT } from "./helpers.js";

const chromiumProgram = needProgram("chromium", "apt-get install -y chromium");
const ARTIFACTS = join(ROOT, "test", ".artifacts");
const WIDTHS = [1400, 390] as const;
const GUIDES = readdirSync(join(ROOT, "docs"))
  .filter((f) => f.endsWith(".md"))
  .sort();
const description = (JSON.parse(readFileSync(OPENAPI, "utf8")) as { info: { description: string } }).info.description;
const TRANSITIONS = description.split("\n").filter((l) => /^\d+\. /.test(l)).length;

let temp = "";
let site = "";
let browser: Browser;
let built = { code: -1, stderr: "" };

beforeAll(async () => {
  if (!chromiumProgram.found) return;
  temp = mkdtempSync(join(tmpdir(), "verispec-docs-site-"));
  copyFileSync(OPENAPI, join(temp, "openapi.json"));
  copyFileSync(join(OPENAPI, "..", ".verispec-manifest"), join(temp, ".verispec-manifest"));
  let stderr = "";
  const io: Io = { stdout: () => undefined, stderr: (t) => void (stderr += t), env: process.env, cwd: ROOT, stdin: async () => "" };
  built = { code: await main(["docs", "--out", temp], io), stderr };
  site = join(temp, "docs");
  browser = await chromium.launch({
    executablePath: chromiumProgram.path,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (temp) rmSync(temp, { recursive: true, force: true });
}, 60_000);

async function open(page: string, width: number): Promise<Page> {
  const p = await browser.newPage({ viewport: { width, height: 900 } });
  await p.route(/^(?!file:|data:|about:|blob:)/, (route) => route.abort());
  await p.goto(pathToFileURL(join(site, page)).href);
  return p;
}

/** What a reader sees wrong: page wider than the window, code in several pieces, a table cut off. */
function layoutProblems(column: string): { pageOverflow: number; columnOverflow: number; brokenCode: string[]; clippedTables: number[] } {
  const col = document.querySelector(column) as HTMLElement;
  const codes = Array.from(document.querySelectorAll("code")).filter((c) => !c.closest("pre") && c.getClientRects().length > 0);
  const tables = Array.from(col.querySelectorAll("table"));
  const scrolls = (t: Element) => ["auto", "scroll"].includes(getComputedStyle(t).overflowX);
  return {
    pageOverflow: document.documentElement.scrollWidth - innerWidth,
    columnOverflow: col.scrollWidth - col.clientWidth,
    brokenCode: codes.filter((c) => c.getClientRects().length !== 1).map((c) => c.textContent ?? ""),
    clippedTables: tables
      .map((t, i) => ((t.scrollWidth > t.clientWidth + 1 && !scrolls(t)) || t.getBoundingClientRect().right > col.getBoundingClientRect().right + 1 ? i : -1))
      .filter((i) => i >= 0),
  };
}

describe("site links (no browser)", () => {
  it("a guide's link to another guide goes to its page; to another file of the repository, to the repository", () => {
    const guides = new Set(["sandbox.md", "webhooks.md"]);
    const repo = "https://github.com/verispec/verispec";
    expect(siteHref("sandbox.md", guides, repo)).toBe("sandbox.html");
    expect(siteHref("webhooks.md#verifying-a-webhook", guides, repo)).toBe("webhooks.html#verifying-a-webhook");
    expect(siteHref("engineering/delivery-soak.md", guides, repo)).toBe(`${repo}/blob/main/docs/engineering/delivery-soak.md`);
    expect(siteHref("../README.md#install", guides, repo)).toBe(`${repo}/blob/main/README.md#install`);
    expect(siteHref("#options", guides, repo)).toBe("#options");
    expect(siteHref("https://example.com/x.md", guides, repo)).toBe("https://example.com/x.md");
  });

  it("headings get GitHub's anchors", () => {
    const slug = slugger();
    expect(slug("Under the default rule sets (no configuration)")).toBe("under-the-default-rule-sets-no-configuration");
    expect(slug("`verispec diff`: the kinds")).toBe("verispec-diff-the-kinds");
    expect(slug("Under the default rule sets (no configuration)")).toBe("under-the-default-rule-sets-no-configuration-1");
  });
});

describe.skipIf(!chromiumProgram.found)("verispec docs: the site", () => {
  it("writes the reference and one page per guide", () => {
    expect(built).toEqual({ code: 0, stderr: "" });
    expect(
      readdirSync(site)
        .filter((f) => f.endsWith(".html"))
        .sort(),
    ).toEqual(["index.html", ...GUIDES.map((g) => g.replace(/\.md$/, ".html"))].sort());
  });

  for (const width of WIDTHS) {
    it(`the reference reads well at ${width} px: no overflow, no code broken inside a word, no table cut off, a legend at body size`, async () => {
      const page = await open("index.html", width);
      const heading = page.locator("h2", { hasText: "Transitions (the service's specification, section 3)" }).first();
      await heading.waitFor({ timeout: 60_000 });
      expect(await page.evaluate(layoutProblems, ".api-content")).toEqual({ pageOverflow: 0, columnOverflow: 0, brokenCode: [], clippedTables: [] });
      const legend = await page.evaluate(() => {
        const h = Array.from(document.querySelectorAll("h2")).find((e) => e.textContent?.startsWith("Transitions"))!;
        const list = Array.from(document.querySelectorAll("ol")).find((ol) => h.compareDocumentPosition(ol) & Node.DOCUMENT_POSITION_FOLLOWING);
        const size = (e: Element | null | undefined) => (e ? parseFloat(getComputedStyle(e).fontSize) : 0);
        return { items: list?.querySelectorAll("li").length ?? 0, font: size(list?.querySelector("li")), body: size(document.querySelector(".api-info p")) };
      });
      expect(legend.items).toBe(TRANSITIONS);
      expect(legend.font >= legend.body || legend.font >= 12, JSON.stringify(legend)).toBe(true);
      mkdirSync(ARTIFACTS, { recursive: true });
      await heading.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, `docs-transitions-${width}.png`) });
      await page.locator('img[alt="Status life cycle"]').first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, `docs-diagram-${width}.png`) });
      await page.close();
    }, 120_000);
  }

  it("the status names and error types stay whole at 390 px", async () => {
    const page = await open("index.html", 390);
    await page.locator("h2", { hasText: "Submission statuses" }).first().waitFor({ timeout: 60_000 });
    for (const name of ["incomplete", "too_many_attempts", "submitted", "pending"]) {
      const rects = await page
        .locator("code", { hasText: new RegExp(`^${name}$`) })
        .first()
        .evaluate((c) => c.getClientRects().length);
      expect(rects, name).toBe(1);
    }
    await page.close();
  }, 120_000);

  it("every guide page reads well at both widths and links to the reference and every other guide", async () => {
    const problems: string[] = [];
    for (const guide of GUIDES.map((g) => g.replace(/\.md$/, ".html"))) {
      for (const width of WIDTHS) {
        const page = await open(guide, width);
        const found = await page.evaluate(layoutProblems, "main");
        if (JSON.stringify(found) !== JSON.stringify({ pageOverflow: 0, columnOverflow: 0, brokenCode: [], clippedTables: [] }))
          problems.push(`${guide} at ${width}: ${JSON.stringify(found)}`);
        const nav = await page.locator("nav.verispec-site-nav a").evaluateAll((as) => as.map((a) => [a.getAttribute("href"), a.getAttribute("aria-current")]));
        expect(nav.map(([href]) => href)).toEqual(["index.html", ...GUIDES.map((g) => g.replace(/\.md$/, ".html"))]);
        expect(nav.filter(([, current]) => current === "page").map(([href]) => href)).toEqual([guide]);
        if (guide === "sandbox.html" || guide === "other-languages.html")
          await page.screenshot({ path: join(ARTIFACTS, `guide-${guide.replace(".html", "")}-${width}.png`), fullPage: false });
        await page.close();
      }
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it("has no broken internal link: every relative link reaches a page of the site and its anchor", async () => {
    const broken: string[] = [];
    const ids = new Map<string, Set<string>>();
    const idsOf = async (file: string) => {
      if (!ids.has(file)) {
        const page = await open(file, 1400);
        ids.set(file, new Set(await page.locator("[id]").evaluateAll((es) => es.map((e) => e.id))));
        await page.close();
      }
      return ids.get(file)!;
    };
    for (const file of readdirSync(site).filter((f) => f.endsWith(".html") && f !== "index.html")) {
      const page = await open(file, 1400);
      const hrefs = await page.locator("a[href]").evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
      await page.close();
      for (const href of hrefs.filter((h) => !/^[a-z][a-z0-9+.-]*:/i.test(h))) {
        const [path, fragment] = href.split("#") as [string, string | undefined];
        const target = path === "" ? file : path;
        if (!existsSync(join(site, target))) broken.push(`${file}: ${href} (no such page)`);
        else if (fragment && target !== "index.html" && !(await idsOf(target)).has(decodeURIComponent(fragment)))
          broken.push(`${file}: ${href} (no such anchor)`);
      }
      expect(hrefs.filter((h) => /\.md(#|$)/.test(h) && !h.startsWith("https://"))).toEqual([]);
    }
    expect(broken).toEqual([]);
    expect(readFileSync(join(site, "index.html"), "utf8")).toContain('<a href="sandbox.html">Sandbox</a>');
  }, 240_000);
});
