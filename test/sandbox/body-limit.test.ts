// The sandbox's default body limit (spec/sandbox.yaml requestSize, issue 39 item 1): 1 MiB, the size at
// which a stored body keeps the sandbox within 64 MB of its memory (bench/hostile-body.bench.ts). A body of
// exactly the limit is read and stored whole; one byte more is refused 413 before it is read.
import { describe, expect, it } from "vitest";
import { sandboxSpec } from "../../generated/sandbox.js";
import { startSandbox } from "../../templates/sandbox/api.js";

const LIMIT = sandboxSpec.choices.requestSize.maxBodyBytes;
const basic = (uid: string, secret: string) => `Basic ${Buffer.from(`${uid}:${secret}`).toString("base64")}`;
/** A valid v5 create of exactly `bytes` bytes, its inputRisk filling what the JSON around it leaves. */
function createOf(bytes: number): string {
  const around = JSON.stringify({ type: "individual", subType: "data", country: "AUS", name: "Pat Example", website: "https://example.com", inputRisk: "" });
  return JSON.stringify({
    type: "individual",
    subType: "data",
    country: "AUS",
    name: "Pat Example",
    website: "https://example.com",
    inputRisk: "r".repeat(bytes - around.length),
  });
}

describe("the default body limit", { timeout: 120_000 }, () => {
  it("is 1 MiB, the specification's gap answered in spec/sandbox.yaml", () => {
    expect(LIMIT).toBe(1_048_576);
    expect(sandboxSpec.choices.requestSize.answers).toBe("Maximum document and request size: not shown.");
  });

  it("a body of exactly the limit is stored whole; one byte more is 413 naming the limit", async () => {
    const s = await startSandbox({ processingMs: "manual" });
    const authorization = basic(s.serviceUid, s.secret);
    const post = (body: string) => fetch(`${s.url}/v5/verifications`, { method: "POST", headers: { authorization, "content-type": "application/json" }, body });
    try {
      const exact = createOf(LIMIT);
      expect(Buffer.byteLength(exact)).toBe(LIMIT);
      const stored = await post(exact);
      expect(stored.status).toBe(200);
      const { trace } = (await stored.json()) as { trace: string };
      const read = (await (await fetch(`${s.url}/v5/verifications/${trace}`, { headers: { authorization } })).json()) as { data: { inputRisk: string } };
      expect(read.data.inputRisk).toBe((JSON.parse(exact) as { inputRisk: string }).inputRisk);
      const over = await post(createOf(LIMIT + 1));
      expect(over.status).toBe(413);
      expect(((await over.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: "payload_too_large",
        message: `The request body is larger than ${LIMIT} bytes.`,
      });
    } finally {
      await s.close();
    }
  });
});
