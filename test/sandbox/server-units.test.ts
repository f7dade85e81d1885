// The pure parts of templates/sandbox/server.ts: the JSON depth count that refuses a body before the store
// would overflow the stack, the NUL finder behind the 422 at a field's path, and the credential checker
// (written against survivors of the sandbox's mutation run: docs/engineering/mutation-testing.md).
import { describe, expect, it } from "vitest";
import { jsonDepth, nulPaths } from "../../templates/sandbox/bodies.js";
import { accountChecker } from "../../templates/sandbox/http/credentials.js";

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
});
