// A Hono receiver (the same code on Workers, Deno, Bun, Node, and in a Next.js route handler with the
// Request it is given): verifyWebhookRequest reads the request's exact bytes within the size limit.
import { Hono } from "hono";
import { MemoryReplayStore, verifyWebhookRequest, webhookRefusalResponse, type WebhookPayload } from "../../../generated/webhooks.js";

export function honoReceiver(secret: string, handle: (payload: WebhookPayload) => Promise<void>): Hono {
  const replayStore = new MemoryReplayStore(); // this app's; several instances share one (verispec/webhooks/redis)
  const app = new Hono();
  app.post("/webhooks", async (c) => {
    try {
      const { payload } = await verifyWebhookRequest(c.req.raw, { secret, maxBodyBytes: 64 * 1024, replayStore });
      await handle(payload);
      return c.body(null, 200);
    } catch (error) {
      return webhookRefusalResponse(error); // 400 refused, 413 too large, 503 replay store down; rethrows the rest
    }
  });
  return app;
}
