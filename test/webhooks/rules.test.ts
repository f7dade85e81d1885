import { describe, expect, it } from "vitest";
import { createWebhookKit, type WebhookOutcome, type WebhookRules } from "../../templates/webhooks/index.js";
import { fixtureRules } from "./rules.fixture.js";

const kit = createWebhookKit({ rules: fixtureRules });

describe("interpretWebhook (seed: 3, 6.2)", () => {
  const branches: Array<[label: string, payload: Record<string, unknown>, outcome: WebhookOutcome]> = [
    ["pending", { verificationStatus: "pending", submissionStatus: "submitted", attempt: 2 }, "processing"],
    ["new", { verificationStatus: "new" }, "processing"],
    ["verified", { verificationStatus: "verified", submissionStatus: "submitted", attempt: 1 }, "verified"],
    [
      "rejected, attempt below maxAttempts, not locked",
      { verificationStatus: "rejected", submissionStatus: "submitted", attempt: 2, maxAttempts: 5 },
      "retry_possible",
    ],
    [
      "rejected, attempt equal to maxAttempts",
      { verificationStatus: "rejected", submissionStatus: "submitted", attempt: 5, maxAttempts: 5 },
      "final_rejection",
    ],
    ["rejected, attempt above maxAttempts", { verificationStatus: "rejected", submissionStatus: "submitted", attempt: 6, maxAttempts: 5 }, "final_rejection"],
    ["rejected, no maxAttempts", { verificationStatus: "rejected", submissionStatus: "submitted", attempt: 1 }, "final_rejection"],
    ["rejected, submission locked", { verificationStatus: "rejected", submissionStatus: "locked", attempt: 1, maxAttempts: 5 }, "final_rejection"],
    ["rejected, attempt missing", { verificationStatus: "rejected", submissionStatus: "submitted", maxAttempts: 5 }, "final_rejection"],
    ["info", { verificationStatus: "info" }, "fetch_details"],
    ["error", { verificationStatus: "error" }, "fetch_details"],
    ["removed (stakeholder)", { verificationStatus: "removed", parentTrace: "entity-1", roles: ["director"] }, "stakeholder_removed"],
    ["locked (older format)", { verificationStatus: "locked", submissionStatus: "locked" }, "locked"],
  ];
  for (const [label, payload, outcome] of branches) {
    it(`${label} → ${outcome}`, () => {
      const result = kit.interpretWebhook(payload);
      expect(result.outcome).toBe(outcome);
      expect(result.status).toBe(payload["verificationStatus"]);
      const status = fixtureRules.statuses[result.status]!;
      expect(result.meaning).toBe(status.meaning);
      expect(result.guidance).toBe(status.outcome === "by_attempts" ? fixtureRules.outcomes[outcome] : status.guidance);
    });
  }

  it("evaluates the rules' retry condition (data), not hard-coded field names", () => {
    const rules: WebhookRules = {
      ...fixtureRules,
      conditions: {
        ...fixtureRules.conditions,
        canRetry: {
          all: [
            { field: "attempt", below: "maxAttempts" },
            { field: "submissionStatus", notEquals: "frozen" },
          ],
        },
      },
    };
    const custom = createWebhookKit({ rules });
    const payload = { verificationStatus: "rejected", attempt: 1, maxAttempts: 5 };
    expect(custom.interpretWebhook({ ...payload, submissionStatus: "frozen" }).outcome).toBe("final_rejection");
    expect(custom.interpretWebhook({ ...payload, submissionStatus: "locked" }).outcome).toBe("retry_possible");
  });

  it("throws for a status the rules do not know, or a payload that is not an object", () => {
    expect(() => kit.interpretWebhook({ verificationStatus: "approved" })).toThrow(RangeError);
    expect(() => kit.interpretWebhook({ verificationStatus: "toString" })).toThrow(RangeError);
    expect(() => kit.interpretWebhook({})).toThrow(RangeError);
    expect(() => kit.interpretWebhook(null)).toThrow(TypeError);
  });
});

describe("canTransition (seed: 3)", () => {
  const table: Array<[from: string | null, to: string, allowed: boolean]> = [
    [null, "pending", true],
    [null, "removed", true],
    [null, "verified", false],
    ["pending", "verified", true],
    ["pending", "info", true],
    ["rejected", "pending", true],
    ["rejected", "rejected", true],
    ["verified", "rejected", true], // any → changed status (compliance check, portal edit)
    ["verified", "new", false],
    ["unknown-state", "pending", false], // "any" covers known statuses only
  ];
  for (const [from, to, allowed] of table) {
    it(`${String(from)} → ${to}: ${allowed}`, () => {
      expect(kit.canTransition(from, to)).toBe(allowed);
    });
  }

  it("without the 'any' rows only the listed transitions hold", () => {
    const rules: WebhookRules = { ...fixtureRules, transitions: fixtureRules.transitions.filter((row) => row.from !== "any") };
    const strict = createWebhookKit({ rules });
    expect(strict.canTransition("pending", "rejected")).toBe(true);
    expect(strict.canTransition("verified", "rejected")).toBe(false);
    expect(strict.canTransition("info", "pending")).toBe(false); // seed: "not stated"
    expect(strict.canTransition("rejected", "verified")).toBe(false);
  });

  it("evaluates each row's condition and the target's onlyWhen when the fields are given", () => {
    const strict = createWebhookKit({
      rules: { ...fixtureRules, transitions: fixtureRules.transitions.filter((row) => row.from !== "any" || row.id === "remove") },
    });
    expect(strict.canTransition("rejected", "pending", { attempt: 1, maxAttempts: 5, submissionStatus: "submitted" })).toBe(true);
    expect(strict.canTransition("rejected", "pending", { attempt: 5, maxAttempts: 5, submissionStatus: "submitted" })).toBe(false);
    expect(strict.canTransition("rejected", "pending", { attempt: 1, submissionStatus: "submitted" })).toBe(false); // no cap: final
    expect(strict.canTransition("rejected", "pending", { attempt: 1, maxAttempts: 5, submissionStatus: "locked" })).toBe(false);
    expect(strict.canTransition("rejected", "rejected", { attempt: 5, maxAttempts: 5 })).toBe(true); // the lock row
    expect(strict.canTransition("rejected", "rejected", { attempt: 1, maxAttempts: 5 })).toBe(false);
    expect(strict.canTransition("verified", "removed", { parentTrace: "t" })).toBe(true);
    expect(strict.canTransition("verified", "removed", {})).toBe(false);
    expect(strict.canTransition(null, "removed", { parentTrace: "t" })).toBe(true);
  });
});
