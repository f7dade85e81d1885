// The hosted form of /idform in headless Chromium, at desktop (1400 px) and phone (390 px) widths: the
// customer fills it in, submits something invalid, sees each error beside its field (the page no wider than
// the screen), corrects it, submits, and a webhook receiver gets the entity's webhook and one per individual
// stakeholder, signed. Screenshots are kept in test/.artifacts/form-<width>-<step>.png.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../templates/sandbox/store/index.js";
import { needProgram } from "../support/services.js";
import { CREDENTIALS, request, ROOT, SIGNING_SECRET, startReceiver, until, webhookErrors } from "./helpers.js";
import { binding, harness, memoryDb, type Harness } from "./inprocess.js";

const chromiumProgram = needProgram("chromium", "apt-get install -y chromium");
const ARTIFACTS = join(ROOT, "test", ".artifacts");

describe.skipIf(!chromiumProgram.found)("the hosted form in Chromium", () => {
  let db: Db;
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;

  beforeAll(async () => {
    receiver = await startReceiver();
    db = await memoryDb();
    h = await harness(db, { webhookUrls: [receiver.url], signatureVersion: "2" });
    browser = await chromium.launch({
      executablePath: chromiumProgram.path,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await db?.close();
    await receiver?.close();
  });

  /** A new form for a sole trader with one individual stakeholder; its serviceLink. */
  async function newForm(userId: string): Promise<{ id: string; link: string }> {
    const r = await request(h.url, "POST", "/idform", {
      metadata_version: "4",
      metadata_serviceUid: CREDENTIALS.serviceUid,
      metadata_secretKey: CREDENTIALS.secret,
      metadata_userId: userId,
      serviceLink_dataAccessType: "idForm",
      type: "soleTrader",
      fields: { country: "AUS", name: "Browser Trader", principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
      stakeholders: [{ type: "individual", role: "individuals", fields: { country: "AUS", firstName: "Ann", lastName: "Lee" } }],
    });
    expect(r.status).toBe(200);
    return { id: r.body.verificationUuid, link: r.body.serviceLink };
  }

  /** The error shown for an input: its text, and whether it sits beside the input (below or to its right, inside the viewport). */
  async function errorBeside(page: Page, name: string, width: number): Promise<string> {
    const input = page.locator(`[name="${name}"]`);
    const error = page.locator(`[id="in-${name}-error"]`);
    await error.waitFor();
    const [i, e] = [(await input.boundingBox())!, (await error.boundingBox())!];
    // Beside: just below the input (same column) or on its right (same row), and within the screen's width.
    const below = e.y >= i.y + i.height - 1 && e.y - (i.y + i.height) < 40 && Math.abs(e.x - i.x) < 2;
    const right = e.x >= i.x + i.width && Math.abs(e.y - i.y) < i.height;
    expect(below || right, `${name}: error at ${JSON.stringify(e)}, input at ${JSON.stringify(i)}`).toBe(true);
    expect(e.x + e.width).toBeLessThanOrEqual(width + 1);
    expect(await input.getAttribute("aria-invalid")).toBe("true");
    return (await error.textContent()) ?? "";
  }

  it.each([
    ["desktop", 1400],
    ["phone", 390],
  ])(
    "at %s width (%i px): fill, submit invalid, see the errors beside the fields, correct, submit, receive the webhooks",
    async (_label, width) => {
      const { id, link } = await newForm(`browser-${width}`);
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const blocked: string[] = [];
      page.on("console", (m) => void (/Content Security Policy/i.test(m.text()) && blocked.push(m.text())));
      const opened = await page.goto(link);
      // The page is sent with its policy (its own style only, no framing), and the policy blocks nothing of it.
      expect(opened!.headers()["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
      expect(opened!.headers()["x-frame-options"]).toBe("DENY");
      expect(await page.locator('label[for="in-fields.abn"]').textContent()).toBe("ABN");
      expect(await page.locator('[name="stakeholders.0.fields.firstName"]').inputValue()).toBe("Ann");
      await page.screenshot({ path: join(ARTIFACTS, `form-${width}-open.png`), fullPage: true });

      await page.fill('[name="fields.abn"]', "123");
      await page.fill('[name="stakeholders.0.fields.firstName"]', "Ann1");
      await page.fill('[name="fields.name"]', "Browser <Trader>");
      await Promise.all([page.waitForURL(link), page.click('button[type="submit"]')]);
      expect(await errorBeside(page, "fields.abn", width)).toBe("ABN must be exactly 11 digits.");
      expect(await errorBeside(page, "stakeholders.0.fields.firstName", width)).toBe(
        "Invalid string: must contain only letters, apostrophes, spaces and hyphens",
      );
      expect(await page.locator('[name="fields.abn"]').inputValue()).toBe("123");
      expect(await page.locator('[name="fields.name"]').inputValue()).toBe("Browser <Trader>");
      expect(await page.locator(".summary").isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(ARTIFACTS, `form-${width}-invalid.png`), fullPage: true });
      expect(await h.service.get(id)).toBeUndefined();

      await page.fill('[name="fields.abn"]', "51824753556");
      await page.fill('[name="stakeholders.0.fields.firstName"]', "Anne");
      await Promise.all([page.waitForURL(link), page.click('button[type="submit"]')]);
      expect(await page.title()).toBe("Submitted");
      expect(blocked).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `form-${width}-submitted.png`), fullPage: true });
      await context.close();

      // The receiver gets the entity's webhook and the stakeholder's, each signed (version 2) and valid.
      const received = await until(() => {
        const mine = receiver.deliveries.map((d) => ({ d, p: JSON.parse(d.body) })).filter(({ p }) => p.trace === id || p.parentVerificationTrace === id);
        return mine.length === 2 && mine;
      }, "the entity's and the stakeholder's webhooks");
      const entity = received.find(({ p }) => p.trace === id)!;
      const person = received.find(({ p }) => p.parentVerificationTrace === id)!;
      expect(entity.p).toMatchObject({ name: "Browser <Trader>", entityType: "soleTrader", verificationStatus: "pending", userId: `browser-${width}` });
      expect(person.p).toMatchObject({ name: "Anne Lee", entityType: "individual", parentUserId: `browser-${width}`, trace: entity.p.stakeholders[0].trace });
      for (const { d } of received) {
        expect(webhookErrors(d.body)).toEqual([]);
        const signed = binding.signWebhook({ version: "2", rawBody: d.body, secret: SIGNING_SECRET });
        for (const [header, value] of Object.entries(signed)) expect(d.headers[header.toLowerCase()]).toBe(value);
      }
    },
    90_000,
  );
});
