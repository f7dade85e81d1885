/**
 * An Express 5 receiver (`verispec/webhooks/express`): reads the raw bytes itself, verifies them and
 * only then hands the parsed payload on. Express is not imported: the types below are the few parts
 * of its request and response this uses, so the package has no dependency on it.
 *
 *   app.post("/webhooks", expressWebhook(verifyWebhook, { secret, onWebhook: async ({ payload }, req, res) => { ... } }));
 *
 * Mount it without `express.json()` on that route (a parser that ran first has consumed the bytes);
 * a Buffer left by `express.raw()` is used as is.
 */
import {
  declaredTooLarge,
  maxBodyBytesOf,
  verifyOptions,
  WebhookBodyTooLargeError,
  webhookRefusal,
  type VerifyWebhookFunction,
  type WebhookRequestOptions,
} from "./request.js";
import type { VerifiedWebhook } from "./verify.js";

/** The parts of Express's (Node's) request used here. */
export interface ExpressWebhookRequest {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body?: unknown;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeAllListeners(event: "data"): unknown;
  resume(): unknown;
}

/** The parts of Express's response used here. */
export interface ExpressWebhookResponse {
  readonly headersSent: boolean;
  status(code: number): this;
  set(field: string, value: string): this;
  json(body: unknown): unknown;
  sendStatus(code: number): unknown;
}

export interface ExpressWebhookOptions<V5, V4, Req extends ExpressWebhookRequest, Res extends ExpressWebhookResponse> extends WebhookRequestOptions {
  /** Called with each verified delivery; when it has not answered, the receiver answers 204. */
  readonly onWebhook: (webhook: VerifiedWebhook<V5, V4>, request: Req, response: Res) => unknown;
}

/** Express's `next`: an error it is given goes to the app's error handler. */
export type ExpressNext = (error?: unknown) => void;

/** A route handler: 400 for a refused delivery, 413 over `maxBodyBytes`, 503 when the replay store is down. */
export function expressWebhook<V5, V4, Req extends ExpressWebhookRequest = ExpressWebhookRequest, Res extends ExpressWebhookResponse = ExpressWebhookResponse>(
  verify: VerifyWebhookFunction<V5, V4>,
  options: ExpressWebhookOptions<V5, V4, Req, Res>,
): (request: Req, response: Res, next: ExpressNext) => Promise<void> {
  const limit = maxBodyBytesOf(options);
  const { onWebhook, ...rest } = options;
  const base = verifyOptions(rest);
  return async (request, response, next) => {
    let webhook: VerifiedWebhook<V5, V4>;
    try {
      const rawBody = await rawBodyOf(request, limit);
      webhook = await verify({ ...base, rawBody, headers: request.headers });
    } catch (error) {
      const refusal = webhookRefusal(error);
      if (refusal === undefined) return next(error);
      // Over the limit the rest of the body is not read: the connection is closed after the answer.
      if (refusal.status === 413) response.set("connection", "close");
      response.status(refusal.status).json(refusal.body);
      return;
    }
    try {
      await onWebhook(webhook, request, response);
      if (!response.headersSent) response.sendStatus(204);
    } catch (error) {
      next(error);
    }
  };
}

/** The exact bytes: a Buffer from `express.raw()`, else read from the request within `limit`. */
export function rawBodyOf(request: ExpressWebhookRequest, limit: number): Promise<Uint8Array> {
  const { body } = request;
  if (body instanceof Uint8Array) {
    return body.byteLength > limit ? Promise.reject(tooLarge(limit)) : Promise.resolve(body);
  }
  if (body !== undefined) {
    return Promise.reject(
      new TypeError("expressWebhook: a body parser ran before the webhook receiver; mount it without express.json() so it gets the raw bytes"),
    );
  }
  const contentLength = request.headers["content-length"];
  if (declaredTooLarge(typeof contentLength === "string" ? contentLength : undefined, limit)) return Promise.reject(tooLarge(limit));
  return readLimited(request, limit);
}

function readLimited(request: ExpressWebhookRequest, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let total = 0;
    request.on("data", (chunk) => {
      total += chunk.byteLength;
      if (total <= limit) return void parts.push(chunk);
      // Stop keeping bytes; the rest drains while the 413 is sent.
      request.removeAllListeners("data");
      request.resume();
      reject(tooLarge(limit));
    });
    request.on("error", reject);
    request.on("end", () => resolve(concat(parts, total)));
  });
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const body = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.byteLength;
  }
  return body;
}

function tooLarge(limit: number): WebhookBodyTooLargeError {
  return new WebhookBodyTooLargeError(`the webhook body is larger than ${limit} bytes`);
}
