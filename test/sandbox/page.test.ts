// The /_sandbox page in headless Chromium: behind the same credentials, it lists the verifications with
// their status history as a timeline and each webhook delivery, and refreshes by itself. A screenshot is
// kept in test/.artifacts/sandbox.png.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/index.js";
import { needProgram } from "../support/services.js";
import { call, CREDENTIALS, ROOT, startReceiver, startSandbox, v5Individual, type Sandbox } from "./helpers.js";

const chromiumProgram = needProgram("chromium", "apt-get install -y chromium");
const ARTIFACTS = join(ROOT, "test", ".artifacts");

describe.skipIf(!chromiumProgram.found)("the /_sandbox page in Chromium", () => {
  let sandbox: Sandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;

  beforeAll(async () => {
    receiver = await startReceiver((d) => (JSON.parse(d.body).verificationStatus === "rejected" ? 500 : 200));
    sandbox = await startSandbox(["--db", "memory", "--processing-ms", "manual", "--webhook-url", receiver.url, "--retry-delays", "100"]);
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
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await receiver?.close();
  });

  it("asks for credentials, then shows the timeline and the deliveries, refreshing by itself", async () => {
    const refused = await fetch(`${sandbox.url}/_sandbox`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Basic /);

    const context = await browser.newContext({
      httpCredentials: { username: CREDENTIALS.serviceUid, password: CREDENTIALS.secret },
      viewport: { width: 1400, height: 900 },
    });
    const page = await context.newPage();
    const client = createClient({ baseUrl: sandbox.url, ...CREDENTIALS, retry: false });
    const { trace } = await client.v5.createVerification(v5Individual("Page Person", "page-1"));
    const blocked: string[] = [];
    page.on("console", (m) => void (/Content Security Policy/i.test(m.text()) && blocked.push(m.text())));
    const opened = await page.goto(`${sandbox.url}/_sandbox`);
    // Its policy allows its own script and style by hash only, and forbids framing; the page still refreshes under it.
    expect(opened!.headers()["content-security-policy"]).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'; .*frame-ancestors 'none'/);
    expect(opened!.headers()["x-frame-options"]).toBe("DENY");
    const row = page.locator(`tr[data-trace="${trace}"]`);
    await row.waitFor();
    expect(await row.locator(".tl .st").allTextContents()).toHaveLength(1);

    // A change made elsewhere appears without reloading: the timeline grows, the failing delivery shows its retries.
    await call(sandbox.url, "POST", `/_sandbox/verifications/${trace}/status`, { verificationStatus: "rejected" });
    await page.waitForFunction((t) => document.querySelectorAll(`tr[data-trace="${t}"] .tl .st`).length === 2, trace, { timeout: 15_000 });
    expect((await row.locator(".tl .st").allTextContents()).map((s) => s.split(" ")[0])).toEqual(["pending", "rejected"]);
    await page.waitForFunction(() => document.querySelectorAll("#deliveries td.failed").length === 1, undefined, { timeout: 15_000 });
    const deliveries = await page.locator("#deliveries tbody tr").allTextContents();
    expect(deliveries).toHaveLength(2);
    expect(deliveries.join("\n")).toMatch(/failed 500/);
    expect(deliveries.join("\n")).toMatch(/delivered 200/);
    expect(deliveries.every((d) => d.includes("v2"))).toBe(true);

    expect(blocked).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "sandbox.png"), fullPage: true });
    await context.close();
  }, 60_000);

  it("the start lines name the page's URL", () => {
    expect(sandbox.stdout.split("\n")).toContain(`verispec sandbox page ${sandbox.url}/_sandbox (your browser asks for the service UID and secret)`);
  });

  it("opened with the credentials in its URL, the page still reads and shows the data", async () => {
    const client = createClient({ baseUrl: sandbox.url, ...CREDENTIALS, retry: false });
    const { trace } = await client.v5.createVerification(v5Individual("Url Person", "page-url-1"));
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const withCredentials = new URL(`${sandbox.url}/_sandbox`);
    withCredentials.username = CREDENTIALS.serviceUid;
    withCredentials.password = CREDENTIALS.secret;
    await page.goto(withCredentials.href);
    await page.locator(`tr[data-trace="${trace}"]`).waitFor({ timeout: 15_000 });
    expect(await page.locator("#problem").isHidden()).toBe(true);
    await context.close();
  }, 60_000);

  it("a failed read of /_sandbox/state is said on the page, not left as empty tables", async () => {
    const context = await browser.newContext({
      httpCredentials: { username: CREDENTIALS.serviceUid, password: CREDENTIALS.secret },
      viewport: { width: 1400, height: 900 },
    });
    const page = await context.newPage();
    await page.route("**/_sandbox/state*", (route) => route.fulfill({ status: 503, body: "down" }));
    await page.goto(`${sandbox.url}/_sandbox`);
    const problem = page.locator("#problem");
    await problem.waitFor({ state: "visible", timeout: 15_000 });
    expect(await problem.textContent()).toMatch(/^Could not read the sandbox's state \(HTTP 503\)\./);
    await page.unroute("**/_sandbox/state*");
    await page.route("**/_sandbox/state*", (route) => route.abort("connectionrefused"));
    await page.waitForFunction(() => /^Could not reach the sandbox/.test(document.getElementById("problem")!.textContent ?? ""), undefined, {
      timeout: 15_000,
    });
    await page.unroute("**/_sandbox/state*");
    await page.waitForFunction(() => document.getElementById("problem")!.hidden, undefined, { timeout: 15_000 });
    await context.close();
  }, 60_000);
});
