// A webhook receiver on node:http (the service's specification, section 6.1): keep the raw bytes, verify, answer 200 at once, process after.
import { createServer, type Server } from "node:http";
import {
  createOrderingGuard,
  interpretWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookInterpretation,
  type WebhookPayload,
} from "../../generated/webhooks.js";

export function createReceiver(
  secret: string | string[], // several keys during a rotation
  handle: (payload: WebhookPayload, meaning: WebhookInterpretation) => Promise<void>,
): Server {
  const ordering = createOrderingGuard(); // drops stale events and re-deliveries, per trace
  return createServer((req, res) => {
    const chunks: Buffer[] = []; // limit the body size in front of this (proxy or framework)
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      let payload: WebhookPayload;
      try {
        // The exact bytes received: JSON parsed and re-serialised would not match the signature.
        ({ payload } = await verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret }));
      } catch (error) {
        const refused = error instanceof WebhookVerificationError;
        // A replay was handled already; other refusals are 400; anything else (a store down) is 500, so it is retried.
        res.writeHead(!refused ? 500 : error.reason === "replayed" ? 200 : 400).end();
        return;
      }
      res.writeHead(200).end(); // answer at once, then process
      try {
        if (await ordering.accept(payload)) await handle(payload, interpretWebhook(payload));
      } catch (error) {
        console.error("webhook processing failed:", error instanceof Error ? error.message : error);
      }
    });
  });
}
