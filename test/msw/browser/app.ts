// The page's script (bundled by test/msw/browser.test.ts with esbuild): MSW's service worker serving
// verispec/msw's handlers, and the package's typed client calling them from the page.
import { setupWorker } from "msw/browser";
import { createClient, TooManyAttemptsError } from "../../../generated/index.js";
import { createHandlers } from "../../../templates/msw/index.js";

let now = Date.parse("2026-03-01T09:00:00.000Z");
const mock = createHandlers({ now: () => now, processingMs: 1000 });
const worker = setupWorker(...mock.handlers);

async function run() {
  await worker.start({ quiet: true, serviceWorker: { url: "/mockServiceWorker.js" }, onUnhandledRequest: "bypass" });
  const client = createClient({ baseUrl: location.origin, serviceUid: mock.serviceUid, secret: mock.secret, retry: false });
  const body = { type: "individual", subType: "data", country: "AUS", website: "https://www.example.com", name: "Jane Rejected", userId: "browser-1" } as const;
  const created = await client.v5.createVerification(body);
  const statuses: string[] = [];
  for (let attempt = 1; attempt <= 5; attempt++) {
    now += 1000;
    const got = await client.v5.getVerification(created.trace!);
    statuses.push(`${got.data?.verificationStatus}/${got.data?.attempt}`);
    if (attempt < 5) await client.v5.createVerification(body);
  }
  const refused = await client.v5.createVerification(body).catch((e: unknown) => e);
  const unauthorized = await fetch("/v5/verifications", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  return {
    trace: created.trace,
    statuses,
    refused: refused instanceof TooManyAttemptsError ? refused.status : String(refused),
    unauthorized: unauthorized.status,
    stored: mock.state().verifications.length,
  };
}

(globalThis as { run?: typeof run }).run = run;
