/** The README's receiver example (receiver-example.ts), exercised with real HTTP POSTs on 127.0.0.1. */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook, type WebhookInterpretation } from "../../generated/webhooks.js";
import { createReceiver } from "./receiver-example.js";
import { v5Body, vectors } from "./helpers.js";

const SECRET = vectors.secret;
const handled: Array<{ payload: unknown; meaning: WebhookInterpretation }> = [];
let releaseProcessing: () => void = () => undefined;
let processingGate = Promise.resolve();
let processed: () => void = () => undefined;

const server = createReceiver(SECRET, async (payload, meaning) => {
  await processingGate; // holds processing until the test has its response
  handled.push({ payload, meaning });
  processed();
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function post(rawBody: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "POST", body: rawBody, headers: { "content-type": "application/json", ...headers } });
}

describe("receiver example", () => {
  it("answers 200 before processing, then processes the verified payload once", async () => {
    processingGate = new Promise<void>((resolve) => (releaseProcessing = resolve));
    const done = new Promise<void>((resolve) => (processed = resolve));
    const rawBody = v5Body(Date.now(), { trace: "http-1", verificationStatus: "verified" });

    const response = await post(rawBody, signWebhook({ version: "2", rawBody, secret: SECRET }));
    expect(response.status).toBe(200);
    expect(handled).toHaveLength(0); // answered while processing still waits
    releaseProcessing();
    await done;

    expect(handled).toHaveLength(1);
    expect(handled[0]!.payload).toEqual(JSON.parse(rawBody));
    expect(handled[0]!.meaning.outcome).toBe("verified");
  });

  it("refuses a bad signature with 400 and answers a replay with 200 without processing either", async () => {
    handled.length = 0;
    processingGate = Promise.resolve();
    const rawBody = v5Body(Date.now(), { trace: "http-2", verificationStatus: "rejected", attempt: 1, maxAttempts: 5 });
    const headers = signWebhook({ version: "1", rawBody, secret: SECRET });

    const forged = await post(rawBody, signWebhook({ version: "1", rawBody, secret: "not-the-key" }));
    expect(forged.status).toBe(400);

    const done = new Promise<void>((resolve) => (processed = resolve));
    expect((await post(rawBody, headers)).status).toBe(200);
    await done;
    expect((await post(rawBody, headers)).status).toBe(200); // replay

    // A later, different event proves the replay was not processed in between.
    const later = new Promise<void>((resolve) => (processed = resolve));
    const nextBody = v5Body(Date.now() + 1, { trace: "http-2", verificationStatus: "pending", attempt: 2, maxAttempts: 5 });
    expect((await post(nextBody, signWebhook({ version: "2", rawBody: nextBody, secret: SECRET }))).status).toBe(200);
    await later;
    expect(handled.map((h) => h.meaning.outcome)).toEqual(["retry_possible", "processing"]);
  });
});

describe("docs/webhooks.md shows this receiver as written", () => {
  it("the guide's receiver block is receiver-example.ts with the package import", async () => {
    const { readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const root = join(import.meta.dirname, "..", "..");
    const readme = (await import("../support/docs.js")).allDocs(root);
    const example = readFileSync(join(import.meta.dirname, "receiver-example.ts"), "utf8").replace('"../../generated/webhooks.js"', '"verispec/webhooks"');
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  });
});
