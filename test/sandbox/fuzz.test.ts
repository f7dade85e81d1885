// Fuzzing the in-process sandbox (issue 23, item 4): random methods, paths (percent-escapes valid and
// malformed, NUL, odd unicode, overlong), headers and bodies (JSON and not, deep, wide), authenticated and
// not. Whatever comes, the server keeps serving, never answers 500, and every JSON answer is either the
// interface's error shape or a success that validates against the operation's response schema.
import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../templates/sandbox/store/index.js";
import { basic, CREDENTIALS, request, responseErrors } from "./helpers.js";
import { harness, memoryDb, type Harness } from "./inprocess.js";
import type { Loose } from "../support/loose.js";

let db: Db;
let h: Harness;

beforeAll(async () => {
  db = await memoryDb();
  h = await harness(db, { dispatch: false });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await db?.close();
});

interface Raw {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** One request with the path and body sent byte for byte (fetch would normalise or refuse some). */
function send(method: string, path: string, headers: Record<string, string>, body: Buffer | undefined): Promise<Raw> {
  const { port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method, headers: { ...headers, ...(body ? { "content-length": String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const ROUTES = [
  "/v5/verifications",
  "/v5/verifications/",
  "/verify",
  "/idform",
  "/getVerificationStatus",
  "/requestedActions",
  "/_sandbox",
  "/_sandbox/",
  "/_sandbox/clock",
  "/_sandbox/deliveries",
  "/_sandbox/state",
  "/_form/",
  "/",
  "",
];

/** A path piece: plain text, an escape (valid UTF-8 or not), a NUL, a truncated escape, odd unicode. */
const piece = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom("%00", "%E0%A4%A", "%", "%zz", "%C3", "%FF%FE", "%ED%A0%80", "%F0%9F%98%80", "..", "%2e%2e", "%2F", "//", ";", "?", "&", "=", "#"),
  fc
    .integer({ min: 0, max: 0x10ffff })
    .filter((cp) => cp < 0xd800 || cp > 0xdfff)
    .map((cp) => encodeURIComponent(String.fromCodePoint(cp))),
  fc.integer({ min: 1, max: 9000 }).map((n) => "a".repeat(n)),
);

const pathArb = fc
  .tuple(fc.constantFrom(...ROUTES), fc.array(piece, { maxLength: 5 }), fc.option(fc.array(fc.tuple(piece, piece), { maxLength: 4 }), { nil: undefined }))
  .map(([route, pieces, query]) => `${route || "/"}${pieces.join("")}${query ? `?${query.map(([k, v]) => `${k}=${v}`).join("&")}` : ""}`)
  .map((path) => (path.startsWith("/") ? path : `/${path}`));

const methodArb = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE");

/** Nested arrays or objects `depth` levels deep. */
const deep = fc.tuple(fc.integer({ min: 1, max: 400 }), fc.boolean()).map(([depth, arrays]) => {
  let value: unknown = "x";
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
  return value;
});

const older = { metadata_version: "4", metadata_serviceUid: CREDENTIALS.serviceUid, metadata_secretKey: CREDENTIALS.secret };

/** Bodies: random JSON, a plausible request with random values, deep, wide, or bytes that are not JSON. */
const bodyArb: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v))),
  fc
    .record(
      {
        type: fc.constantFrom("individual", "trust", "association", "partnership", "soleTrader"),
        subType: fc.constantFrom("data", "biometric", "none"),
        country: fc.constantFrom("AUS", "USA", "NZL", "zzz"),
        name: fc.string({ maxLength: 300, unit: "binary" }),
        website: fc.string({ maxLength: 20 }),
        userId: fc.string({ unit: "binary", maxLength: 20 }),
        maxAttempts: fc.oneof(fc.integer(), fc.double()),
      },
      { requiredKeys: [] },
    )
    .chain((v5) => fc.constantFrom(v5, { ...older, ...v5, fields: v5 }, { ...older, trace: v5.name, userId: v5.userId }, { advanceMs: v5.maxAttempts }, null))
    .map((v) => Buffer.from(JSON.stringify(v))),
  deep.map((v) => Buffer.from(JSON.stringify(v))),
  fc.integer({ min: 1, max: 5000 }).map((n) => Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))))),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.string({ unit: "binary", maxLength: 200 }).map((s) => Buffer.from(s, "utf8")),
);

const headersArb = fc.record(
  {
    authorization: fc.oneof(
      fc.constant(basic()),
      fc.constant(basic({ serviceUid: CREDENTIALS.serviceUid, secret: "wrong" })),
      fc.string({ maxLength: 40 }).map((s) => `Basic ${Buffer.from(s).toString("base64")}`),
      fc.constant("Basic %%%"),
      fc.constant("Bearer x"),
    ),
    "content-type": fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/json; charset=latin1",
      "",
    ),
    accept: fc.constantFrom("application/json", "text/html", "*/*"),
  },
  { requiredKeys: [] },
);

/** The interface's error shapes: the v5 envelope, or the older endpoints' body. */
function isErrorShape(status: number, body: Loose): boolean {
  return typeof body === "object" && body !== null && body.status === "error" && body.statusCode === status && typeof body.message === "string";
}

/** The operation an answer belongs to in openapi.json, where the document has one. */
function operationPath(path: string): string | undefined {
  const bare = path.split("?")[0]!;
  if (["/v5/verifications", "/verify", "/idform", "/getVerificationStatus"].includes(bare)) return bare;
  if (/^\/v5\/verifications\/[^/]+$/.test(bare)) return "/v5/verifications/{trace}";
  return undefined;
}

describe("the sandbox under random requests (issue 23, item 4)", () => {
  it("never answers 500, keeps serving, and answers in the interface's shapes", async () => {
    await fc.assert(
      fc.asyncProperty(methodArb, pathArb, headersArb, bodyArb, async (method, path, headers, body) => {
        const sentBody = method === "GET" || method === "HEAD" ? undefined : body;
        const answer = await send(method, path, headers, sentBody);
        expect(answer.status, `${method} ${path}`).not.toBe(500);
        expect(answer.status).toBeGreaterThanOrEqual(200);
        expect(answer.status).toBeLessThan(600);
        if (method === "HEAD" || !answer.contentType.includes("json")) return;
        const parsed = JSON.parse(answer.text);
        if (answer.status >= 400) {
          expect(isErrorShape(answer.status, parsed), `${method} ${path} -> ${answer.status} ${answer.text.slice(0, 200)}`).toBe(true);
          return;
        }
        const operation = operationPath(path);
        if (operation && (method === "POST" || method === "GET")) expect(responseErrors(operation, method, answer.status, parsed)).toEqual([]);
      }),
      { numRuns: 400, seed: 23, endOnFailure: true },
    );
    // Still serving after all of it.
    const after = await request(h.url, "GET", "/v5/verifications/not-a-trace", undefined, { authorization: basic() });
    expect(after.status).toBe(404);
  }, 300_000);
});
