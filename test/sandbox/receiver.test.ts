// The README's webhook receiver example (test/webhooks/receiver-example.ts) receives the sandbox's
// webhooks, signed with version 2 and with version 1, and accepts them with verifyWebhook; a re-send from
// the control API carries the same bytes, timestamp and deliveryId and is refused as `replayed`.
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/index.js";
import { verifyWebhook, type WebhookInterpretation, type WebhookPayload } from "../../generated/webhooks.js";
import { createReceiver } from "../webhooks/receiver-example.js";
import { call, CREDENTIALS, olderIndividual, SIGNING_SECRET, startReceiver, startSandbox, until, v5Individual, webhookErrors } from "./helpers.js";

const handled: Array<{ payload: WebhookPayload; meaning: WebhookInterpretation }> = [];
const readme = createReceiver(SIGNING_SECRET, async (payload, meaning) => void handled.push({ payload, meaning }));
let readmeUrl = "";
let recorder: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  await new Promise<void>((resolve) => readme.listen(0, "127.0.0.1", resolve));
  readmeUrl = `http://127.0.0.1:${(readme.address() as AddressInfo).port}/webhooks`;
  recorder = await startReceiver();
});

afterAll(async () => {
  readme.closeAllConnections();
  await new Promise((resolve) => readme.close(resolve));
  await recorder.close();
});

for (const version of ["2", "1"] as const) {
  describe(`signature version ${version}`, () => {
    it("the README receiver accepts every webhook; a re-send is refused as replayed", async () => {
      const sandbox = await startSandbox([
        "--db",
        "memory",
        "--processing-ms",
        "200",
        "--signature-version",
        version,
        "--webhook-url",
        readmeUrl,
        "--webhook-url",
        recorder.url,
      ]);
      try {
        const client = createClient({ baseUrl: sandbox.url, ...CREDENTIALS, retry: false });
        const word = version === "2" ? "Two" : "One";
        const { trace } = await client.v5.createVerification(v5Individual(`Receiver Rejected ${word}`));
        const older = await client.verify(olderIndividual(`Receiver${word}`, `receiver-${version}`) as never);
        const traces = [trace!, older.trace!];
        // Each: pending, then processing completes (rejected / verified).
        await until(() => traces.every((t) => handled.filter((h) => h.payload.trace === t).length === 2), "both webhooks of both verifications", 30_000);
        const mine = handled.filter((h) => traces.includes(h.payload.trace as string));
        expect(mine.map((h) => `${h.payload.trace === trace ? "v5" : "older"}:${h.payload.verificationStatus}`).sort()).toEqual([
          "older:pending",
          "older:verified",
          "v5:pending",
          "v5:rejected",
        ]);
        expect(mine.find((h) => h.payload.verificationStatus === "rejected")!.meaning.outcome).toBe("retry_possible");
        const recorded = recorder.deliveries.filter((d) => traces.includes(JSON.parse(d.body).trace));
        expect(recorded.every((d) => d.headers["x-svc-signature-version"] === version)).toBe(true);
        expect(recorded.map((d) => webhookErrors(d.body)).filter((e) => e.length)).toEqual([]);

        // Re-send the v5 initial webhook: the same bytes and deliveryId reach both receivers.
        const first = recorded.find((d) => JSON.parse(d.body).trace === trace && JSON.parse(d.body).verificationStatus === "pending")!;
        const deliveryId = String(first.headers["x-svc-delivery-id"]);
        const count = handled.length;
        const resent = await call(sandbox.url, "POST", `/_sandbox/deliveries/${deliveryId}/resend`);
        expect(resent.body).toEqual({ resent: 2 });
        const again = await until(
          () =>
            recorder.deliveries.filter((d) => d.headers["x-svc-delivery-id"] === deliveryId).length === 2 &&
            recorder.deliveries.filter((d) => d.headers["x-svc-delivery-id"] === deliveryId)[1],
          "the re-send",
        );
        expect(again.body).toBe(first.body);
        const listed = await until(async () => {
          const all = (await call(sandbox.url, "GET", `/_sandbox/deliveries?trace=${trace}`)).body.deliveries as Array<{
            url: string;
            resend: boolean;
            state: string;
            lastStatus: number;
          }>;
          const r = all.find((d) => d.resend && d.url === readmeUrl && d.state === "delivered");
          return r;
        }, "the re-send answered by the README receiver");
        expect(listed.lastStatus).toBe(200); // the example answers a replay 200: handled already
        expect(handled.length).toBe(count); // and does not process it again
        // The receiver's replay store (the kit's default store, shared with the example) refuses it as replayed.
        await expect(verifyWebhook({ rawBody: again.body, headers: again.headers, secret: SIGNING_SECRET })).rejects.toMatchObject({ reason: "replayed" });
      } finally {
        expect(await sandbox.stop()).toBe(0);
      }
    }, 120_000);
  });
}
