/**
 * Receiving a webhook over HTTP: the raw body read within a size limit, never parsed before it is
 * verified, and each refusal mapped to its status. `verifyWebhookRequest` is the entry for every
 * framework on the Fetch API (Hono, Next.js route handlers, Workers, Deno, Bun); express.ts and
 * fastify.ts adapt Node's frameworks. No framework is imported here.
 */
import { isWebhookVerificationError } from "./errors.js";
import { ReplayStoreUnavailableError } from "./replay.js";
import type { VerifiedWebhook, VerifyWebhookInput } from "./verify.js";

/** Everything `verifyWebhook` takes except what the request carries, plus the body limit. */
export interface WebhookRequestOptions extends Omit<VerifyWebhookInput, "rawBody" | "headers"> {
  /**
   * The largest body accepted, in bytes; a larger one is refused with 413 before it is read to the end.
   * Default 1 MiB: verispec's choice (the service's specification does not state a webhook's largest size), far above a
   * real delivery (a few kB).
   */
  readonly maxBodyBytes?: number;
}

export const DEFAULT_MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/** The body is larger than `maxBodyBytes`: answer 413. Nothing of it was verified or parsed. */
export class WebhookBodyTooLargeError extends Error {
  override readonly name = "WebhookBodyTooLargeError";
  readonly status = 413;
}

export type VerifyWebhookFunction<V5 = unknown, V4 = unknown> = (input: VerifyWebhookInput) => Promise<VerifiedWebhook<V5, V4>>;

export function maxBodyBytesOf(options: { readonly maxBodyBytes?: number }): number {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_WEBHOOK_BODY_BYTES;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError("maxBodyBytes must be a positive integer");
  return limit;
}

/** The verifyWebhook input without the request's parts (the body limit is not verifyWebhook's). */
export function verifyOptions(options: WebhookRequestOptions): Omit<VerifyWebhookInput, "rawBody" | "headers"> {
  const { maxBodyBytes: _limit, ...rest } = options;
  return rest;
}

/** A declared Content-Length above the limit is refused before a byte is read. */
export function declaredTooLarge(contentLength: string | null | undefined, limit: number): boolean {
  if (contentLength === null || contentLength === undefined || contentLength === "") return false;
  const declared = Number(contentLength);
  return Number.isFinite(declared) && declared > limit;
}

function tooLarge(limit: number): WebhookBodyTooLargeError {
  return new WebhookBodyTooLargeError(`the webhook body is larger than ${limit} bytes`);
}

/** Concatenates chunks read from a body, refusing as soon as the total passes `limit`. */
export async function collectLimited(chunks: AsyncIterable<Uint8Array>, limit: number, stop?: () => void): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > limit) {
      stop?.();
      throw tooLarge(limit);
    }
    parts.push(chunk);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.byteLength;
  }
  return body;
}

async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The request's exact bytes, at most `limit` of them (WebhookBodyTooLargeError past it). */
export async function readRequestBody(request: Request, limit: number): Promise<Uint8Array> {
  if (declaredTooLarge(request.headers.get("content-length"), limit)) throw tooLarge(limit);
  if (request.body === null) return new Uint8Array(0);
  const stream = request.body;
  return collectLimited(streamChunks(stream), limit, () => void stream.cancel().catch(() => undefined));
}

/**
 * Verifies a Fetch API `Request` (see `verifyWebhook` for the order of checks). Throws
 * `WebhookBodyTooLargeError` (413), `WebhookVerificationError` (400) or `ReplayStoreUnavailableError`
 * (503); `webhookRefusal` maps each to its answer.
 */
export async function verifyWebhookRequestWith<V5, V4>(
  verify: VerifyWebhookFunction<V5, V4>,
  request: Request,
  options: WebhookRequestOptions,
): Promise<VerifiedWebhook<V5, V4>> {
  const rawBody = await readRequestBody(request, maxBodyBytesOf(options));
  return verify({ ...verifyOptions(options), rawBody, headers: request.headers });
}

export interface WebhookRefusal {
  readonly status: 400 | 413 | 503;
  /** Safe to send and log: fixed text, never the key, a header value or body text. */
  readonly body: { readonly error: string; readonly message: string };
}

/**
 * The answer to a refused delivery, or undefined for an error that is not a refusal (rethrow it).
 * 400: the delivery failed verification (the service may retry, the same bytes fail again); 413: over
 * the size limit; 503: the replay store could not be asked, so the service should deliver it again.
 */
export function webhookRefusal(error: unknown): WebhookRefusal | undefined {
  if (isWebhookVerificationError(error)) return { status: 400, body: { error: error.reason, message: error.message } };
  if (error instanceof WebhookBodyTooLargeError) return { status: 413, body: { error: "body_too_large", message: error.message } };
  if (error instanceof ReplayStoreUnavailableError) return { status: 503, body: { error: "replay_store_unavailable", message: error.message } };
  return undefined;
}

/** `webhookRefusal` as a Fetch API `Response` (JSON); rethrows an error that is not a refusal. */
export function webhookRefusalResponse(error: unknown): Response {
  const refusal = webhookRefusal(error);
  if (refusal === undefined) throw error;
  return new Response(JSON.stringify(refusal.body), { status: refusal.status, headers: { "content-type": "application/json" } });
}
