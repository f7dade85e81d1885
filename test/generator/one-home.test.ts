// One home per fact (issue 25): a number restated in prose must agree with the data that holds it
// (VS434), a transition's condition text is its condition's (VS435), the locking transition sets the
// locking submission status (VS436), and every transition id and choice the sandbox reads is there
// (VS433). Each case edits a copy of the real spec and wants exactly the diagnostics named.
import { afterEach, describe, expect, it } from "vitest";
import { formatDiagnostic, SpecError } from "../../generator/diagnostics.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { scratchSpec, type ScratchSpec } from "./helpers.js";

let scratch: ScratchSpec | undefined;
afterEach(() => {
  scratch?.remove();
  scratch = undefined;
});

function diagnosticsOf(edits: readonly [file: string, from: string, to: string][]): string[] {
  scratch = scratchSpec();
  for (const [file, from, to] of edits) scratch.edit(file, from, to);
  try {
    modelFromSpec(scratch.spec);
    return [];
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    return e.diagnostics.map(formatDiagnostic);
  }
}

describe("prose and data agree (VS434)", () => {
  it("the webhook tolerance raised to 50 minutes: both sentences that say 5 minutes are reported where they stand", () => {
    expect(diagnosticsOf([["limits.yaml", "ms: 300000", "ms: 3000000"]])).toEqual([
      'spec/limits.yaml:56:12: error VS434: found the text "5 minutes" stating 5 minutes; expected 50 minutes, as limits.yaml webhookTimestampTolerance holds (the data governs: change the text with it, or leave the number out of the text)',
      'spec/webhooks.yaml:21:9: error VS434: found the text "5 minutes" stating 5 minutes; expected 50 minutes, as limits.yaml webhookTimestampTolerance holds (the data governs: change the text with it, or leave the number out of the text)',
    ]);
  });

  it("the ABN pattern changed to 12 digits: every sentence that says 11 digits is reported (6 places)", () => {
    const found = diagnosticsOf([["rules.yaml", 'pattern: "^[0-9]{11}$"', 'pattern: "^[0-9]{12}$"']]);
    expect(found.every((d) => d.includes("error VS434:") && /stating 11 digits; expected 12 digits, as (rules|limits)\.yaml abn holds/.test(d))).toBe(true);
    expect(found.map((d) => d.split(":")[0]).sort()).toEqual([
      "spec/entities/unRegulatedTrust.yaml",
      "spec/errors.yaml",
      "spec/fieldsets.yaml",
      "spec/limits.yaml",
      "spec/rules.yaml",
      "spec/v5.yaml",
    ]);
  });

  it("the text changed instead of the data: reported at the text", () => {
    const found = diagnosticsOf([["limits.yaml", 'value: "6 to 13 digits"', 'value: "6 to 12 digits"']]);
    expect(found).toEqual([
      expect.stringMatching(
        /^spec\/limits\.yaml:\d+:\d+: error VS434: found the text "6 to 12 digits" stating 6 to 12 digits; expected 6 to 13 digits, as limits\.yaml nzbn holds/,
      ),
    ]);
  });

  it("the default attempt cap changed in one of its two homes only", () => {
    const found = diagnosticsOf([["statuses.yaml", "observedDefaultCap: 5", "observedDefaultCap: 7"]]);
    expect(found.map((d) => /^(spec\/[^:]+):\d+:\d+: error (VS\d+)/.exec(d)!.slice(1).join(" "))).toEqual([
      "spec/limits.yaml VS434",
      "spec/statuses.yaml VS434",
    ]);
    expect(found.join("\n")).toContain("expected a default cap of 7");
  });

  it("a form limit's count and its sentence", () => {
    expect(diagnosticsOf([["limits.yaml", "count: 10", "count: 12"]])).toEqual([
      expect.stringContaining('error VS434: found the text "10" stating 10; expected 12, as limits.yaml formOpens holds'),
    ]);
  });
});

describe("a transition's condition text has one home (VS435)", () => {
  it("a condition text written beside `when` that differs from the named condition's", () => {
    const found = diagnosticsOf([["statuses.yaml", "  - id: retry\n", '  - id: retry\n    condition: "`attempt` below `maxAttempts`"\n']]);
    expect(found).toEqual([
      expect.stringMatching(
        /^spec\/statuses\.yaml:\d+:\d+: error VS435: found the condition text "`attempt` below `maxAttempts`"; expected the text of the condition `canRetry`/,
      ),
    ]);
  });

  it("the model takes the retry row's condition text from canRetry", () => {
    scratch = scratchSpec();
    const model = modelFromSpec(scratch.spec);
    expect(model.transitions.find((t) => t.id === "retry")?.condition).toBe(model.conditions.canRetry!.text);
  });
});

describe("a country list and the prose that counts it (VS434, issue 36)", () => {
  it('a country added to the trust\'s list: "the 15 other countries" is reported where it stands', () => {
    expect(
      diagnosticsOf([
        [
          "countries.yaml",
          "countries: [AUT, BEL, BRA, CAN, CHE, DEU, DNK, ESP, FRA, GBR, ITA, MEX, NLD, NOR, SWE]",
          "countries: [AUT, BEL, BRA, CAN, CHE, DEU, DNK, ESP, FRA, GBR, IRL, ITA, MEX, NLD, NOR, SWE]",
        ],
      ]),
    ).toEqual([
      'spec/countries.yaml:288:18: error VS434: found the text "15 other countries" stating 15 countries; expected 16 countries, as countries.yaml trustCountries holds (the data governs: change the text with it, or leave the number out of the text)',
    ]);
  });
});

describe("the locking submission status is one fact (VS436)", () => {
  it("the lock transition sets another submission status than the one that locks", () => {
    expect(diagnosticsOf([["statuses.yaml", "effects: { set: { submissionStatus: locked } }", "effects: { set: { submissionStatus: incomplete } }"]])).toEqual([
      expect.stringMatching(
        /^spec\/statuses\.yaml:146:\d+: error VS436: found the lock transition setting submissionStatus "incomplete"; expected the submission status with `locksResubmission: true`: `locked`$/,
      ),
    ]);
  });
});

describe("what the sandbox reads by name is there (VS433)", () => {
  it("a spec without the `lock` transition id fails the check, not the sandbox", () => {
    expect(diagnosticsOf([["statuses.yaml", "  - id: lock\n", "  - id: lockout\n"]])).toEqual([
      expect.stringMatching(
        /^spec\/statuses\.yaml:\d+:1: error VS433: found no transition `lock`; expected transition `lock`: the sandbox refuses a resubmission past the cap with it/,
      ),
    ]);
  });

  it("a choice key the sandbox reads, missing", () => {
    expect(diagnosticsOf([["sandbox.yaml", "    header: X-Svc-Delivery-Id\n", ""]])).toEqual([
      expect.stringContaining("error VS433: found no key `header`; expected key `header`: the sandbox reads choices.deliveryId.header"),
    ]);
  });
});
