// The receiver entries' own rules, without a framework: the Fetch entry's size limit on a streamed body
// (no Content-Length), the refusal mapping, the Express adapter on a pre-parsed or oversize body, and the
// byte helpers every runtime uses (hex, constant-time comparison, body forms).
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  createWebhookKit,
  MemoryReplayStore,
  ReplayStoreUnavailableError,
  WebhookBodyTooLargeError,
  WebhookVerificationError,
  webhookRefusal,
  webhookRefusalResponse,
} from "../../templates/webhooks/index.js";
import { bytesEqual, fromHex, toBytes, toHex } from "../../templates/webhooks/bytes.js";
import { expressWebhook, type ExpressWebhookRequest, type ExpressWebhookResponse } from "../../templates/webhooks/express.js";
import { readRequestBody } from "../../templates/webhooks/request.js";
import { fixtureRules, signWebhook } from "./rules.fixture.js";
import { v5Body, vectors } from "./helpers.js";

const kit = createWebhookKit({ rules: fixtureRules });
const SECRET = vectors.secret;

function streamed(chunks: readonly string[], headers: Record<string, string> = {}): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      controller.close();
    },
  });
  return new Request("http://receiver.test/webhooks", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

describe("verifyWebhookRequest (the Fetch entry)", () => {
  it("verifies a streamed body of several chunks, the bytes as sent", async () => {
    const rawBody = v5Body(Date.now(), { trace: "fetch-1" });
    const half = Math.floor(rawBody.length / 2);
    const request = streamed([rawBody.slice(0, half), rawBody.slice(half)], signWebhook({ version: "2", rawBody, secret: SECRET }));
    const { payload } = await kit.verifyWebhookRequest(request, { secret: SECRET, replayStore: new MemoryReplayStore() });
    expect(payload).toEqual(JSON.parse(rawBody));
  });

  it("refuses past maxBodyBytes while streaming (no Content-Length) and on a declared Content-Length", async () => {
    await expect(readRequestBody(streamed(["12345", "67890", "x"]), 10)).rejects.toBeInstanceOf(WebhookBodyTooLargeError);
    expect(await readRequestBody(streamed(["12345", "67890"]), 10)).toEqual(new TextEncoder().encode("1234567890"));
    const declared = new Request("http://receiver.test/", { method: "POST", body: "x", headers: { "content-length": "11" } });
    await expect(readRequestBody(declared, 10)).rejects.toThrow("larger than 10 bytes");
    await expect(kit.verifyWebhookRequest(streamed(["{}"]), { secret: SECRET, maxBodyBytes: 0 })).rejects.toThrow(RangeError);
  });

  it("maps each refusal to its status, and rethrows anything else", async () => {
    expect(webhookRefusal(new WebhookVerificationError("signature_mismatch", "m"))).toEqual({
      status: 400,
      body: { error: "signature_mismatch", message: "m" },
    });
    expect(webhookRefusal(new WebhookBodyTooLargeError("big"))?.status).toBe(413);
    expect(webhookRefusal(new ReplayStoreUnavailableError("down"))?.status).toBe(503);
    expect(webhookRefusal(new Error("other"))).toBeUndefined();
    const response = webhookRefusalResponse(new WebhookVerificationError("replayed", "again"));
    expect([response.status, response.headers.get("content-type"), await response.json()]).toEqual([
      400,
      "application/json",
      { error: "replayed", message: "again" },
    ]);
    const other = new Error("not a refusal");
    expect(() => webhookRefusalResponse(other)).toThrow(other);
  });
});

function fakeResponse() {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const res = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    set(field: string, value: string) {
      sent.headers[field] = value;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
      this.headersSent = true;
    },
    sendStatus(code: number) {
      sent.status = code;
      this.headersSent = true;
    },
  };
  return { res: res as ExpressWebhookResponse & typeof res, sent };
}

function nodeRequest(chunks: readonly string[], headers: Record<string, string>, body?: unknown): ExpressWebhookRequest {
  const stream = new PassThrough();
  for (const c of chunks) stream.write(c);
  stream.end();
  return Object.assign(stream, { headers, body }) as unknown as ExpressWebhookRequest;
}

describe("expressWebhook", () => {
  it("verifies the bytes read from the request and answers 204 when onWebhook did not answer", async () => {
    const rawBody = v5Body(Date.now(), { trace: "express-1" });
    const got: unknown[] = [];
    const handler = expressWebhook(kit.verifyWebhook, {
      secret: SECRET,
      replayStore: new MemoryReplayStore(),
      onWebhook: ({ payload }) => void got.push(payload),
    });
    const { res, sent } = fakeResponse();
    await handler(nodeRequest([rawBody], signWebhook({ version: "1", rawBody, secret: SECRET })), res, (e) => {
      throw e;
    });
    expect(got).toEqual([JSON.parse(rawBody)]);
    expect(sent.status).toBe(204);
  });

  it("413 when a chunked body passes the limit, with the connection closed; nothing handed on", async () => {
    const handler = expressWebhook(kit.verifyWebhook, {
      secret: SECRET,
      maxBodyBytes: 8,
      onWebhook: () => {
        throw new Error("must not run");
      },
    });
    const { res, sent } = fakeResponse();
    await handler(nodeRequest(["12345", "67890"], {}), res, (e) => {
      throw e;
    });
    expect([sent.status, sent.headers["connection"], sent.body]).toEqual([
      413,
      "close",
      { error: "body_too_large", message: "the webhook body is larger than 8 bytes" },
    ]);
  });

  it("a body parsed before it is a setup error passed to next, never verified", async () => {
    const handler = expressWebhook(kit.verifyWebhook, {
      secret: SECRET,
      onWebhook: () => {
        throw new Error("must not run");
      },
    });
    const { res } = fakeResponse();
    const errors: unknown[] = [];
    await handler(nodeRequest([], {}, { parsed: true }), res, (e) => void errors.push(e));
    expect(String(errors[0])).toContain("mount it without express.json()");
  });
});

describe("bytes (every runtime)", () => {
  it("hex both ways; a non-hex digit or an odd length is refused", () => {
    const bytes = new Uint8Array([0, 1, 127, 128, 255]);
    expect(toHex(bytes)).toBe("00017f80ff");
    expect(fromHex("00017F80ff")).toEqual(bytes);
    expect(fromHex("0g")).toBeUndefined();
    expect(fromHex("abc")).toBeUndefined();
    expect(fromHex(":0")).toBeUndefined(); // ":" is the code after "9"
    expect(fromHex("@0")).toBeUndefined(); // "@" is the code before "A"
    expect(fromHex("0\u0661")).toBeUndefined(); // a digit, but not a hex digit (Arabic-Indic one)
    expect(fromHex("\u0130a")).toBeUndefined(); // beyond ASCII: its low byte (0x30, "0") must not count
    // Read in place from an offset (a signature header after its prefix).
    expect(fromHex("sha256=00017F80ff", 7)).toEqual(bytes);
    expect(fromHex("sha256=00017F80f", 7)).toBeUndefined();
    expect(fromHex("ab", 3)).toBeUndefined();
  });

  it("bytesEqual compares every byte and the lengths", () => {
    expect(bytesEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(bytesEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(bytesEqual(new Uint8Array([9, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(bytesEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });

  it("toBytes: a string as UTF-8, an ArrayBuffer and any view as their bytes", () => {
    const expected = new TextEncoder().encode("é{}");
    expect(toBytes("é{}")).toEqual(expected);
    expect(toBytes(expected.buffer)).toEqual(expected);
    const view = new DataView(expected.buffer, 1, 2);
    expect(toBytes(view as unknown as Uint8Array)).toEqual(expected.subarray(1, 3));
  });
});
