// A Fastify 5 receiver: the fastifyWebhook plugin keeps the raw bytes in its own scope (the app's JSON
// parsing elsewhere is unchanged), answers 400 to a refused delivery and 413 over the size limit.
import Fastify, { type FastifyInstance } from "fastify";
import { MemoryReplayStore, verifyWebhook, type WebhookPayload } from "../../../generated/webhooks.js";
import { fastifyWebhook } from "../../../generated/runtime/webhooks/fastify.js";

export function fastifyReceiver(secret: string, handle: (payload: WebhookPayload) => Promise<void>): FastifyInstance {
  const replayStore = new MemoryReplayStore(); // this app's; several instances share one (verispec/webhooks/redis)
  const app = Fastify();
  app.register(
    fastifyWebhook(verifyWebhook, {
      path: "/webhooks",
      secret,
      maxBodyBytes: 64 * 1024,
      replayStore,
      onWebhook: async ({ payload }, _request, reply) => {
        await handle(payload);
        return reply.code(200).send();
      },
    }),
  );
  return app;
}
