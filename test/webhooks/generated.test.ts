// The generated bindings (generated/webhooks.js): the runtime with the spec's real rules.
import { describe, expect, it } from "vitest";
import { canTransition, interpretWebhook, signWebhook, verifyWebhook, webhookRules } from "../../generated/webhooks.js";

const NOW = 1_767_225_600_000;
const body = (over: Record<string, unknown> = {}) => JSON.stringify({ version: "v5", tags: [], attempt: 1, trace: "t-1", timestamp: NOW, ...over });

describe("generated webhook rules", () => {
  it("takes the tolerance from spec/limits.yaml", () => {
    expect(webhookRules.toleranceMs).toBe(300_000);
  });

  it("accepts 300000 ms either way and refuses 300001 ms", async () => {
    for (const [offset, ok] of [
      [300_000, true],
      [-300_000, true],
      [300_001, false],
      [-300_001, false],
    ] as const) {
      const rawBody = body({ timestamp: NOW + offset, trace: `t${offset}` });
      const headers = signWebhook({ version: "2", rawBody, secret: "k" });
      const result = verifyWebhook({ rawBody, headers, secret: "k", now: NOW });
      if (ok) await expect(result).resolves.toMatchObject({ version: "2" });
      else await expect(result).rejects.toMatchObject({ reason: "timestamp_out_of_tolerance" });
    }
  });

  it("reads statuses as section 6.2 of the service's specification says", () => {
    const base = { version: "v5" as const, tags: [] as string[], attempt: 1 };
    expect(interpretWebhook({ ...base, verificationStatus: "rejected", attempt: 1, maxAttempts: 5, submissionStatus: "submitted" }).outcome).toBe(
      "retry_possible",
    );
    expect(interpretWebhook({ ...base, verificationStatus: "rejected", attempt: 5, maxAttempts: 5, submissionStatus: "submitted" }).outcome).toBe(
      "final_rejection",
    );
    expect(interpretWebhook({ ...base, verificationStatus: "rejected", attempt: 1, maxAttempts: 5, submissionStatus: "locked" }).outcome).toBe(
      "final_rejection",
    );
    expect(interpretWebhook({ ...base, verificationStatus: "rejected", attempt: 1, submissionStatus: "submitted" }).outcome).toBe("final_rejection");
    expect(interpretWebhook({ ...base, verificationStatus: "info" }).outcome).toBe("fetch_details");
    expect(interpretWebhook({ ...base, verificationStatus: "error" }).outcome).toBe("fetch_details");
    expect(interpretWebhook({ ...base, verificationStatus: "removed" }).outcome).toBe("stakeholder_removed");
    expect(interpretWebhook({ verificationStatus: "locked" }).outcome).toBe("locked"); // older format only
    expect(interpretWebhook({ ...base, verificationStatus: "pending" }).outcome).toBe("processing");
    expect(interpretWebhook({ ...base, verificationStatus: "verified" }).outcome).toBe("verified");
  });

  it("refuses a signed payload that does not match its schema as invalid_payload", async () => {
    const rawBody = body({ attempt: "first" });
    const headers = signWebhook({ version: "2", rawBody, secret: "k" });
    await expect(verifyWebhook({ rawBody, headers, secret: "k", now: NOW })).rejects.toMatchObject({
      reason: "invalid_payload",
      errors: [{ code: "invalid_type", path: ["attempt"] }],
    });
  });

  it("checks each format with its own validator, loaded on first use and reused after", async () => {
    const older = JSON.stringify({
      name: "Jane Citizen",
      verificationStatus: "verified",
      trace: "3e1f6b0a-6f0e-4d9b-8c7a-1b2c3d4e5f60",
      submissionId: "9a8b7c6d",
      entityType: "individual",
      timestamp: NOW,
      submissionStatus: "submitted",
      verificationScore: 2,
      idvRiskScore: { description: "Low" },
    });
    for (const [rawBody, errors] of [
      [older, [{ code: "invalid_format", message: "Invalid UUID", path: ["submissionId"] }]],
      [body({ attempt: "first" }), [{ code: "invalid_type", path: ["attempt"] }]],
    ] as const) {
      const headers = signWebhook({ version: "2", rawBody, secret: "k" });
      for (let call = 0; call < 2; call++) {
        await expect(verifyWebhook({ rawBody, headers, secret: "k", now: NOW })).rejects.toMatchObject({ reason: "invalid_payload", errors });
      }
    }
  });

  it("follows the transition table of the service's specification, section 3", () => {
    expect(canTransition(null, "pending")).toBe(true);
    expect(canTransition("pending", "verified")).toBe(true);
    expect(canTransition("rejected", "pending")).toBe(true);
    expect(canTransition(null, "removed")).toBe(true);
    expect(canTransition(null, "verified")).toBe(false);
  });
});
