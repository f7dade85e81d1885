// The pure parts of templates/sandbox/server.ts: the JSON depth count that refuses a body before the store
// would overflow the stack, the NUL finder behind the 422 at a field's path, and the credential checker
// (written against survivors of the sandbox's mutation run: docs/engineering/mutation-testing.md).
import { Readable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { filled } from "../../templates/sandbox/binding.js";
import { jsonDepth, nulPaths } from "../../templates/sandbox/bodies.js";
import { HttpError } from "../../templates/sandbox/exchange.js";
import { accountChecker, basicCredentials } from "../../templates/sandbox/http/credentials.js";
import { closeIfUnread, traceInPath } from "../../templates/sandbox/http/refused.js";
import { BIG_BODY, bodyRulesOf, readForm, readJson } from "../../templates/sandbox/http/request.js";
import { rejectionOf } from "../support/rejection.js";
import { binding } from "./inprocess.js";

describe("jsonDepth", () => {
  it("counts the deepest nesting of arrays and objects, not how many there are", () => {
    expect(["5", '"x"', "null"].map(jsonDepth)).toEqual([0, 0, 0]);
    expect(["[]", "{}", "[[]]", '{"a":{}}', '[{"a":[1]}]'].map(jsonDepth)).toEqual([1, 1, 2, 2, 3]);
    // Siblings close before the next opens: a wide body is shallow.
    expect(jsonDepth(`[${"[],".repeat(100)}{}]`)).toBe(2);
    expect(jsonDepth(`{${Array.from({ length: 100 }, (_, i) => `"k${i}":{}`).join(",")}}`)).toBe(2);
    expect(jsonDepth("[[[]],[[[]]]]")).toBe(4);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    expect(jsonDepth('["[[[{{{"]')).toBe(1);
    expect(jsonDepth('{"a":"\\"[[[","b":"}}]]"}')).toBe(1);
    expect(jsonDepth('["\\\\",[]]')).toBe(2); // an escaped backslash ends before the quote, which closes the string
  });
});

describe("nulPaths", () => {
  it("finds every string value and key holding U+0000 at its path: an object's keys first, then its values in order", () => {
    const body = { a: "x\0y", b: "ok", c: [1, "\0", { d: ["fine", "bad\0"] }], "k\0": "value not read", e: null, f: 7 };
    expect(nulPaths(body)).toEqual([["k\0"], ["a"], ["c", 1], ["c", 2, "d", 1]]);
    expect(nulPaths("\0")).toEqual([[]]);
    expect(nulPaths(["\0", ["\0", "b", "\0"]])).toEqual([[0], [1, 0], [1, 2]]);
    expect(nulPaths({ a: 1, b: [true, null], c: "no" })).toEqual([]);
  });
});

describe("accountChecker", () => {
  const a = { name: "a", credentials: { serviceUid: "uid-a", secret: "secret-a" } };
  const b = { name: "b", credentials: { serviceUid: "ab", secret: "abc" } };
  const check = accountChecker([a, b]);
  const basic = (text: string) => `Basic ${Buffer.from(text, "utf8").toString("base64")}`;

  it("answers the account whose Basic credentials were sent, as clients write them or spelled otherwise", () => {
    expect(check.basic(basic("uid-a:secret-a"))?.name).toBe("a");
    expect(check.basic(basic("ab:abc"))?.name).toBe("b");
    expect(check.basic(`basic   ${Buffer.from("ab:abc").toString("base64")}  `)?.name).toBe("b");
    expect(check.basic(basic("uid-a:secret-b"))).toBeUndefined();
    expect(check.basic(basic("ab:secret-a"))).toBeUndefined();
    expect(check.basic(undefined)).toBeUndefined();
    expect(check.basic("Bearer x")).toBeUndefined();
  });

  it("a Basic value without a colon is no credentials, even when splitting it somewhere would match an account", () => {
    // "abc" split before its last character would be uid "ab" and, taken whole, secret "abc": account b.
    expect(check.basic(basic("abc"))).toBeUndefined();
  });

  it("a pair from a body matches on strings only", () => {
    expect(check.pair({ serviceUid: "uid-a", secret: "secret-a" })?.name).toBe("a");
    expect(check.pair({ serviceUid: "uid-a", secret: "secret-b" })).toBeUndefined();
    expect(check.pair({ serviceUid: { toString: () => "uid-a" }, secret: "secret-a" })).toBeUndefined();
    expect(check.pair(undefined)).toBeUndefined();
  });

  it("compares strings only even where an account's values are empty (a missing field is not the empty string)", () => {
    const empty = accountChecker([{ name: "e", credentials: { serviceUid: "", secret: "" } }]);
    expect(empty.pair({ serviceUid: "", secret: "" })?.name).toBe("e");
    expect(empty.pair({ serviceUid: "", secret: null })).toBeUndefined();
    expect(empty.pair({ serviceUid: 0, secret: "" })).toBeUndefined();
    expect(empty.pair({})).toBeUndefined();
  });
});

describe("basicCredentials", () => {
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  it("reads the scheme at the start of the value only, and splits at the first colon, which may be the first character", () => {
    expect(basicCredentials(`Basic ${b64("u:s:t")}`)).toEqual({ serviceUid: "u", secret: "s:t" });
    expect(basicCredentials(`Basic ${b64(":s")}`)).toEqual({ serviceUid: "", secret: "s" });
    expect(basicCredentials(`XBasic ${b64("u:s")}`)).toBeUndefined();
    expect(basicCredentials(`Basic ${b64("u:s")} x`)).toBeUndefined();
  });
});

describe("a refused request's own parts (http/refused.ts)", () => {
  const LIMIT = 100;
  /** Whether the answer closes the connection, and what closeIfUnread says, for a request in this state. */
  const closing = (status: number, complete: boolean, contentLength?: string) => {
    const headers: Record<string, string> = {};
    const req = { complete, headers: contentLength === undefined ? {} : { "content-length": contentLength } };
    const res = { setHeader: (k: string, v: string) => void (headers[k] = v) };
    const unread = closeIfUnread(req as never, res as never, status, LIMIT);
    return [unread, headers.Connection ?? "open"];
  };

  it("a body read in full keeps its connection; one refused unread is drained, and closed unless its declared length is within the limit", () => {
    expect(closing(422, true, "10")).toEqual([false, "open"]);
    expect(closing(400, false, "10")).toEqual([true, "open"]);
    expect(closing(400, false, String(LIMIT))).toEqual([true, "open"]);
    expect(closing(400, false, String(LIMIT + 1))).toEqual([true, "close"]);
    expect(closing(400, false)).toEqual([true, "close"]);
    expect(closing(400, false, "x")).toEqual([true, "close"]);
    // Over the limit: closed whether or not the request had ended, and whatever length it declared.
    expect(closing(413, true, "10")).toEqual([true, "close"]);
    expect(closing(413, false, "10")).toEqual([true, "close"]);
  });

  it("traceInPath: the decoded trace of a getVerification path; none for another path or a malformed escape", () => {
    const pattern = /^\/v5\/verifications\/([^/]+)$/;
    expect(traceInPath(pattern, "/v5/verifications/a%20b")).toBe("a b");
    expect(traceInPath(pattern, "/v5/verifications")).toBeUndefined();
    expect(traceInPath(pattern, "/v5/verifications/a%zz")).toBeUndefined();
  });
});

describe("reading a body (http/request.ts)", () => {
  const rules = bodyRulesOf(binding.spec, 10_000_000, () => new Error("invalid"));
  const body = (type: string, text: string) => Object.assign(Readable.from([Buffer.from(text)]), { headers: { "content-type": type } }) as never;

  it("a body over BIG_BODY bytes is decoded, parsed and handed on in three further turns of the event loop; one of BIG_BODY, in none", async () => {
    const turns = vi.spyOn(globalThis, "setImmediate");
    try {
      const json = (size: number) => `{"a":"${"x".repeat(size - 8)}"}`;
      expect(json(BIG_BODY)).toHaveLength(BIG_BODY);
      await readJson(body("application/json", json(BIG_BODY)), rules);
      const atLimit = turns.mock.calls.length;
      await readJson(body("application/json", json(BIG_BODY + 1)), rules);
      expect([atLimit, turns.mock.calls.length - atLimit]).toEqual([0, 3]);
    } finally {
      turns.mockRestore();
    }
  });

  it("a form of exactly maxValues fields is read; one more is refused by its count", async () => {
    const max = rules.arrays.maxValues;
    const form = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=v`).join("&");
    expect([...(await readForm(body("application/x-www-form-urlencoded", form(max)), rules)).keys()]).toHaveLength(max);
    const refused = await rejectionOf(readForm(body("application/x-www-form-urlencoded", form(max + 1)), rules), HttpError);
    expect(refused.message).toBe(filled(rules.arrays.tooManyValues, { max }));
  });
});
