// The webhook runtime piece by piece, each refusal with its exact reason and message (the messages are
// documented as safe to log, so they are part of the interface), the condition language of the
// transition table, the ordering guard's edges and the header reader's.
import { describe, expect, it } from "vitest";
import {
  createOrderingGuard,
  createWebhookKit,
  evaluateCondition,
  findTransitions,
  isWebhookVerificationError,
  MemoryOrderingState,
  MemoryReplayStore,
  WebhookVerificationError,
  type ConditionExpr,
  type VerifyWebhookInput,
  type WebhookRules,
} from "../../templates/webhooks/index.js";
import { readSignatureHeaders, DUPLICATE_HEADER } from "../../templates/webhooks/headers.js";
import { interpretWebhook } from "../../templates/webhooks/interpret.js";
import { assertSecret, digestsEqual, parseDigest, toBytes, toHex } from "../../templates/webhooks/signature.js";
import { payloadTimestampMs } from "../../templates/webhooks/timestamp.js";
import { nextRecord } from "../../templates/webhooks/ordering.js";
import { fixtureRules, signWebhook } from "./rules.fixture.js";
import { v5Body, vectors } from "./helpers.js";

const NOW = vectors.now;
const SECRET = vectors.secret;
const kit = createWebhookKit({ rules: fixtureRules });
const verify = (input: Partial<VerifyWebhookInput> & Pick<VerifyWebhookInput, "rawBody" | "headers">) =>
  kit.verifyWebhook({ secret: SECRET, now: NOW, replayStore: new MemoryReplayStore(), ...input });

async function refusal(promise: Promise<unknown>): Promise<{ reason: string; message: string; errors?: unknown }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).toJSON();
}

const HEX = "a".repeat(64);
const body = v5Body(NOW);

describe("each refusal, with its reason and message", () => {
  const cases: readonly [string, Partial<VerifyWebhookInput> & Pick<VerifyWebhookInput, "rawBody" | "headers">, string, string][] = [
    ["no header", { rawBody: body, headers: {} }, "missing_signature", "no X-Svc-Signature or X-Svc-Signature-SHA/-KECCAK header"],
    [
      "version twice",
      { rawBody: body, headers: { "X-Svc-Signature": `sha256=${HEX}`, "x-svc-signature-version": "2", "X-Svc-Signature-Version": "2" } },
      "malformed_signature",
      "X-Svc-Signature-version was sent more than once",
    ],
    [
      "version 2 without its header",
      { rawBody: body, headers: { "X-Svc-Signature-SHA": `svc_sec_sha256_${HEX}`, "X-Svc-Signature-version": "2" } },
      "missing_signature",
      "signature version 2 needs the X-Svc-Signature header",
    ],
    [
      "version 1 without its headers",
      { rawBody: body, headers: { "X-Svc-Signature": `sha256=${HEX}`, "X-Svc-Signature-version": "1" } },
      "missing_signature",
      "signature version 1 needs X-Svc-Signature-SHA or X-Svc-Signature-KECCAK",
    ],
    [
      "version 3",
      { rawBody: body, headers: { "X-Svc-Signature": `sha256=${HEX}`, "X-Svc-Signature-version": "3" } },
      "unsupported_version",
      "X-Svc-Signature-version is not 1 or 2",
    ],
    [
      "v2 digest twice",
      { rawBody: body, headers: { "X-Svc-Signature": [`sha256=${HEX}`, `sha256=${HEX}`] } },
      "malformed_signature",
      "X-Svc-Signature was sent more than once",
    ],
    [
      "v2 digest short",
      { rawBody: body, headers: { "X-Svc-Signature": "sha256=abc" } },
      "malformed_signature",
      "X-Svc-Signature must be sha256= followed by 64 hex digits",
    ],
    [
      "v1 SHA malformed",
      { rawBody: body, headers: { "X-Svc-Signature-SHA": "sha256=x" } },
      "malformed_signature",
      "X-Svc-Signature-SHA must be svc_sec_sha256_ followed by 64 hex digits",
    ],
    [
      "v1 KECCAK malformed",
      { rawBody: body, headers: { "X-Svc-Signature-KECCAK": `svc_sec_sha256_${HEX}` } },
      "malformed_signature",
      "X-Svc-Signature-KECCAK must be svc_sec_keccak256_ followed by 64 hex digits",
    ],
    [
      "wrong digest",
      { rawBody: body, headers: { "X-Svc-Signature": `sha256=${HEX}` } },
      "signature_mismatch",
      "the signature does not match the body with any configured signing key",
    ],
  ];
  for (const [name, input, reason, message] of cases) {
    it(name, async () => {
      expect(await refusal(verify(input))).toEqual({ name: "WebhookVerificationError", reason, message });
    });
  }

  it("a body that is not a JSON object, a timestamp that is not a number, a timestamp out of tolerance either way", async () => {
    const signedV2 = (rawBody: string) => ({ rawBody, headers: signWebhook({ version: "2", rawBody, secret: SECRET }) });
    for (const text of ["[1]", "5", "null", "{"]) {
      expect(await refusal(verify(signedV2(text)))).toEqual({
        name: "WebhookVerificationError",
        reason: "invalid_payload",
        message: "the body is not a UTF-8 JSON object",
      });
    }
    expect(await refusal(verify(signedV2(v5Body(NOW, { timestamp: "soon" }))))).toEqual({
      name: "WebhookVerificationError",
      reason: "invalid_payload",
      message: "the payload has no numeric timestamp",
      errors: [{ message: "timestamp must be a number (Unix time)", code: "invalid_type", path: ["timestamp"] }],
    });
    expect((await refusal(verify(signedV2(v5Body(NOW - 300_001))))).message).toBe("the payload timestamp is 300001 ms in the past; the tolerance is 300000 ms");
    expect((await refusal(verify(signedV2(v5Body(NOW + 300_002))))).message).toBe(
      "the payload timestamp is 300002 ms in the future; the tolerance is 300000 ms",
    );
  });

  it("a replay, a schema failure from the kit's validator", async () => {
    const rawBody = v5Body(NOW);
    const headers = signWebhook({ version: "2", rawBody, secret: SECRET });
    const replayStore = new MemoryReplayStore();
    await verify({ rawBody, headers, replayStore });
    expect(await refusal(verify({ rawBody, headers, replayStore }))).toEqual({
      name: "WebhookVerificationError",
      reason: "replayed",
      message: "this delivery was already accepted",
    });
    const strict = createWebhookKit({
      rules: fixtureRules,
      validatePayload: () => Promise.resolve({ valid: false, errors: [{ message: "m", code: "c", path: [] }] }),
    });
    const error = await refusal(strict.verifyWebhook({ rawBody, headers, secret: SECRET, now: NOW }));
    expect(error).toEqual({
      name: "WebhookVerificationError",
      reason: "invalid_payload",
      message: "the payload does not match the spec's schema",
      errors: [{ message: "m", code: "c", path: [] }],
    });
  });

  it("a bad tolerance or key list is the caller's mistake (TypeError), not a refusal", async () => {
    const rawBody = v5Body(NOW);
    const headers = signWebhook({ version: "2", rawBody, secret: SECRET });
    await expect(verify({ rawBody, headers, toleranceMs: -1 })).rejects.toThrow(new TypeError("verifyWebhook: toleranceMs must be a non-negative number"));
    await expect(verify({ rawBody, headers, toleranceMs: Number.NaN })).rejects.toThrow(TypeError);
    await expect(verify({ rawBody, headers: signWebhook({ version: "2", rawBody: v5Body(NOW - 1), secret: SECRET }), toleranceMs: 0 })).rejects.toMatchObject({
      reason: "signature_mismatch",
    });
    await expect(verify({ rawBody, headers, toleranceMs: 0 })).resolves.toMatchObject({ version: "2" });
    await expect(verify({ rawBody, headers, secret: [] })).rejects.toThrow(new TypeError("verifyWebhook: at least one signing key is required"));
    await expect(verify({ rawBody, headers, secret: [SECRET, ""] })).rejects.toThrow(/^verifyWebhook: the signing key must be/);
  });
});

describe("the body-embedded signature (version 1, deprecated)", () => {
  const withSignature = (signature: unknown) => JSON.stringify({ ...JSON.parse(v5Body(NOW)), signature });
  const bodyVerify = (rawBody: string) => verify({ rawBody, headers: {}, allowBodySignature: true });
  const sig = (over: Record<string, unknown> = {}) => ({ version: 1, sha256: `svc_sec_sha256_${HEX}`, keccak256: `svc_sec_keccak256_${HEX}`, ...over });

  it("refuses each malformed signature object with its own message", async () => {
    const cases: readonly [string, string, string][] = [
      [withSignature(null), "missing_signature", "no signature header and no signature object in the body"],
      [withSignature([sig()]), "missing_signature", "no signature header and no signature object in the body"],
      ["not json", "missing_signature", "no signature header and no signature object in the body"],
      [withSignature({ version: 1 }), "missing_signature", "the body's signature object has neither sha256 nor keccak256"],
      [withSignature(sig({ sha256: 5 })), "malformed_signature", "signature.sha256 must be svc_sec_sha256_ followed by 64 hex digits"],
      [withSignature(sig({ keccak256: "x" })), "malformed_signature", "signature.keccak256 must be svc_sec_keccak256_ followed by 64 hex digits"],
      [withSignature(sig({ version: 2 })), "unsupported_version", "the body's signature.version is not 1"],
      [withSignature(sig({ version: "1" })), "signature_mismatch", "the signature does not match the body with any configured signing key"],
      [withSignature(sig({ keccak256: undefined })), "signature_mismatch", "the signature does not match the body with any configured signing key"],
      [withSignature(sig({ sha256: undefined })), "signature_mismatch", "the signature does not match the body with any configured signing key"],
    ];
    for (const [rawBody, reason, message] of cases)
      expect(await refusal(bodyVerify(rawBody)), rawBody).toEqual({ name: "WebhookVerificationError", reason, message });
  });

  it("accepts a body signed with only one of the two digests", async () => {
    const unsigned = JSON.parse(v5Body(NOW)) as Record<string, unknown>;
    const headers = signWebhook({ version: "1", rawBody: JSON.stringify(unsigned), secret: SECRET });
    const sha = headers["X-Svc-Signature-SHA"]!;
    const keccak = headers["X-Svc-Signature-KECCAK"]!;
    for (const signature of [
      { version: 1, sha256: sha },
      { version: 1, keccak256: keccak },
    ]) {
      await expect(bodyVerify(JSON.stringify({ ...unsigned, signature }))).resolves.toMatchObject({ version: "1", payload: unsigned });
    }
  });
});

describe("errors", () => {
  it("serialise without `errors` unless there are some", () => {
    expect(JSON.stringify(new WebhookVerificationError("replayed", "m"))).toBe('{"name":"WebhookVerificationError","reason":"replayed","message":"m"}');
    expect(new WebhookVerificationError("invalid_payload", "m", []).toJSON()).toEqual({
      name: "WebhookVerificationError",
      reason: "invalid_payload",
      message: "m",
      errors: [],
    });
  });

  it("are recognised across copies of the module by name and a known reason only", () => {
    const copy = Object.assign(new Error("m"), { name: "WebhookVerificationError", reason: "replayed" });
    expect(isWebhookVerificationError(new WebhookVerificationError("replayed", "m"))).toBe(true);
    expect(isWebhookVerificationError(copy)).toBe(true);
    expect(isWebhookVerificationError({ name: "WebhookVerificationError", reason: "replayed", message: "m" })).toBe(false);
    expect(isWebhookVerificationError(Object.assign(new Error("m"), { name: "Other", reason: "replayed" }))).toBe(false);
    expect(isWebhookVerificationError(Object.assign(new Error("m"), { name: "WebhookVerificationError", reason: "made_up" }))).toBe(false);
    expect(isWebhookVerificationError(Object.assign(new Error("m"), { name: "WebhookVerificationError", reason: 1 }))).toBe(false);
    expect(isWebhookVerificationError(null)).toBe(false);
  });
});

describe("signature helpers", () => {
  it("parseDigest wants the prefix and exactly 64 hex digits", () => {
    expect(toHex(parseDigest(`sha256=${HEX}`, "sha256=")!)).toBe(HEX);
    expect(toHex(parseDigest(`sha256=${HEX.toUpperCase()}`, "sha256=")!)).toBe(HEX);
    expect(parseDigest(`x${"sha256="}${HEX}`, "sha256=")).toBeUndefined();
    expect(parseDigest(`sha512=${HEX}`, "sha256=")).toBeUndefined();
    expect(parseDigest(`sha256=${HEX}0`, "sha256=")).toBeUndefined();
    expect(parseDigest(`sha256=${"g".repeat(64)}`, "sha256=")).toBeUndefined();
  });

  it("digestsEqual compares lengths first, then bytes", () => {
    expect(digestsEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(digestsEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(digestsEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });

  it("toBytes takes a string as UTF-8 and bytes as they are", () => {
    expect([...toBytes("é")]).toEqual([0xc3, 0xa9]);
    const bytes = new Uint8Array([1]);
    expect(toBytes(bytes)).toBe(bytes);
  });

  it("signWebhook signs v1 with the two digest headers only, v2 with one; a bad version or key is a TypeError", () => {
    expect(Object.keys(signWebhook({ version: "1", rawBody: "{}", secret: "k" })).sort()).toEqual([
      "X-Svc-Signature-KECCAK",
      "X-Svc-Signature-SHA",
      "X-Svc-Signature-version",
    ]);
    expect(Object.keys(signWebhook({ version: "2", rawBody: "{}", secret: "k" })).sort()).toEqual(["X-Svc-Signature", "X-Svc-Signature-version"]);
    expect(() => signWebhook({ version: "3" as "2", rawBody: "{}", secret: "k" })).toThrow(new TypeError('signWebhook: version must be "1" or "2"'));
    expect(() => signWebhook({ version: "2", rawBody: "{}", secret: "" })).toThrow(
      new TypeError("signWebhook: the signing key must be a non-empty string or Uint8Array"),
    );
    expect(() => assertSecret(new Uint8Array(), "here")).toThrow(/^here: the signing key must be/);
    expect(() => assertSecret(5 as unknown as string, "here")).toThrow(TypeError);
    expect(() => assertSecret({ length: 3 } as unknown as string, "here")).toThrow(TypeError);
    expect(() => assertSecret(new Uint8Array([1]), "here")).not.toThrow();
  });
});

describe("headers", () => {
  it("reads numbers as text, skips inherited and unrelated keys, trims, and counts two spellings as a duplicate", () => {
    const inherited = Object.create({ "x-svc-signature": "sha256=inherited" }) as Record<string, unknown>;
    inherited["X-Svc-Signature-version"] = 2;
    expect(readSignatureHeaders(fixtureRules.signatures, inherited as Record<string, string>)).toEqual({
      version: "2",
      v2: undefined,
      sha: undefined,
      keccak: undefined,
    });
    expect(
      readSignatureHeaders(fixtureRules.signatures, { "X-Svc-Signature-KECCAK": " k ", "content-type": "x", xsvc: "y", "Y-Svc-Signature-SHA": "z" }),
    ).toEqual({ version: undefined, v2: undefined, sha: undefined, keccak: "k" });
    expect(readSignatureHeaders(fixtureRules.signatures, { "X-Svc-Signature-SHA": "a", "x-svc-signature-sha": "b" }).sha).toBe(DUPLICATE_HEADER);
    expect(readSignatureHeaders(fixtureRules.signatures, { "X-Svc-Signature-Other": "a" })).toEqual({
      version: undefined,
      v2: undefined,
      sha: undefined,
      keccak: undefined,
    });
    expect(readSignatureHeaders(fixtureRules.signatures, { "X-Svc-Signature": ["a", ""] }).v2).toBe("a");
    expect(readSignatureHeaders(fixtureRules.signatures, { "X-Svc-Signature": ["", "b"] }).v2).toBe("b");
  });

  it("keeps working past the 64 header names it remembers", () => {
    for (let i = 0; i < 70; i++)
      expect(readSignatureHeaders(fixtureRules.signatures, { [`X-Svc-Signature-Other${i}`]: "1", "X-SVC-SIGNATURE": "v" }).v2).toBe("v");
    expect(readSignatureHeaders(fixtureRules.signatures, { "x-SVC-signature-sha": "late" }).sha).toBe("late");
  });
});

describe("timestamps", () => {
  it("older payloads in seconds are read as ms below 1e12; v5 payloads are always ms; negatives and non-numbers are none", () => {
    expect(payloadTimestampMs({ timestamp: 1_767_225_600 })).toBe(1_767_225_600_000);
    expect(payloadTimestampMs({ timestamp: 999_999_999_999 })).toBe(999_999_999_999_000);
    expect(payloadTimestampMs({ timestamp: 1e12 })).toBe(1e12);
    expect(payloadTimestampMs({ version: "v5", timestamp: 1_767_225_600 })).toBe(1_767_225_600);
    expect(payloadTimestampMs({ timestamp: -1 })).toBeUndefined();
    expect(payloadTimestampMs({ timestamp: 0 })).toBe(0);
    expect(payloadTimestampMs({ timestamp: Number.POSITIVE_INFINITY })).toBeUndefined();
    expect(payloadTimestampMs({ timestamp: "1" })).toBeUndefined();
  });
});

describe("conditions and transitions", () => {
  const rules: WebhookRules = {
    ...fixtureRules,
    conditions: { big: { field: "n", atLeast: "limit" }, small: { field: "n", below: "limit" }, isA: { field: "kind", equals: "a" } },
    statuses: { ...fixtureRules.statuses, special: { meaning: "m", outcome: "verified", guidance: "g", onlyWhen: "isA" } },
    transitions: [
      { from: "pending", to: ["special"], trigger: "t" },
      { from: "verified", to: ["any"], trigger: "t", when: { ref: "big" } },
    ],
  };
  const ev = (expr: ConditionExpr, fields: Record<string, unknown>) => evaluateCondition(rules, expr, fields);

  it("evaluates every form", () => {
    expect(ev({ any: [{ ref: "isA" }, { ref: "big" }] }, { kind: "b", n: 5, limit: 5 })).toBe(true);
    expect(ev({ any: [{ ref: "isA" }, { ref: "big" }] }, { kind: "a", n: 1, limit: 5 })).toBe(true);
    expect(ev({ any: [{ ref: "isA" }, { ref: "big" }] }, { kind: "b", n: 1, limit: 5 })).toBe(false);
    expect(ev({ all: [{ ref: "isA" }, { ref: "small" }] }, { kind: "a", n: 1, limit: 5 })).toBe(true);
    expect(ev({ field: "kind", equals: "a" }, { kind: "b" })).toBe(false);
    expect(ev({ field: "kind", equals: "a" }, {})).toBe(false);
    expect(ev({ field: "kind", notEquals: "a" }, { kind: null })).toBe(true);
    expect(ev({ field: "kind", present: false }, { kind: null })).toBe(true);
    expect(ev({ field: "kind", present: true }, { kind: 0 })).toBe(true);
    expect(ev({ ref: "big" }, { n: 5, limit: 5 })).toBe(true);
    expect(ev({ ref: "big" }, { n: 4, limit: 5 })).toBe(false);
    expect(ev({ ref: "small" }, { n: 5, limit: 5 })).toBe(false);
    expect(ev({ ref: "small" }, { n: 4, limit: 5 })).toBe(true);
    expect(ev({ ref: "small" }, { n: 4, limit: "5" })).toBe(false);
    expect(ev({ ref: "small" }, { n: "4", limit: 5 })).toBe(false);
    expect(ev({ ref: "small" }, { n: Number.NEGATIVE_INFINITY, limit: 5 })).toBe(false);
    expect(ev({ ref: "small" }, { n: 4, limit: Number.POSITIVE_INFINITY })).toBe(false);
    expect(ev({ ref: "small" }, { n: 4 })).toBe(false);
    expect(() => ev({ ref: "nope" }, {})).toThrow(new RangeError('unknown condition "nope"'));
  });

  it("finds rows: unknown targets none, onlyWhen checked with fields, `any` targets every other status, `any` sources known statuses only", () => {
    expect(findTransitions(rules, "pending", "nope")).toEqual([]);
    expect(findTransitions(rules, "verified", "nope")).toEqual([]); // an `any` row reaches known statuses only
    expect(findTransitions(rules, "pending", "special", { kind: "b" })).toEqual([]);
    expect(findTransitions(rules, "pending", "special", { kind: "a" })).toHaveLength(1);
    expect(findTransitions(rules, "pending", "special")).toHaveLength(1);
    expect(findTransitions(rules, "verified", "rejected", { n: 5, limit: 5 })).toHaveLength(1);
    expect(findTransitions(rules, "verified", "rejected", { n: 1, limit: 5 })).toEqual([]);
    expect(findTransitions(rules, "verified", "verified", { n: 5, limit: 5 })).toEqual([]);
    expect(findTransitions(fixtureRules, null, "verified")).toEqual([]);
    expect(findTransitions(fixtureRules, "madeUp", "verified")).toEqual([]);
    expect(findTransitions(fixtureRules, "verified", "rejected").map((r) => r.id)).toEqual(["compliance"]);
  });

  it("interpretWebhook refuses what is not an object or names no known status, quoting at most 64 characters", () => {
    expect(() => interpretWebhook(rules, null)).toThrow(new TypeError("interpretWebhook: payload must be an object"));
    expect(() => interpretWebhook(rules, "x")).toThrow(TypeError);
    expect(() => interpretWebhook(rules, { verificationStatus: null })).toThrow(new RangeError("interpretWebhook: unknown verificationStatus (null)"));
    expect(() => interpretWebhook(rules, { verificationStatus: 3 })).toThrow(new RangeError("interpretWebhook: unknown verificationStatus (number)"));
    expect(() => interpretWebhook(rules, { verificationStatus: "s".repeat(64) })).toThrow(
      new RangeError(`interpretWebhook: unknown verificationStatus "${"s".repeat(64)}"`),
    );
    expect(() => interpretWebhook(rules, { verificationStatus: "s".repeat(65) })).toThrow(
      new RangeError(`interpretWebhook: unknown verificationStatus "${"s".repeat(64)}…"`),
    );
  });
});

describe("ordering", () => {
  it("MemoryOrderingState wants a positive whole number of traces and evicts the least recently updated", () => {
    for (const bad of [0, -1, 1.5])
      expect(() => new MemoryOrderingState({ maxTraces: bad })).toThrow(new RangeError("MemoryOrderingState: maxTraces must be a positive integer"));
    const state = new MemoryOrderingState({ maxTraces: 2 });
    state.set("a", { timestamp: 1, deliveryIds: [] });
    state.set("b", { timestamp: 1, deliveryIds: [] });
    state.set("a", { timestamp: 2, deliveryIds: [] });
    state.set("c", { timestamp: 1, deliveryIds: [] });
    expect([state.get("a")?.timestamp, state.get("b"), state.get("c")?.timestamp, state.size]).toEqual([2, undefined, 1, 2]);
    const one = new MemoryOrderingState({ maxTraces: 1 });
    one.set("a", { timestamp: 1, deliveryIds: [] });
    one.set("b", { timestamp: 1, deliveryIds: [] });
    expect([one.get("a"), one.size]).toEqual([undefined, 1]);
  });

  it("nextRecord: newer replaces, older drops, same timestamp adds only a new delivery id (64 kept)", () => {
    expect(nextRecord(undefined, 5, undefined)).toEqual({ timestamp: 5, deliveryIds: [] });
    expect(nextRecord(undefined, 5, "d")).toEqual({ timestamp: 5, deliveryIds: ["d"] });
    expect(nextRecord({ timestamp: 5, deliveryIds: ["d"] }, 4, "e")).toBeUndefined();
    expect(nextRecord({ timestamp: 5, deliveryIds: ["d"] }, 5, "e")).toEqual({ timestamp: 5, deliveryIds: ["d", "e"] });
    const full = Array.from({ length: 64 }, (_, i) => `id${i}`);
    expect(nextRecord({ timestamp: 5, deliveryIds: full }, 5, "new")?.deliveryIds).toEqual([...full.slice(1), "new"]);
  });

  it("the guard refuses what it cannot order, with a message for each, and reads deliveryId from the payload only when it is a non-empty string", async () => {
    const guard = createOrderingGuard();
    await expect(guard.accept(null)).rejects.toThrow(new TypeError("ordering guard: payload must be an object"));
    await expect(guard.accept("x")).rejects.toThrow(new TypeError("ordering guard: payload must be an object"));
    await expect(guard.accept({ trace: "", timestamp: 1 })).rejects.toThrow(new TypeError("ordering guard: payload has no trace"));
    await expect(guard.accept({ trace: 5, timestamp: 1 })).rejects.toThrow(new TypeError("ordering guard: payload has no trace"));
    await expect(guard.accept({ trace: "t", timestamp: "1" })).rejects.toThrow(new TypeError("ordering guard: payload has no numeric timestamp"));
    expect(await guard.accept({ trace: "t", timestamp: 1, deliveryId: "" })).toBe(true);
    expect(await guard.accept({ trace: "t", timestamp: 1, deliveryId: "" })).toBe(false); // no id: a re-delivery
    expect(await guard.accept({ trace: "t", timestamp: 1, deliveryId: 7 })).toBe(false);
    expect(await guard.accept({ trace: "t", timestamp: 1, deliveryId: "d2" })).toBe(true);
    expect(await guard.accept({ trace: "t", timestamp: 1 }, { deliveryId: "d3" })).toBe(true);
  });

  it("keeps serving a trace after its queue drained, and after a state failure", async () => {
    let fail = true;
    const inner = new MemoryOrderingState();
    const guard = createOrderingGuard({
      state: { get: (t) => inner.get(t), set: (t, r) => (fail ? Promise.reject(new Error("down")) : inner.set(t, r)) },
    });
    await expect(guard.accept({ trace: "t", timestamp: 1 })).rejects.toThrow("down");
    fail = false;
    expect(await guard.accept({ trace: "t", timestamp: 1 })).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(await guard.accept({ trace: "t", timestamp: 2 })).toBe(true);
  });
});
