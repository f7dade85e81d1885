import { inspect } from "node:util";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  createWebhookKit,
  MemoryReplayStore,
  WebhookVerificationError,
  type ReplayStore,
  type VerifyWebhookInput,
  type WebhookVerificationReason,
} from "../../templates/webhooks/index.js";
import { keccakDigest, sha3Digest, toHex } from "../../templates/webhooks/signature.js";
import { fixtureRules, signWebhook } from "./rules.fixture.js";
import { expectReason, v1Headers, v2Headers, v5Body, vectorCase, vectors } from "./helpers.js";

const NOW = vectors.now;
const SECRET = vectors.secret;
const kit = createWebhookKit({ rules: fixtureRules });

/** Each call gets its own replay store unless the test passes one. */
function verify(input: Partial<VerifyWebhookInput> & Pick<VerifyWebhookInput, "rawBody" | "headers">) {
  return kit.verifyWebhook({ secret: SECRET, now: NOW, replayStore: new MemoryReplayStore(), ...input });
}

function signed(version: "1" | "2", rawBody: string, secret = SECRET) {
  return { rawBody, headers: signWebhook({ version, rawBody, secret }) };
}

describe("independent vectors (Python hashlib + pure-Python Keccak)", () => {
  it("Keccak-256 of the empty string is the published value, and differs from SHA3-256", () => {
    const known = "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
    expect(vectors.keccak256Empty).toBe(known);
    expect(toHex(keccak_256(new Uint8Array()))).toBe(known);
    expect(toHex(keccakDigest("", ""))).toBe(known);
    expect(toHex(sha3Digest("", ""))).toBe(vectors.sha3_256Empty);
    expect(vectors.sha3_256Empty).not.toBe(known);
  });

  for (const c of vectors.cases) {
    it(`signWebhook reproduces the Python digests for "${c.name}"`, () => {
      expect(signWebhook({ version: "2", rawBody: c.body, secret: c.key })).toEqual(v2Headers(c));
      expect(signWebhook({ version: "1", rawBody: Buffer.from(c.body), secret: c.key })).toEqual(v1Headers(c));
    });
  }

  for (const name of ["v5", "v5_pretty", "older_ms"]) {
    it(`verifies "${name}" with both signature versions`, async () => {
      const c = vectorCase(name);
      const v2 = await verify({ rawBody: c.body, headers: v2Headers(c) });
      const v1 = await verify({ rawBody: c.body, headers: v1Headers(c) });
      expect(v2.version).toBe("2");
      expect(v1.version).toBe("1");
      expect(v2.payload).toEqual(JSON.parse(c.body));
      expect(v1.payload).toEqual(JSON.parse(c.body));
    });
  }

  it("checks the signature before the body: an empty body with a good signature is invalid_payload, with a bad one signature_mismatch", async () => {
    const empty = vectorCase("empty");
    await expectReason(verify({ rawBody: "", headers: v2Headers(empty) }), "invalid_payload");
    await expectReason(verify({ rawBody: "", headers: v2Headers(vectorCase("v5")) }), "signature_mismatch");
  });
});

describe("timestamp tolerance (seed: 6.4, 8) — inclusive, both directions", () => {
  const cases: Array<[offset: number, ok: boolean]> = [
    [300_000, true],
    [-300_000, true],
    [300_001, false],
    [-300_001, false],
    [0, true],
  ];
  for (const [offset, ok] of cases) {
    it(`timestamp ${offset >= 0 ? "+" : ""}${offset} ms from now is ${ok ? "accepted" : "refused"}`, async () => {
      const delivery = signed("2", v5Body(NOW + offset));
      if (ok) {
        await expect(verify(delivery)).resolves.toMatchObject({ version: "2" });
      } else {
        await expectReason(verify(delivery), "timestamp_out_of_tolerance");
      }
    });
  }

  it("uses a per-call toleranceMs over the rules' value", async () => {
    const delivery = signed("2", v5Body(NOW - 1_001));
    await expectReason(verify({ ...delivery, toleranceMs: 1_000 }), "timestamp_out_of_tolerance");
    await expect(verify({ ...delivery, toleranceMs: 1_001 })).resolves.toEqual({ version: "2", payload: JSON.parse(delivery.rawBody) });
  });

  it("reads an older payload's timestamp below 1e12 as seconds (seed: 6.3)", async () => {
    const c = vectorCase("older_seconds");
    const timestampSeconds = (JSON.parse(c.body) as { timestamp: number }).timestamp;
    expect(timestampSeconds).toBeLessThan(1e12);
    await expect(verify({ rawBody: c.body, headers: v1Headers(c), now: NOW + 300_000 })).resolves.toEqual({ version: "1", payload: JSON.parse(c.body) });
    await expectReason(verify({ rawBody: c.body, headers: v1Headers(c), now: NOW + 301_000 }), "timestamp_out_of_tolerance");
  });

  it("does not read a v5 payload's small timestamp as seconds", async () => {
    const delivery = signed("2", v5Body(Math.floor(NOW / 1000)));
    await expectReason(verify(delivery), "timestamp_out_of_tolerance");
  });

  it("refuses a payload without a numeric timestamp as invalid_payload", async () => {
    const error = await expectReason(verify(signed("2", v5Body(NOW, { timestamp: String(NOW) }))), "invalid_payload");
    expect(error.errors).toEqual([expect.objectContaining({ path: ["timestamp"] })]);
  });
});

describe("signature checks", () => {
  it("refuses a tampered body (v1 and v2)", async () => {
    const c = vectorCase("v5");
    const tampered = c.body.replace('"verified"', '"rejected"');
    expect(tampered).not.toBe(c.body);
    await expectReason(verify({ rawBody: tampered, headers: v2Headers(c) }), "signature_mismatch");
    await expectReason(verify({ rawBody: tampered, headers: v1Headers(c) }), "signature_mismatch");
  });

  it("refuses a body signed with another key", async () => {
    const delivery = signed("2", v5Body(NOW), "some-other-key");
    await expectReason(verify(delivery), "signature_mismatch");
    await expectReason(verify(signed("1", v5Body(NOW), "some-other-key")), "signature_mismatch");
  });

  it("v1: every digest header present must match", async () => {
    const c = vectorCase("v5");
    const other = vectorCase("older_ms");
    const badKeccak = { ...v1Headers(c), "X-Svc-Signature-KECCAK": `svc_sec_keccak256_${other.v1.keccak_256}` };
    const badSha = { ...v1Headers(c), "X-Svc-Signature-SHA": `svc_sec_sha256_${other.v1.sha3_256}` };
    await expectReason(verify({ rawBody: c.body, headers: badKeccak }), "signature_mismatch");
    await expectReason(verify({ rawBody: c.body, headers: badSha }), "signature_mismatch");
  });

  it("v1: the SHA header is SHA3-256, so a SHA-2 digest is refused", async () => {
    const { createHash } = await import("node:crypto");
    const c = vectorCase("v5");
    const sha2 = createHash("sha256")
      .update(c.body + c.key)
      .digest("hex");
    const headers = { "X-Svc-Signature-SHA": `svc_sec_sha256_${sha2}`, "X-Svc-Signature-version": "1" };
    await expectReason(verify({ rawBody: c.body, headers }), "signature_mismatch");
  });

  it("v1: a single digest header present is enough when it matches", async () => {
    const c = vectorCase("v5");
    const { "X-Svc-Signature-KECCAK": keccak, ...shaOnly } = v1Headers(c);
    const { "X-Svc-Signature-SHA": sha, ...keccakOnly } = v1Headers(c);
    expect([keccak, sha].every(Boolean)).toBe(true);
    await expect(verify({ rawBody: c.body, headers: shaOnly })).resolves.toMatchObject({ version: "1" });
    await expect(verify({ rawBody: c.body, headers: keccakOnly })).resolves.toMatchObject({ version: "1" });
  });

  it("accepts any of several keys (rotation), for both versions", async () => {
    const c = vectorCase("v5_old_key");
    const secret = [SECRET, vectors.oldSecret];
    await expect(verify({ rawBody: c.body, headers: v2Headers(c), secret })).resolves.toMatchObject({ version: "2" });
    await expect(verify({ rawBody: c.body, headers: v1Headers(c), secret })).resolves.toMatchObject({ version: "1" });
    await expectReason(verify({ rawBody: c.body, headers: v2Headers(c), secret: [SECRET] }), "signature_mismatch");
  });

  it("accepts upper-case hex digests", async () => {
    const c = vectorCase("v5");
    const headers = { "X-Svc-Signature": `sha256=${c.v2.toUpperCase()}` };
    await expect(verify({ rawBody: c.body, headers })).resolves.toEqual({ version: "2", payload: JSON.parse(c.body) });
  });

  it("rejects an empty key list or an empty key as a programming error, without a verification reason", async () => {
    const c = vectorCase("v5");
    await expect(verify({ rawBody: c.body, headers: v2Headers(c), secret: [] })).rejects.toThrow(TypeError);
    await expect(verify({ rawBody: c.body, headers: v2Headers(c), secret: "" })).rejects.toThrow(TypeError);
  });
});

describe("headers (seed: 6.4)", () => {
  const c = vectorCase("v5");

  const missing: Array<[string, Record<string, string>]> = [
    ["no headers", {}],
    ["only the version header", { "X-Svc-Signature-version": "2" }],
    ["version 2 declared, only v1 headers", { ...v1Headers(c), "X-Svc-Signature-version": "2" }],
    ["version 1 declared, only the v2 header", { ...v2Headers(c), "X-Svc-Signature-version": "1" }],
    ["empty signature header", { "X-Svc-Signature": "  ", "X-Svc-Signature-version": "2" }],
  ];
  for (const [label, headers] of missing) {
    it(`missing_signature: ${label}`, async () => {
      await expectReason(verify({ rawBody: c.body, headers }), "missing_signature");
    });
  }

  const malformed: Array<[string, Record<string, string | string[]>]> = [
    ["v2 without prefix", { "X-Svc-Signature": c.v2 }],
    ["v2 with another prefix", { "X-Svc-Signature": `sha1=${c.v2}` }],
    ["v2 with a short digest", { "X-Svc-Signature": `sha256=${c.v2.slice(1)}` }],
    ["v2 with non-hex", { "X-Svc-Signature": `sha256=${"z".repeat(64)}` }],
    ["v2 sent twice", { "X-Svc-Signature": [`sha256=${c.v2}`, `sha256=${c.v2}`] }],
    ["v1 SHA without prefix", { "X-Svc-Signature-SHA": c.v1.sha3_256, "X-Svc-Signature-version": "1" }],
    ["v1 prefixes swapped", { "X-Svc-Signature-SHA": `svc_sec_keccak256_${c.v1.keccak_256}` }],
    ["v1 KECCAK too long", { ...v1Headers(c), "X-Svc-Signature-KECCAK": `svc_sec_keccak256_${c.v1.keccak_256}0` }],
    ["version header twice", { ...v2Headers(c), "x-svc-signature-version": ["2", "2"] }],
  ];
  for (const [label, headers] of malformed) {
    it(`malformed_signature: ${label}`, async () => {
      await expectReason(verify({ rawBody: c.body, headers }), "malformed_signature");
    });
  }

  it("malformed_signature: the same header under two spellings in one object", async () => {
    const headers = { "X-Svc-Signature": `sha256=${c.v2}`, "x-svc-signature": `sha256=${c.v2}` };
    await expectReason(verify({ rawBody: c.body, headers }), "malformed_signature");
  });

  it("unsupported_version: an unknown version header", async () => {
    for (const version of ["3", "v2", "0"]) {
      await expectReason(verify({ rawBody: c.body, headers: { ...v2Headers(c), "X-Svc-Signature-version": version } }), "unsupported_version");
    }
  });

  it("infers the version from the signature headers when the version header is absent", async () => {
    const { "X-Svc-Signature-version": _v2, ...v2Only } = v2Headers(c);
    const { "X-Svc-Signature-version": _v1, ...v1Only } = v1Headers(c);
    await expect(verify({ rawBody: c.body, headers: v2Only })).resolves.toMatchObject({ version: "2" });
    await expect(verify({ rawBody: c.body, headers: v1Only })).resolves.toMatchObject({ version: "1" });
    // Both kinds without a version header: the current scheme (2) is checked.
    await expect(verify({ rawBody: c.body, headers: { ...v1Only, ...v2Only } })).resolves.toMatchObject({ version: "2" });
  });

  it("reads header names case-insensitively from a plain object, a Headers and IncomingHttpHeaders arrays", async () => {
    const lower = Object.fromEntries(Object.entries(v1Headers(c)).map(([k, v]) => [k.toLowerCase(), v]));
    const upper = Object.fromEntries(Object.entries(v2Headers(c)).map(([k, v]) => [k.toUpperCase(), v]));
    const fetchHeaders = new Headers(v2Headers(c));
    const incoming = { "x-svc-signature": [`sha256=${c.v2}`], "x-svc-signature-version": "2", "content-length": "10" };
    await expect(verify({ rawBody: c.body, headers: lower })).resolves.toMatchObject({ version: "1" });
    await expect(verify({ rawBody: c.body, headers: upper })).resolves.toMatchObject({ version: "2" });
    await expect(verify({ rawBody: c.body, headers: fetchHeaders })).resolves.toMatchObject({ version: "2" });
    await expect(verify({ rawBody: c.body, headers: incoming })).resolves.toMatchObject({ version: "2" });
  });

  it("a Headers with a repeated signature is malformed (values are joined)", async () => {
    const headers = new Headers(v2Headers(c));
    headers.append("X-Svc-Signature", `sha256=${c.v2}`);
    await expectReason(verify({ rawBody: c.body, headers }), "malformed_signature");
  });
});

describe("order of checks", () => {
  it("missing_signature comes before anything about the body", async () => {
    await expectReason(verify({ rawBody: "not json", headers: { "X-Svc-Signature-version": "9" } }), "missing_signature");
  });

  it("an unknown version is refused before the signature is computed", async () => {
    const headers = { "X-Svc-Signature": "sha256=nothex", "X-Svc-Signature-version": "3" };
    await expectReason(verify({ rawBody: "x", headers }), "unsupported_version");
  });

  it("signature_mismatch comes before invalid_payload, timestamp and replay", async () => {
    const c = vectorCase("v5");
    await expectReason(verify({ rawBody: "not json", headers: v2Headers(c) }), "signature_mismatch");
    await expectReason(verify({ rawBody: v5Body(0), headers: v2Headers(c) }), "signature_mismatch");
  });

  it("invalid_payload (validatePayload) comes before the timestamp check", async () => {
    const validating = createWebhookKit({
      rules: fixtureRules,
      validatePayload: () => ({ valid: false, errors: [{ message: "bad", code: "custom", path: ["name"] }] }),
    });
    const delivery = signed("2", v5Body(0));
    const error = await expectReason(validating.verifyWebhook({ ...delivery, secret: SECRET, now: NOW }), "invalid_payload");
    expect(error.errors).toEqual([{ message: "bad", code: "custom", path: ["name"] }]);
  });

  it("a stale delivery is refused before the replay store is touched", async () => {
    const store = new MemoryReplayStore();
    await expectReason(verify({ ...signed("2", v5Body(NOW - 400_000)), replayStore: store }), "timestamp_out_of_tolerance");
    expect(store.size).toBe(0);
  });
});

describe("payload", () => {
  it("passes the same payload for string, Buffer and Uint8Array bodies", async () => {
    const c = vectorCase("older_ms");
    const bytes = Buffer.from(c.body, "utf8");
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    const view = padded.subarray(4, 4 + bytes.length); // non-zero byteOffset
    const results = await Promise.all([c.body, bytes, view].map((rawBody) => verify({ rawBody, headers: v2Headers(c) })));
    for (const result of results) expect(result.payload).toEqual(JSON.parse(c.body));
    expect((results[0]!.payload as { name: string }).name).toBe("Zoë Müller");
  });

  it("refuses signed bodies that are not a JSON object, or not UTF-8", async () => {
    for (const body of ["[]", "null", "42", '"text"', "{"]) {
      await expectReason(verify(signed("2", body)), "invalid_payload");
    }
    const invalidUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
    await expectReason(verify({ rawBody: invalidUtf8, headers: signWebhook({ version: "2", rawBody: invalidUtf8, secret: SECRET }) }), "invalid_payload");
  });

  it("calls validatePayload with v5 or v4 after the signature check", async () => {
    const validatePayload = vi.fn(() => ({ valid: true as const }));
    const validating = createWebhookKit({ rules: fixtureRules, validatePayload });
    const v5 = vectorCase("v5");
    const older = vectorCase("older_ms");
    await validating.verifyWebhook({ rawBody: v5.body, headers: v2Headers(v5), secret: SECRET, now: NOW });
    await validating.verifyWebhook({ rawBody: older.body, headers: v1Headers(older), secret: SECRET, now: NOW });
    await expectReason(validating.verifyWebhook({ rawBody: "{}", headers: v2Headers(v5), secret: SECRET, now: NOW }), "signature_mismatch");
    expect(validatePayload.mock.calls).toEqual([
      ["v5", JSON.parse(v5.body)],
      ["v4", JSON.parse(older.body)],
    ]);
  });

  it("types the payload as V5 | V4", async () => {
    interface V5 {
      version: "v5";
      trace: string;
    }
    interface V4 {
      trace: string;
      verificationUuid?: string;
    }
    const typed = createWebhookKit<V5, V4>({ rules: fixtureRules });
    const c = vectorCase("v5");
    const { payload } = await typed.verifyWebhook({ rawBody: c.body, headers: v2Headers(c), secret: SECRET, now: NOW });
    expectTypeOf(payload).toEqualTypeOf<V5 | V4>();
    expect(payload.trace).toBe("5b0c1e8a-0d7c-4e55-9a53-2f2a8c1f0a11");
  });
});

describe("replay (seed: 6.4)", () => {
  it("refuses the second identical delivery with a shared store", async () => {
    const store = new MemoryReplayStore();
    const delivery = signed("2", v5Body(NOW));
    await verify({ ...delivery, replayStore: store });
    await expectReason(verify({ ...delivery, replayStore: store }), "replayed");
  });

  it("the kit's default store refuses replays across calls", async () => {
    const own = createWebhookKit({ rules: fixtureRules });
    const delivery = { ...signed("1", v5Body(NOW)), secret: SECRET, now: NOW };
    await expect(own.verifyWebhook(delivery)).resolves.toEqual({ version: "1", payload: JSON.parse(delivery.rawBody) });
    await expectReason(own.verifyWebhook(delivery), "replayed");
  });

  it("keys on the computed digest: changed hex case or a dropped v1 header is still a replay", async () => {
    const c = vectorCase("v5");
    const store = new MemoryReplayStore();
    await verify({ rawBody: c.body, headers: v2Headers(c), replayStore: store });
    await expectReason(verify({ rawBody: c.body, headers: { "X-Svc-Signature": `sha256=${c.v2.toUpperCase()}` }, replayStore: store }), "replayed");

    const v1Store = new MemoryReplayStore();
    await verify({ rawBody: c.body, headers: v1Headers(c), replayStore: v1Store });
    const { "X-Svc-Signature-SHA": _sha, ...keccakOnly } = v1Headers(c);
    await expectReason(verify({ rawBody: c.body, headers: keccakOnly, replayStore: v1Store }), "replayed");
  });

  it("the same bytes are one delivery whatever the signature version", async () => {
    for (const [first, second] of [
      ["2", "1"],
      ["1", "2"],
    ] as const) {
      const store = new MemoryReplayStore();
      const body = v5Body(NOW);
      await verify({ ...signed(first, body), replayStore: store });
      await expectReason(verify({ ...signed(second, body), replayStore: store }), "replayed");
    }
  });

  it("the same bytes are one delivery whatever the key that signed them (rotation)", async () => {
    const store = new MemoryReplayStore();
    const body = v5Body(NOW);
    const both = [SECRET, vectors.oldSecret];
    await verify({ ...signed("2", body, vectors.oldSecret), secret: both, replayStore: store });
    await expectReason(verify({ ...signed("2", body, SECRET), secret: both, replayStore: store }), "replayed");
    await expectReason(verify({ ...signed("1", body, vectors.oldSecret), secret: both, replayStore: store }), "replayed");
  });

  it("a body-signed delivery and the same delivery with headers are one delivery", async () => {
    const { body } = vectors.bodySignature;
    const { signature: _s, ...rest } = JSON.parse(body) as Record<string, unknown>;
    const store = new MemoryReplayStore();
    await verify({ rawBody: body, headers: {}, allowBodySignature: true, replayStore: store });
    await expectReason(verify({ ...signed("2", JSON.stringify(rest)), replayStore: store }), "replayed");
  });

  it("an older delivery carrying its signature object is one delivery with its headers and with them stripped, either order", async () => {
    // The vector's body embeds a valid body signature; headers sign the same bytes, signature object included.
    const { body } = vectors.bodySignature;
    const now = (JSON.parse(body) as { timestamp: number }).timestamp * 1000;
    for (const version of ["1", "2"] as const) {
      const withHeaders = { ...signed(version, body), now };
      const stripped = { rawBody: body, headers: {}, allowBodySignature: true, now };
      for (const [first, second] of [
        [withHeaders, stripped],
        [stripped, withHeaders],
      ]) {
        const store = new MemoryReplayStore();
        await verify({ ...first!, allowBodySignature: true, replayStore: store });
        await expectReason(verify({ ...second!, allowBodySignature: true, replayStore: store }), "replayed");
      }
    }
  });

  it("different bytes are different deliveries; the key is a keyed body digest, never the secret or a whole signature", async () => {
    const keys: string[] = [];
    const spy: ReplayStore = { addIfAbsent: (key) => (keys.push(key), true) };
    const first = signed("2", v5Body(NOW));
    await verify({ ...first, replayStore: spy });
    await verify({ ...signed("2", v5Body(NOW, { trace: "trace-2" })), replayStore: spy });
    expect(keys).toEqual([expect.stringMatching(/^h:[0-9a-f]{32}$/), expect.stringMatching(/^h:[0-9a-f]{32}$/)]);
    expect(keys[0]).not.toBe(keys[1]);
    const signature = Object.values(first.headers)
      .find((v) => v.startsWith("sha256="))!
      .slice("sha256=".length);
    expect(keys[0]).toBe(`h:${signature.slice(0, 32)}`); // the first half of the HMAC version 2 computed anyway
    expect(keys.join()).not.toContain(signature);
    expect(keys.join()).not.toContain(SECRET);
  });

  it("one key per configured signing key; every one recorded, whichever key signed", async () => {
    const keys: string[] = [];
    const spy: ReplayStore = { addIfAbsent: (key) => (keys.push(key), true) };
    const body = v5Body(NOW);
    await verify({ ...signed("2", body, vectors.oldSecret), secret: [SECRET, vectors.oldSecret], replayStore: spy });
    await verify({ ...signed("1", body, SECRET), secret: [SECRET, vectors.oldSecret], replayStore: spy });
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(2);
    expect(keys.slice(2)).toEqual(keys.slice(0, 2));
  });

  it("a replay is refused across rotation steps: the configurations [old], [new, old], [new] share the store", async () => {
    const body = v5Body(NOW);
    const steps: Array<[string[], string]> = [
      [[vectors.oldSecret], vectors.oldSecret],
      [[SECRET, vectors.oldSecret], vectors.oldSecret],
      [[SECRET, vectors.oldSecret], SECRET],
      [[SECRET], SECRET],
    ];
    // Accepted at one step, replayed at every later one (each signed by a key both configurations hold, or
    // re-signed by the service with the new key while the old one is still configured).
    for (let first = 0; first < steps.length; first++) {
      for (let later = first + 1; later < steps.length; later++) {
        const [firstSecrets, firstKey] = steps[first]!;
        const [laterSecrets, laterKey] = steps[later]!;
        if (!laterSecrets.includes(firstKey) && !firstSecrets.includes(laterKey)) continue; // no key in common: not one receiver's history
        const store = new MemoryReplayStore();
        await verify({ ...signed("2", body, firstKey), secret: firstSecrets, replayStore: store });
        await expectReason(verify({ ...signed("2", body, laterKey), secret: laterSecrets, replayStore: store }), "replayed");
        await expectReason(verify({ ...signed("1", body, laterKey), secret: laterSecrets, replayStore: store }), "replayed");
      }
    }
  });

  it("legacyReplayKeys: a delivery recorded under verispec 0.1's key (by an older instance) is a replay", async () => {
    const c = vectorCase("v5");
    const now = JSON.parse(c.body).timestamp as number;
    const olderInstance = new MemoryReplayStore();
    olderInstance.addIfAbsent(`2:${c.v2}`, 60_000); // what verispec 0.1 wrote for this delivery
    await expectReason(verify({ rawBody: c.body, headers: v2Headers(c), replayStore: olderInstance, now, legacyReplayKeys: true }), "replayed");
    // Both keys are written, so an older instance sharing the store sees the delivery too.
    const shared = new MemoryReplayStore();
    await verify({ rawBody: c.body, headers: v2Headers(c), replayStore: shared, now, legacyReplayKeys: true });
    expect(shared.addIfAbsent(`2:${c.v2}`, 60_000)).toBe(false);
  });

  it("a refused delivery does not use up the key, and the TTL is twice the tolerance", async () => {
    const calls: Array<[string, number]> = [];
    const inner = new MemoryReplayStore();
    const spy: ReplayStore = {
      addIfAbsent(key, ttlMs) {
        calls.push([key, ttlMs]);
        return inner.addIfAbsent(key, ttlMs);
      },
    };
    const body = v5Body(NOW);
    const good = signWebhook({ version: "2", rawBody: body, secret: SECRET });
    await expectReason(
      verify({ rawBody: body, headers: signWebhook({ version: "2", rawBody: body, secret: "wrong" }), replayStore: spy }),
      "signature_mismatch",
    );
    await expect(verify({ rawBody: body, headers: good, replayStore: spy })).resolves.toEqual({ version: "2", payload: JSON.parse(body) });
    expect(calls).toHaveLength(1);
    expect(calls[0]![1]).toBe(2 * fixtureRules.toleranceMs);
    expect(calls[0]![0]).not.toContain(SECRET);
  });

  it("an async store that throws fails the verification (fail closed)", async () => {
    const broken: ReplayStore = { addIfAbsent: () => Promise.reject(new Error("store down")) };
    await expect(verify({ ...signed("2", v5Body(NOW)), replayStore: broken })).rejects.toThrow("store down");
  });
});

describe("deprecated body-embedded v1 signature (seed: 6.4, 9)", () => {
  const { body, hashedText } = vectors.bodySignature;

  it("is refused unless allowBodySignature is set", async () => {
    await expectReason(verify({ rawBody: body, headers: {} }), "missing_signature");
  });

  it("verifies JSON.stringify of the body without `signature`, plus the key", async () => {
    const { signature: _s, ...rest } = JSON.parse(body) as Record<string, unknown>;
    expect(JSON.stringify(rest)).toBe(hashedText);
    const result = await verify({ rawBody: body, headers: {}, allowBodySignature: true });
    expect(result.version).toBe("1");
    expect(result.payload).toEqual(rest);
    expect(result.payload).not.toHaveProperty("signature");
  });

  it("refuses a tampered body, a missing or malformed signature object and another version", async () => {
    const parsed = JSON.parse(body) as Record<string, unknown> & { signature: Record<string, unknown> };
    const variant = (change: (p: typeof parsed) => void): string => {
      const copy = structuredClone(parsed);
      change(copy);
      return JSON.stringify(copy);
    };
    const cases: Array<[string, WebhookVerificationReason]> = [
      [variant((p) => (p["name"] = "Someone Else")), "signature_mismatch"],
      [variant((p) => delete (p as Record<string, unknown>)["signature"]), "missing_signature"],
      ["not json", "missing_signature"],
      [variant((p) => (p.signature["sha256"] = "deadbeef")), "malformed_signature"],
      [variant((p) => (p.signature["version"] = 2)), "unsupported_version"],
    ];
    for (const [rawBody, reason] of cases) {
      await expectReason(verify({ rawBody, headers: {}, allowBodySignature: true }), reason);
    }
  });

  it("header signatures take precedence when present", async () => {
    const c = vectorCase("v5");
    await expectReason(verify({ rawBody: body, headers: v2Headers(c), allowBodySignature: true }), "signature_mismatch");
  });
});

describe("the signing key never leaks", () => {
  const secret = "whsec_NEVER_PRINT_ME_91c2";
  const deliveries: Array<[WebhookVerificationReason, Partial<VerifyWebhookInput>]> = [
    ["missing_signature", { rawBody: "{}", headers: {} }],
    ["malformed_signature", { rawBody: "{}", headers: { "X-Svc-Signature": "sha256=zz" } }],
    ["unsupported_version", { rawBody: "{}", headers: { "X-Svc-Signature": "sha256=zz", "X-Svc-Signature-version": "7" } }],
    ["signature_mismatch", { ...signed("2", v5Body(NOW), "other") }],
    ["invalid_payload", { ...signed("2", "[]", secret) }],
    ["timestamp_out_of_tolerance", { ...signed("1", v5Body(0), secret) }],
  ];
  for (const [reason, input] of deliveries) {
    it(`${reason}: not in message, toString, JSON or inspect`, async () => {
      const error = await expectReason(verify({ rawBody: "", headers: {}, ...input, secret: [secret, `${secret}-2`] }), reason);
      const renderings = [error.message, String(error), JSON.stringify(error), inspect(error, { showHidden: true, depth: null }), error.stack ?? ""];
      for (const text of renderings) expect(text).not.toContain(secret);
      expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: "WebhookVerificationError", reason });
    });
  }

  it("replayed: not in message, toString, JSON or inspect", async () => {
    const store = new MemoryReplayStore();
    const delivery = { ...signed("2", v5Body(NOW), secret), secret, replayStore: store };
    await verify(delivery);
    const error = await expectReason(verify(delivery), "replayed");
    expect(inspect(error, { showHidden: true, depth: null })).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
  });

  it("a type error about the key does not contain it either", async () => {
    const error = await verify({ rawBody: "{}", headers: {}, secret: [secret, ""] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(inspect(error)).not.toContain(secret);
    expect(error).not.toBeInstanceOf(WebhookVerificationError);
  });
});
