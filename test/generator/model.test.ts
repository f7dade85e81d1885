// The model read from spec/: spot checks of the seed's tables (seed sections named in each test).
import { describe, expect, it } from "vitest";
import { modelFromSpec } from "../../generator/pipeline.js";
import type { EntityKind } from "../../generator/model/types.js";
import { SPEC } from "./helpers.js";

const model = modelFromSpec(SPEC);
const kind = (name: string): EntityKind => {
  const k = model.entityKinds.find((x) => x.kind === name);
  if (!k) throw new Error(`no kind ${name}`);
  return k;
};
const branch = (k: string, country: string) => kind(k).branches.find((b) => b.countries.values.includes(country));

describe("entity kinds (seed 2.2-2.9)", () => {
  it("has exactly the kinds of the older interface, each with its interface", () => {
    expect(model.entityKinds.map((k) => `${k.kind}:${k.interface}`).sort()).toEqual([
      "association:verify",
      "governmentBody:verify",
      "individual:verify",
      "partnership:verify",
      "privateCompany:verify",
      "publicCompany:idform",
      "regulatedTrust:idform",
      "soleTrader:idform",
      "trust:verify",
      "unRegulatedTrust:verify",
    ]);
  });

  it("closes each older kind's country list as its table gives it (seed 2.2-2.8)", () => {
    const countries = (k: string) =>
      kind(k)
        .branches.flatMap((b) => b.countries.values)
        .sort();
    expect(countries("individual")).toEqual(["AUT", "BEL", "CHE", "DEU", "FRA", "GBR", "NLD", "NOR", "USA"]);
    expect(countries("association")).toEqual(["USA"]);
    expect(countries("privateCompany")).toEqual(["USA"]);
    expect(countries("governmentBody")).toEqual(["NZL", "USA"]);
    expect(countries("unRegulatedTrust")).toEqual(["AUS"]);
    expect(countries("partnership")).toEqual(["NZL"]);
    expect(countries("trust")).toEqual(["AUT", "BEL", "BRA", "CAN", "CHE", "DEU", "DNK", "ESP", "FRA", "GBR", "ITA", "MEX", "NLD", "NOR", "SWE"]);
  });

  it("forms kinds take any ISO 3166-1 alpha-3 code (seed 2.9)", () => {
    for (const k of ["regulatedTrust", "soleTrader", "publicCompany"]) expect(kind(k).branches[0]!.countries.values).toHaveLength(249);
  });

  it("the trust for DEU requires a trustee, who may be any of the four stakeholder types (seed 2.7)", () => {
    const trust = kind("trust");
    expect(branch("trust", "DEU")?.countries.values).toContain("DEU");
    expect(trust.stakeholders?.required).toBe(true);
    const trustee = trust.stakeholders!.roleSet.roles.find((r) => r.name === "trustee")!;
    expect(trustee.required).toBe(true);
    expect(trustee.types).toEqual(["individual", "privateCompany", "publicCompany", "governmentBody"]);
    expect(trust.stakeholders!.roleSet.roles.filter((r) => r.name !== "trustee").every((r) => !r.required && r.types.join() === "individual")).toBe(true);
  });

  it("legislationType differs by country: USA federal/state/other, NZL national/local/other (seed 2.5)", () => {
    expect(branch("governmentBody", "USA")!.fields.legislationType!.enum).toEqual(["federal", "state", "other"]);
    expect(branch("governmentBody", "NZL")!.fields.legislationType!.enum).toEqual(["national", "local", "other"]);
  });

  it("puts the Australian-only fields on exactly the four kinds of 2.10", () => {
    const having = model.entityKinds.flatMap((k) => k.branches.filter((b) => "ARBN" in b.fields).map((b) => `${k.kind}:${b.name}`));
    expect(having.sort()).toEqual(["association:USA", "governmentBody:USA", "privateCompany:USA", "trust:Other"]);
    for (const b of kind("association").branches) {
      expect(Object.keys(b.fields)).toEqual(expect.arrayContaining(["ARBN", "registeredInAusOfficeAddress", "principalPlaceInAusAddress"]));
    }
  });

  it("keeps the seed's odd field names", () => {
    expect(Object.keys(branch("association", "USA")!.fields)).toContain("registeredOfficeRequired");
    expect(Object.keys(branch("partnership", "NZL")!.fields)).toContain("principalPlaceOfBusinessRequired");
    expect(Object.keys(branch("unRegulatedTrust", "AUS")!.fields)).toContain("unRegulatedTrustType");
  });

  it("partnership requires partners; sole trader has individuals; regulated trust has trustee (seed 2.8, 2.9)", () => {
    expect(kind("partnership").stakeholders!.roleSet.roles.map((r) => [r.name, r.required])).toEqual([["partners", true]]);
    expect(kind("soleTrader").stakeholders!.roleSet.roles.map((r) => r.name)).toEqual(["individuals"]);
    expect(kind("regulatedTrust").stakeholders!.roleSet.roles.map((r) => r.name)).toEqual(["trustee"]);
  });
});

describe("tables and rules", () => {
  it("has the 50 US state codes, without DC", () => {
    expect(model.countries.usStates.values).toHaveLength(50);
    expect(model.countries.usStates.values).not.toContain("DC");
  });

  it("has the full ISO 3166-1 alpha-3 list", () => {
    expect(model.countries.iso3).toHaveLength(249);
    expect(model.countries.iso3.map((c) => c.code)).toEqual(expect.arrayContaining(["AUS", "NZL", "USA", "DEU", "ZWE", "ABW"]));
  });

  it("reads the limits the seed gives (seed 8)", () => {
    expect(model.webhookToleranceMs).toBe(300_000);
    expect(new RegExp(model.rules.nzbn!.pattern!, "u").test("123456")).toBe(true);
    expect(new RegExp(model.rules.nzbn!.pattern!, "u").test("12345")).toBe(false);
    expect(new RegExp(model.rules.nzbn!.pattern!, "u").test("1234567890123")).toBe(true);
    expect(new RegExp(model.rules.nzbn!.pattern!, "u").test("12345678901234")).toBe(false);
    expect(model.rules.personName!.maxLength).toBe(79);
    expect(model.rules.v5Name!.maxLength).toBe(199);
    expect(model.rules.v5Address!.maxLength).toBe(200);
  });

  it("reproduces the section 7 table exactly", () => {
    expect(model.messages.observed.map((m) => [m.code, m.message, m.paths])).toEqual([
      ["invalid_format", "ABN must be exactly 11 digits.", [["identifiers", "abn"]]],
      ["invalid_type", "Invalid input: expected string, received undefined", [["website"], ["addresses", "registeredAddress"]]],
      ["custom", "All required document types must have at least one document with file upload", [["documents"]]],
      ["too_small", "Website is required.", [["website"]]],
      ["too_big", "Name must be less than 200 characters.", [["name"]]],
    ]);
    expect(model.errorTypes.map((e) => [e.type, e.httpStatus])).toEqual([
      ["validation_error", 422],
      ["too_many_attempts", 474],
      ["submission_conflict", 475],
    ]);
  });

  it("has the statuses, submission statuses and the attempt rules of seed 3", () => {
    expect(model.verificationStatuses.map((s) => s.value)).toEqual(["new", "pending", "verified", "rejected", "info", "locked", "error", "removed"]);
    expect(model.submissionStatuses.map((s) => s.value)).toEqual(["submitted", "incomplete", "locked"]);
    expect(model.olderVerificationStatuses).toEqual(["verified", "rejected", "pending", "info", "locked"]);
    expect(model.attempts.startsAt).toBe(1);
    expect(model.attempts.observedDefaultCap).toBe(5);
  });

  it("keeps every 'not shown' of the seed as an unknown", () => {
    const texts = model.unknowns.map((u) => u.text).join("\n");
    for (const fragment of [
      "Path and response of this request: not shown",
      "Rate limits: not shown",
      "Retry policy and delivery timeout: not shown",
      "Structure of watchlist hit `results`: not shown",
      "Errors for failed authentication and their HTTP statuses: not shown",
      "Deprecation schedule and compatibility guarantees: not shown",
      "Transitions of submissionStatus from `incomplete`: not shown",
      "How credentials are issued and rotated",
      "`/v5/forms`",
      "Required or optional status of stakeholder fields: not shown",
      "List of street type abbreviations: not shown",
      "Maximum document and request size: not shown",
      "Maximum number or length of tags: not shown",
      "Identifier schemes and required documents for other types and countries: not shown",
    ])
      expect(texts).toContain(fragment);
    expect(model.unknowns.every((u) => u.source !== "")).toBe(true);
  });

  it("models the follow-up request with no path (seed 4.4)", () => {
    const e = model.endpoints.find((x) => x.operationId === "submitRequestedActions")!;
    expect(e.path).toBeNull();
    expect(e.request).toBe("v4.RequestedActionsRequest");
  });
});
