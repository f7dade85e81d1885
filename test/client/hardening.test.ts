// Hardening of the client core against real local servers: redirects are never followed (a second
// server stands for the other origin), 2xx bodies must be JSON where the operation answers JSON,
// bodies are read up to a limit, and secrets echoed in any encoding never reach an error.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { escape as qsEscape } from "node:querystring";
import { inspect } from "node:util";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { propertyRuns } from "../support/runs.js";
import {
  createClientCore,
  NetworkError,
  RedirectError,
  ResponseFormatError,
  ResponseTooLargeError,
  VerispecError,
  type ClientOptions,
  type OperationSpec,
  type SpecConstants,
} from "../../templates/client/index.js";
import type { Loose } from "../support/loose.js";

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: string;
}
type Handle = (req: Seen, res: ServerResponse) => void;

/** A node:http server whose every answer the test writes by hand; records what it received. */
async function serve(): Promise<{ url: string; seen: Seen[]; handle: (h: Handle) => void; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  let handler: Handle = (_, res) => res.end("{}");
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s = { method: req.method!, url: req.url!, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    handle: (h) => {
      seen.length = 0;
      handler = h;
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const UID = "svc-uid-1";
const SECRET = "top-secret-key-123";
const constants: SpecConstants = { olderVersion: "4", mediaType: "application/json", errorTypesByStatus: { 422: "validation_error" }, errorClasses: new Map() };
const ops = {
  verify: { name: "verify", method: "POST", path: "/verify", auth: "body", responseSchema: "v4.VerifyResponse" },
  create: { name: "v5.createVerification", method: "POST", path: "/v5/verifications", auth: "basic", responseSchema: "v5.Envelope" },
  get: { name: "v5.getVerification", method: "GET", path: "/v5/verifications/{trace}", auth: "basic", responseSchema: "v5.Envelope" },
  followUp: { name: "submitRequestedActions", method: "POST", path: null, auth: "body" },
} as const satisfies Record<string, OperationSpec>;

let service: Awaited<ReturnType<typeof serve>>;
let other: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  [service, other] = await Promise.all([serve(), serve()]);
});
afterAll(async () => {
  await Promise.all([service.close(), other.close()]);
});

const client = (o: Partial<ClientOptions> = {}) =>
  createClientCore({ baseUrl: service.url, serviceUid: UID, secret: SECRET, retry: { baseDelayMs: 1, maxDelayMs: 2 }, ...o }, constants, async () => () => ({
    valid: true,
  }));

async function caught(p: Promise<unknown>): Promise<Loose> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

describe("redirects are never followed", () => {
  it.each([301, 302, 303, 307, 308])("%i to another origin: RedirectError naming status and origin; the other origin gets nothing", async (status) => {
    other.handle((_, res) => res.end(JSON.stringify({ status: "success", from: "other" })));
    service.handle((_, res) => {
      res.writeHead(status, { location: `${other.url}/steal?x=1` });
      res.end("moved");
    });
    for (const [op, input] of [
      [ops.verify, { body: { a: 1 } }],
      [ops.create, { body: { a: 1 } }],
      [ops.get, { pathParams: { trace: "t" } }],
    ] as const) {
      const err = await caught(client().call(op, input));
      expect(err).toBeInstanceOf(RedirectError);
      expect(err).toMatchObject({ name: "RedirectError", status, targetOrigin: other.url });
      expect(err.message).toBe(`HTTP ${status} redirect to ${other.url} not followed`);
    }
    expect(other.seen).toEqual([]);
    expect(service.seen).toHaveLength(3); // a 3xx is not retried either
  });

  it("a relative Location names the service's own origin; a custom fetch is asked not to follow", async () => {
    service.handle((_, res) => {
      res.writeHead(308, { location: "/elsewhere" });
      res.end();
    });
    const inits: RequestInit[] = [];
    const spy: typeof fetch = (url, init) => (inits.push(init!), fetch(url, init));
    const err = await caught(client({ fetch: spy }).call(ops.create, { body: {} }));
    expect(err).toMatchObject({ status: 308, targetOrigin: service.url });
    expect(inits.map((i) => i.redirect)).toEqual(["manual"]);
  });

  it("a browser's opaque redirect (status 0, no Location) is a RedirectError too", async () => {
    const opaque = { type: "opaqueredirect", status: 0, ok: false, headers: new Headers(), body: null } as unknown as Response;
    const err = await caught(client({ fetch: async () => opaque }).call(ops.create, { body: {} }));
    expect(err).toBeInstanceOf(RedirectError);
    expect(err).toMatchObject({ status: 0, targetOrigin: undefined, message: "HTTP 3xx redirect to an unknown location not followed" });
  });
});

describe("statuses and messages", () => {
  it("a 299 is a success, not a redirect", async () => {
    service.handle((_req, res) => res.writeHead(299, { "content-type": "application/json" }).end('{"ok":1}'));
    await expect(client().call(ops.create, { body: {} })).resolves.toEqual({ ok: 1 });
  });

  it("an error without an envelope message says only the status; only ValidationError has details", async () => {
    service.handle((_req, res) => res.writeHead(404, { "content-type": "application/json" }).end("{}"));
    const err = await caught(client().call(ops.create, { body: {} }));
    expect(err.message).toBe("HTTP 404");
    expect(err).not.toHaveProperty("details");
  });

  it("the messages of local and network errors", async () => {
    const seen: string[] = [];
    const strict = createClientCore(
      { baseUrl: service.url, serviceUid: UID, secret: SECRET, validate: true, validateResponses: true, retry: false },
      constants,
      async () => (id) => (seen.push(id), { valid: false, errors: [{ message: "bad", code: "x", path: [] }] }),
    );
    const local = await caught(strict.call({ ...ops.create, requestSchema: "v5.Req" }, { body: {} }));
    expect(local.message).toBe('Validation error: v5.Req: [{"message":"bad","code":"x","path":[]}]');
    service.handle((_req, res) => res.end("{}"));
    const drift = await caught(strict.call(ops.create, { body: {} })); // no request schema: only the response is checked
    expect(drift.message).toBe('Response does not match v5.Envelope: [{"message":"bad","code":"x","path":[]}]');
    expect(seen).toEqual(["v5.Req", "v5.Envelope"]);
    const down = await caught(client({ baseUrl: "http://127.0.0.1:1", retry: false }).call(ops.create, { body: {} }));
    expect(down.message).toBe("Network error");
    await expect(client().call({ ...ops.followUp }, { body: {}, path: "relative" })).rejects.toThrow("path must start with /");
    await expect(client().call(ops.get, { pathParams: {} })).rejects.toThrow("missing trace");
  });
});

describe("a 2xx must be JSON where the operation answers JSON", () => {
  it.each([
    ["HTML", "text/html", `<html>login for ${SECRET}</html>`, "not JSON"],
    ["text", "text/plain", "OK", "not JSON"],
    ["empty", "application/json", "", "empty"],
  ])("%s: ResponseFormatError with status and a redacted excerpt", async (_, type, text, what) => {
    service.handle((_req, res) => {
      res.writeHead(200, { "content-type": type });
      res.end(text);
    });
    const err = await caught(client().call(ops.create, { body: {} }));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect(err).toMatchObject({ status: 200, message: `HTTP 200: response is ${what}`, body: text.replace(SECRET, "[redacted]") });
  });

  it.each(["null", "42", '"ok"', "true", "[]", "[{}]"])("JSON that is not an object (%s): ResponseFormatError, not a success", async (text) => {
    service.handle((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(text));
    for (const op of [ops.create, ops.get, ops.verify]) {
      const err = await caught(client().call(op, op.method === "GET" ? { pathParams: { trace: "t" } } : { body: {} }));
      expect(err).toBeInstanceOf(ResponseFormatError);
      expect(err).toMatchObject({ status: 200, message: "HTTP 200: response is not a JSON object", body: text });
    }
    // The follow-up request's response is not shown in the specification: whatever JSON it is, it is returned.
    await expect(client().call(ops.followUp, { body: {}, path: "/f" })).resolves.toEqual(JSON.parse(text));
  });

  it("an excerpt is at most 4096 characters", async () => {
    service.handle((_req, res) => res.end("x".repeat(10_000)));
    const err = await caught(client().call(ops.create, { body: {} }));
    expect(err.body).toBe("x".repeat(4096));
  });

  it("an operation whose response the specification does not show keeps text and empty bodies", async () => {
    service.handle((_req, res) => res.end("OK"));
    await expect(client().call(ops.followUp, { body: {}, path: "/f" })).resolves.toBe("OK");
  });
});

describe("response size limit", () => {
  it("a declared length over maxResponseBytes: ResponseTooLargeError", async () => {
    service.handle((_req, res) => res.end(JSON.stringify({ pad: "x".repeat(2000) })));
    const err = await caught(client({ maxResponseBytes: 1000 }).call(ops.create, { body: {} }));
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err).toMatchObject({ status: 200, message: "HTTP 200: response larger than 1000 bytes" });
  });

  it("a chunked body is stopped once it passes the limit (the server is still writing)", async () => {
    let written = 0;
    service.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => {
        if (res.destroyed || written > 50_000_000) return (clearInterval(timer), res.end());
        res.write("x".repeat(64 * 1024));
        written += 64 * 1024;
      }, 1);
      res.on("close", () => clearInterval(timer));
    });
    const err = await caught(client({ maxResponseBytes: 256 * 1024 }).call(ops.create, { body: {} }));
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(written).toBeLessThan(50_000_000);
  });

  it("the default is 10 MiB: a 9 MiB body is read, an 11 MiB one refused", async () => {
    service.handle((req, res) => res.end(JSON.stringify({ pad: "x".repeat(req.url.endsWith("/big") ? 11 * 2 ** 20 : 9 * 2 ** 20) })));
    const ok = await client().call<{ pad: string }>(ops.get, { pathParams: { trace: "small" } });
    expect(ok.pad.length).toBe(9 * 2 ** 20);
    await expect(client().call(ops.get, { pathParams: { trace: "big" } })).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it("a declared length over the limit is refused before reading: a body that never comes does not wait", async () => {
    service.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "2000" });
      res.flushHeaders(); // headers only; the body never follows
    });
    const err = await caught(client({ maxResponseBytes: 1000, timeoutMs: 5000 }).call(ops.create, { body: {} }));
    expect(err).toBeInstanceOf(ResponseTooLargeError);
  });

  it("a body of exactly maxResponseBytes is read, declared or chunked", async () => {
    const text = JSON.stringify({ pad: "x".repeat(990) }); // 1000 bytes
    expect(Buffer.byteLength(text)).toBe(1000);
    service.handle((req, res) => {
      if (req.url.endsWith("/declared")) return void res.end(text);
      res.writeHead(200, { "content-type": "application/json" });
      res.write(text.slice(0, 500));
      setTimeout(() => res.end(text.slice(500)), 5);
    });
    for (const trace of ["declared", "chunked"]) {
      await expect(client({ maxResponseBytes: 1000 }).call(ops.get, { pathParams: { trace } })).resolves.toEqual({ pad: "x".repeat(990) });
    }
  });

  it("a UTF-8 character split across two chunks is decoded whole", async () => {
    const bytes = Buffer.from(JSON.stringify({ name: "Zoë Müller 名前" }));
    const cut = bytes.indexOf(Buffer.from("ë")) + 1; // inside the two bytes of "ë"
    service.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 5);
    });
    await expect(client().call(ops.create, { body: {} })).resolves.toEqual({ name: "Zoë Müller 名前" });
  });

  it("error bodies are bounded too", async () => {
    service.handle((_req, res) => {
      res.writeHead(500);
      res.end("e".repeat(5000));
    });
    await expect(client({ maxResponseBytes: 1000, retry: false }).call(ops.create, { body: {} })).rejects.toBeInstanceOf(ResponseTooLargeError);
  });
});

// Independent encoders (not the client's own): what a server might do with a value it echoes.
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
const htmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
const ENCODINGS: Record<string, (s: string) => string> = {
  raw: (s) => s,
  json: (s) => JSON.stringify(s).slice(1, -1),
  html: htmlEscape,
  htmlHex: (s) => htmlEscape(s).replace(/&#39;/g, "&#x27;"),
  urlComponent: encodeURIComponent,
  urlForm: (s) => new URLSearchParams({ k: s }).toString().slice(2),
  querystring: qsEscape,
  urlLowerHex: (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
  jsonEscapedSlash: (s) => JSON.stringify(s).slice(1, -1).replace(/\//g, "\\/"), // PHP's json_encode
  jsonAscii: (s) =>
    JSON.stringify(s)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, unicodeEscape), // Python's json.dumps
  jsonAllEscaped: (s) => s.replace(/[\s\S]/g, unicodeEscape),
  jsonAllEscapedUpper: (s) => s.replace(/[\s\S]/g, (c) => unicodeEscape(c).toUpperCase().replace("\\U", "\\u")),
  urlTwice: (s) => encodeURIComponent(encodeURIComponent(s)),
  urlTwiceLowerHex: (s) => encodeURIComponent(encodeURIComponent(s)).replace(/%25[0-9A-F]{2}/g, (h) => h.toLowerCase()),
  formTwice: (s) => new URLSearchParams({ k: new URLSearchParams({ k: s }).toString().slice(2) }).toString().slice(2),
  base64: (s) => Buffer.from(s, "utf8").toString("base64"),
  base64url: (s) => Buffer.from(s, "utf8").toString("base64url"),
  hex: (s) => Buffer.from(s, "utf8").toString("hex"),
  hexUpper: (s) => Buffer.from(s, "utf8").toString("hex").toUpperCase(),
};

describe("redaction holds in every encoding (property-based)", () => {
  it("a longer encoding is replaced whole, leaving no fragment of it (ab% URL-encoded is ab%25, not [redacted]25)", async () => {
    service.handle((_req, res) => res.writeHead(401, { "content-type": "text/plain" }).end("ab%25|ab%"));
    const c = createClientCore({ baseUrl: service.url, serviceUid: UID, secret: "ab%", retry: false }, constants, async () => () => ({ valid: true }));
    const err = await caught(c.call(ops.create, { body: {} }));
    expect(err.body).toBe("[redacted]|[redacted]");
  });

  const ascii = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
  // Mostly printable ASCII, sometimes a character of two, three or four UTF-8 bytes (a surrogate pair in JSON).
  const printable = fc.string({
    unit: fc.oneof({ arbitrary: ascii, weight: 9 }, { arbitrary: fc.constantFrom("é", "€", "😀"), weight: 1 }),
    minLength: 6,
    maxLength: 40,
  });
  const specials = fc.string({ unit: fc.constantFrom(...`"\\<&>%+/=' `), minLength: 1, maxLength: 6 });
  const secretArb = fc.tuple(printable, specials, printable).map(([a, b, c]) => a + b + c);
  const answer = fc.constantFrom("text-401", "json-422", "html-200");

  it("each encoding of a fixed secret is replaced whole, in an error body as text and as JSON", async () => {
    const secret = 'k3y "é€😀" <&> /+%=';
    const c = createClientCore({ baseUrl: service.url, serviceUid: UID, secret, retry: false }, constants, async () => () => ({ valid: true }));
    // base64's padding carries nothing of the secret and is left.
    const replaced = /^<\[redacted\]=*>$/;
    for (const [name, encode] of Object.entries(ENCODINGS)) {
      service.handle((_req, res) => res.writeHead(401, { "content-type": "text/plain" }).end(`<${encode(secret)}>`));
      expect((await caught(c.call(ops.create, { body: {} }))).body, name).toMatch(replaced);
      service.handle((_req, res) => res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ message: `<${encode(secret)}>` })));
      const err = await caught(c.call(ops.create, { body: {} }));
      expect(err.body.message, name).toMatch(replaced);
      expect(err.message, name).toMatch(/^HTTP 400: <\[redacted\]=*>$/);
    }
  });

  it("a random secret echoed by the server never appears in message, body, JSON, inspect or stack", async () => {
    await fc.assert(
      fc.asyncProperty(secretArb, fc.constantFrom(...Object.keys(ENCODINGS)), answer, fc.boolean(), async (secret, encoding, kind, basic) => {
        const token = Buffer.from(`${UID}:${secret}`, "utf8").toString("base64");
        const forms = [secret, token, ...Object.values(ENCODINGS).map((e) => e(secret))];
        const echo = `${ENCODINGS[encoding]!(secret)} / ${token}`;
        service.handle((_req, res) => {
          if (kind === "text-401") res.writeHead(401, { "content-type": "text/plain" }).end(`denied: ${echo}`);
          else if (kind === "json-422")
            res
              .writeHead(422, { "content-type": "application/json" })
              .end(
                JSON.stringify({ message: `bad ${echo}`, raw: echo, error: { type: "validation_error", details: [{ message: echo, code: "x", path: [] }] } }),
              );
          else res.writeHead(200, { "content-type": "text/html" }).end(`<p>${echo}</p>`);
        });
        const c = createClientCore({ baseUrl: service.url, serviceUid: UID, secret, retry: false }, constants, async () => () => ({ valid: true }));
        const err = await caught(c.call(basic ? ops.create : ops.verify, { body: {} }));
        expect(err).toBeInstanceOf(VerispecError);
        const outputs = [err.message, JSON.stringify(err.body), JSON.stringify(err), inspect(err, { depth: Infinity, showHidden: true }), String(err.stack)];
        expect(outputs.join("\n")).toContain("[redacted]"); // the echo arrived and was replaced
        for (const out of outputs) for (const form of forms) expect(out.includes(form), `${encoding} ${kind}: ${JSON.stringify(form)} in ${out}`).toBe(false);
      }),
      { numRuns: propertyRuns(300) },
    );
  }, 60_000);
});

describe("a network error's cause", () => {
  it("keeps the class, name, message, code and cause chain, and none of the request a custom fetch attached", async () => {
    const secret = "sk_live_NETWORK_9c1f";
    const token = Buffer.from(`${UID}:${secret}`).toString("base64");
    class FetchFailure extends Error {
      override name = "FetchFailure";
    }
    const failingFetch: typeof fetch = async (url, init) => {
      const request = new Request(url, { method: init?.method, headers: init?.headers, body: init?.body });
      const socket = Object.assign(new Error(`socket hang up after sending ${secret}`), {
        code: "ECONNRESET",
        config: { headers: { authorization: `Basic ${token}` } },
      });
      throw Object.assign(new FetchFailure(`request to ${url} failed`, { cause: socket }), { request, init, body: init?.body });
    };
    const c = (secret_: string, op: OperationSpec) =>
      caught(
        createClientCore({ baseUrl: service.url, serviceUid: UID, secret: secret_, fetch: failingFetch, retry: false }, constants, async () => () => ({
          valid: true,
        })).call(op, { body: {} }),
      );
    for (const op of [ops.create, ops.verify]) {
      const err = await c(secret, op);
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.cause).toBeInstanceOf(FetchFailure);
      expect(err.cause).toMatchObject({ name: "FetchFailure", message: `request to ${service.url}${op.path} failed` });
      expect(err.cause.cause).toMatchObject({ code: "ECONNRESET", message: "socket hang up after sending [redacted]" });
      const outputs = [inspect(err, { depth: Infinity, showHidden: true }), JSON.stringify(err), String(err.cause.stack), String(err.cause.cause.stack)];
      for (const out of outputs) {
        for (const form of [secret, token, encodeURIComponent(secret), Buffer.from(secret).toString("base64")]) expect(out).not.toContain(form);
        expect(out).not.toMatch(/authorization|metadata_secretKey/i);
      }
    }
  });

  it("Node's own fetch failure keeps its TypeError and the system error's code", async () => {
    const s = await serve();
    await s.close();
    const err = await caught(
      createClientCore({ baseUrl: s.url, serviceUid: UID, secret: SECRET, retry: false }, constants, async () => () => ({ valid: true })).call(ops.create, {
        body: {},
      }),
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.cause).toBeInstanceOf(TypeError);
    expect(err.cause.cause).toMatchObject({ code: "ECONNREFUSED" });
  });
});
