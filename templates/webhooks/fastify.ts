/**
 * A Fastify 5 receiver (`verispec/webhooks/fastify`): a plugin whose scope keeps every body as raw
 * bytes (its own content-type parser, with Fastify's `bodyLimit`: 413 over it), verifies them and only
 * then hands the parsed payload on. Fastify is not imported: the types below are the few parts of its
 * API used here, so the package has no dependency on it.
 *
 *   app.register(fastifyWebhook(verifyWebhook, { path: "/webhooks", secret, onWebhook: async ({ payload }, request, reply) => { ... } }));
 */
import { maxBodyBytesOf, verifyOptions, webhookRefusal, type VerifyWebhookFunction, type WebhookRequestOptions } from "./request.js";
import type { VerifiedWebhook } from "./verify.js";

/** The parts of Fastify's request used here. */
export interface FastifyWebhookRequest {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: unknown;
}

/** The parts of Fastify's reply used here. */
export interface FastifyWebhookReply {
  readonly sent: boolean;
  code(status: number): this;
  send(payload?: unknown): unknown;
}

type RawParser = (request: unknown, body: Uint8Array, done: (error: Error | null, body?: unknown) => void) => void;

/** The parts of a Fastify instance (the plugin's own scope) used here. */
export interface FastifyWebhookScope<Req extends FastifyWebhookRequest, Reply extends FastifyWebhookReply> {
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(type: string, options: { parseAs: "buffer"; bodyLimit: number }, parser: RawParser): unknown;
  post(path: string, handler: (request: Req, reply: Reply) => Promise<unknown>): unknown;
}

export interface FastifyWebhookOptions<V5, V4, Req extends FastifyWebhookRequest, Reply extends FastifyWebhookReply> extends WebhookRequestOptions {
  /** The route's path, within the prefix the plugin is registered with. */
  readonly path: string;
  /** Called with each verified delivery; when it has not answered, the receiver answers 204. */
  readonly onWebhook: (webhook: VerifiedWebhook<V5, V4>, request: Req, reply: Reply) => unknown;
}

/**
 * A plugin for `app.register`: in its own scope (Fastify's encapsulation) every content type is kept
 * as bytes, so the app's JSON parsing elsewhere is unchanged. 400 for a refused delivery, 413 over
 * `maxBodyBytes` (Fastify's `bodyLimit`), 503 when the replay store is down.
 */
export function fastifyWebhook<V5, V4, Req extends FastifyWebhookRequest = FastifyWebhookRequest, Reply extends FastifyWebhookReply = FastifyWebhookReply>(
  verify: VerifyWebhookFunction<V5, V4>,
  options: FastifyWebhookOptions<V5, V4, Req, Reply>,
): (scope: FastifyWebhookScope<Req, Reply>) => Promise<void> {
  const bodyLimit = maxBodyBytesOf(options);
  const { onWebhook, path, ...rest } = options;
  const base = verifyOptions(rest);
  return async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (_request, body, done) => done(null, body));
    scope.post(path, async (request, reply) => {
      let webhook: VerifiedWebhook<V5, V4>;
      try {
        const rawBody = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
        webhook = await verify({ ...base, rawBody, headers: request.headers });
      } catch (error) {
        const refusal = webhookRefusal(error);
        if (refusal === undefined) throw error;
        return reply.code(refusal.status).send(refusal.body);
      }
      const answer = await onWebhook(webhook, request, reply);
      if (!reply.sent && answer === undefined) return reply.code(204).send();
      return answer;
    });
  };
}
