// An Express 5 receiver: expressWebhook reads the raw bytes itself (no express.json() on this route),
// answers 400 to a refused delivery and 413 over the size limit, and hands on only a verified payload.
import express from "express";
import { MemoryReplayStore, verifyWebhook, type WebhookPayload } from "../../../generated/webhooks.js";
import { expressWebhook } from "../../../generated/runtime/webhooks/express.js";

export function expressReceiver(secret: string, handle: (payload: WebhookPayload) => Promise<void>): express.Express {
  const replayStore = new MemoryReplayStore(); // this app's; several instances share one (verispec/webhooks/redis)
  const app = express();
  app.post(
    "/webhooks",
    expressWebhook(verifyWebhook, {
      secret,
      maxBodyBytes: 64 * 1024,
      replayStore,
      onWebhook: async ({ payload }, _req, res) => {
        await handle(payload);
        res.sendStatus(200);
      },
    }),
  );
  app.use(express.json()); // the rest of the app parses JSON as usual
  return app;
}
