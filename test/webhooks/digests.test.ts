// The two digest kits of templates/webhooks/bytes.ts: the runtime's native crypto (Node, Bun, Deno) and
// the portable one (@noble/hashes: workerd, browsers) give the same bytes, and the native one is chosen only
// where the runtime gives it out without an import.
import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digests, nativeDigests, portableDigests, runtimeCrypto, toHex } from "../../templates/webhooks/bytes.js";

const native = runtimeCrypto();

describe("webhook digests", () => {
  it("Node 20.16+ gives out its crypto through process.getBuiltinModule, and that kit is the one in use", () => {
    expect(native).toBeDefined();
    expect(digests).not.toBe(portableDigests);
  });

  it("a scope without process, or whose getBuiltinModule throws, gets no native crypto (the portable kit)", () => {
    expect(runtimeCrypto({})).toBeUndefined();
    expect(
      runtimeCrypto({
        process: {
          getBuiltinModule: () => {
            throw new Error("denied");
          },
        },
      }),
    ).toBeUndefined();
    expect(runtimeCrypto({ process: { getBuiltinModule: () => ({}) } })).toBeUndefined();
  });

  it("native and portable agree on HMAC-SHA256 (string and byte keys), SHA-256 and SHA3-256 of any bytes", () => {
    const kit = nativeDigests(native!);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), fc.string(), fc.uint8Array({ minLength: 1, maxLength: 100 }), (body, key, keyBytes) => {
        expect(toHex(kit.hmacSha256(key, body))).toBe(toHex(portableDigests.hmacSha256(key, body)));
        expect(toHex(kit.hmacSha256(keyBytes, body))).toBe(toHex(portableDigests.hmacSha256(keyBytes, body)));
        expect(toHex(kit.sha256(body))).toBe(toHex(portableDigests.sha256(body)));
        expect(kit.sha256Hex(body)).toBe(portableDigests.sha256Hex(body));
        expect(toHex(kit.sha3Of(body, keyBytes))).toBe(toHex(portableDigests.sha3Of(body, keyBytes)));
      }),
      { numRuns: 200 },
    );
    // A string key's bytes are kept between deliveries: the second use (and one beyond ASCII) agrees too.
    for (const key of ["clé-🔑", "clé-🔑", "k"])
      expect(toHex(kit.hmacSha256(key, Uint8Array.of(1, 2)))).toBe(toHex(portableDigests.hmacSha256(key, Uint8Array.of(1, 2))));
  });

  it("both match Node's own digests on a known input", () => {
    const body = new TextEncoder().encode('{"version":"v5"}');
    const want = createHmac("sha256", "whsec").update(body).digest("hex");
    expect(toHex(portableDigests.hmacSha256("whsec", body))).toBe(want);
    expect(toHex(digests.hmacSha256("whsec", body))).toBe(want);
    expect(toHex(portableDigests.sha3Of(body, new TextEncoder().encode("k")))).toBe(createHash("sha3-256").update(body).update("k").digest("hex"));
  });
});
