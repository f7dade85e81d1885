// verispec/msw in headless Chromium with MSW's service worker: the page's script (browser/app.ts, bundled
// with esbuild for the browser) starts the worker with the handlers and runs the typed client against them:
// create, GET, a rejected individual resubmitted to 474. The local server serves only the page, the bundle
// and mockServiceWorker.js; an API request that reached it (not answered by the worker) is counted.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../sandbox/helpers.js";
import { needProgram } from "../support/services.js";

const chromiumProgram = needProgram("chromium", "apt-get install -y chromium");
const HERE = join(ROOT, "test", "msw", "browser");

/** node:crypto, which templates/webhooks/ still imports, as the noble-based stand-in (browser/node-crypto.ts). */
const nodeCrypto: Plugin = {
  name: "node-crypto",
  setup(b) {
    b.onResolve({ filter: /^node:crypto$/ }, () => ({ path: join(HERE, "node-crypto.ts") }));
  },
};

let server: Server;
let browser: Browser;
let origin: string;
/** Requests the local server got for anything but its three files (the browser's own favicon.ico aside). */
const apiHits: string[] = [];

beforeAll(async () => {
  if (!chromiumProgram.found) return;
  const bundle = await build({
    entryPoints: [join(HERE, "app.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    plugins: [nodeCrypto],
    logLevel: "silent",
  });
  const files: Record<string, [string, string]> = {
    "/": ["text/html; charset=utf-8", '<!doctype html><html><head><script type="module" src="/app.js"></script></head><body>verispec/msw</body></html>'],
    "/app.js": ["text/javascript", bundle.outputFiles[0]!.text],
    "/mockServiceWorker.js": ["text/javascript", readFileSync(join(ROOT, "node_modules", "msw", "lib", "mockServiceWorker.js"), "utf8")],
  };
  server = createServer((req, res) => {
    const file = files[req.url ?? ""];
    if (file) return void res.writeHead(200, { "Content-Type": file[0], "Cache-Control": "no-store" }).end(file[1]);
    if (req.url !== "/favicon.ico") apiHits.push(`${req.method} ${req.url}`);
    res.writeHead(599).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: chromiumProgram.path,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise<void>((r) => server.close(() => r()));
});

describe.skipIf(!chromiumProgram.found)("verispec/msw in Chromium (MSW's service worker)", () => {
  it("the typed client in the page: create, GET, rejected to 474, a 401 without credentials; nothing reached the server", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => typeof (globalThis as { run?: unknown }).run === "function");
    const result = await page.evaluate(() => (globalThis as unknown as { run: () => Promise<unknown> }).run());
    expect(errors).toEqual([]);
    expect(result).toEqual({
      trace: "00000000-0000-4000-8000-000000000001",
      statuses: ["rejected/1", "rejected/2", "rejected/3", "rejected/4", "rejected/5"],
      refused: 474,
      unauthorized: 401,
      stored: 1,
    });
    expect(apiHits).toEqual([]);
    await page.close();
  }, 120_000);
});
