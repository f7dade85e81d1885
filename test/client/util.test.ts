import { describe, expect, it } from "vitest";
import { HttpError, ResponseValidationError, ValidationError, VerispecError } from "../../templates/client/errors.js";
import { toError } from "../../templates/client/core.js";
import { backoffMs, base64Utf8, buildPath, parseBody, redactor } from "../../templates/client/util.js";

describe("base64Utf8", () => {
  it.each(["uid:secret", "ü:€", "ключ:密钥", ""])("matches Buffer for %o", (s) => {
    expect(base64Utf8(s)).toBe(Buffer.from(s, "utf8").toString("base64"));
  });
});

describe("buildPath", () => {
  it("encodes every placeholder with encodeURIComponent", () => {
    expect(buildPath("/v5/verifications/{trace}", { trace: "a/b c?#%" })).toBe("/v5/verifications/a%2Fb%20c%3F%23%25");
  });
  it.each([null, undefined, "", "v5/x", "//host/x", "https://host/x"])("rejects %o", (p) => {
    expect(() => buildPath(p)).toThrow(TypeError);
  });
});

describe("parseBody", () => {
  it("parses JSON, keeps other text, maps empty to undefined", () => {
    expect(parseBody('{"a":1}')).toEqual({ a: 1 });
    expect(parseBody("not json")).toBe("not json");
    expect(parseBody("")).toBeUndefined();
  });
});

describe("backoffMs", () => {
  it("doubles per attempt, is capped, and jitters between half and all of the delay", () => {
    expect([0, 1, 2, 3, 10].map((a) => backoffMs(a, 100, 500, () => 1))).toEqual([100, 200, 400, 500, 500]);
    expect(backoffMs(2, 100, 500, () => 0)).toBe(200);
  });
});

describe("redactor", () => {
  const redact = redactor(["s3cret", "dWlkOnMzY3JldA==", ""]);
  it("replaces secrets deeply and any metadata_secretKey value, without touching the input", () => {
    const input = { a: ["x s3cret y", { metadata_secretKey: "other", n: 1 }], b: "Basic dWlkOnMzY3JldA==", c: null };
    expect(redact(input)).toEqual({ a: ["x [redacted] y", { metadata_secretKey: "[redacted]", n: 1 }], b: "Basic [redacted]", c: null });
    expect(input.a[0]).toBe("x s3cret y");
  });
  it("handles text and empty values; an empty secret is ignored", () => {
    expect(redact("raw s3cret")).toBe("raw [redacted]");
    expect(redact(undefined)).toBeUndefined();
    expect(redact("abc")).toBe("abc");
  });
});

describe("toError", () => {
  const errorClasses = new Map<unknown, typeof VerispecError>([["validation_error", ValidationError]]);
  const constants = { olderVersion: "4", mediaType: "application/json", errorTypesByStatus: { 422: "validation_error" }, errorClasses };
  it("ignores types that are not error types, including Object.prototype keys", () => {
    const err = toError(400, { error: { type: "constructor" }, type: "toString" }, constants);
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(400);
  });
  it("defaults details to [] on a ValidationError", () => {
    expect(toError(422, "text", constants)).toMatchObject({ details: [], body: "text" });
  });
});

describe("error classes", () => {
  it("carry their names (set on the prototype, so they survive minification) and stack headers", () => {
    const err = new ValidationError("bad", { status: 422, details: [] });
    expect(err.name).toBe("ValidationError");
    expect(err.stack?.startsWith("ValidationError: bad")).toBe(true);
    expect(new ResponseValidationError("x")).toBeInstanceOf(VerispecError);
    expect(Object.keys(err)).toEqual(["status", "details"]); // name stays off the instance
  });
});
