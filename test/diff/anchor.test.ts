// verispec diff beside an OpenAPI-level diff: Optic's breaking-changes ruleset runs on the same pair of
// generated OpenAPI documents (openapi.json of each side), verispec on the two models. Each row is one
// change; both columns are pinned, so the README's comparison table is what this test measures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sideFromDir, type Side } from "../../generator/diff/sides.js";
import { openapiOf, opticFindings, verispecFindings } from "./anchor.js";
import { defaultCap, del, mapList, REAL_SPEC, removeFixtures, reword, set, specWith, type Edit } from "./fixture.js";

interface Row {
  readonly given: Edit[];
  /** verispec check id -> count. */
  readonly verispec: Record<string, number>;
  /** Optic rule name -> count of failing results. */
  readonly optic: Record<string, number>;
}

const ROWS: [string, Row][] = [
  [
    "new required request field",
    {
      given: [set("v5.yaml", ["shapes", "v5.VerificationCreateRequest", "properties", "purpose"], { required: true, type: "string" })],
      verispec: { "request-property-required-added": 1 },
      optic: { "prevent changing request property to required": 1 },
    },
  ],
  [
    "narrowed country list (trust: SWE removed)",
    {
      given: [
        reword("countries.yaml", "The 15 other countries", "The 14 other countries"),
        mapList("countries.yaml", ["groups", "trustCountries", "countries"], (v) => v.filter((c) => c !== "SWE")),
      ],
      verispec: { "request-country-removed": 1 },
      optic: { "prevent expanded in request union types": 1 },
    },
  ],
  [
    "narrowed request enum (document source)",
    {
      given: [mapList("v5.yaml", ["shapes", "v5.Document", "properties", "source", "enum"], () => ["base64"])],
      verispec: { "request-enum-value-removed": 1 },
      optic: { "request and response property enums": 1 },
    },
  ],
  [
    "request property type changed",
    {
      given: [set("v5.yaml", ["shapes", "v5.VerificationCreateRequest", "properties", "industry", "type"], "number")],
      verispec: { "request-type-narrowed": 1, "request-constraint-relaxed": 1 },
      optic: { "prevent request property type changes": 1 },
    },
  ],
  [
    "lower maxLength (person names)",
    {
      given: [
        set("rules.yaml", ["rules", "personName", "maxLength"], 49),
        reword("rules.yaml", "fewer than 80 characters", "fewer than 50 characters"),
        reword("limits.yaml", "fewer than 80 characters", "fewer than 50 characters"),
      ],
      verispec: { "request-length-tightened": 12, "limit-changed": 1 },
      optic: {},
    },
  ],
  [
    "response property now optional (validation issue code)",
    {
      given: [
        del("v5.yaml", ["shapes", "v5.ValidationIssue", "properties", "code", "required"]),
        set("v5.yaml", ["shapes", "v5.ValidationIssue", "presence", "unknown"], "Whether every issue carries `code`: not shown."),
      ],
      verispec: { "response-property-became-optional": 1 },
      optic: { "prevent making response property optional": 5 },
    },
  ],
  [
    "widened response enum (validation codes)",
    {
      given: [mapList("errors.yaml", ["validationMessages", "codes"], (v) => [...v, "not_unique"])],
      verispec: { "response-enum-value-added": 1 },
      optic: { "request and response property enums": 5 },
    },
  ],
  [
    "webhook field removed",
    { given: [del("webhooks.yaml", ["shapes", "v5.WebhookPayload", "properties", "idvRisk"])], verispec: { "response-property-removed": 1 }, optic: {} },
  ],
  [
    "widened webhook enum (screening status)",
    {
      given: [mapList("webhooks.yaml", ["shapes", "v5.Screening", "properties", "watchlist", "properties", "status", "enum"], (v) => [...v, "pending"])],
      verispec: { "response-enum-value-added": 1 },
      optic: {},
    },
  ],
  [
    "operation removed",
    {
      given: [del("endpoints.yaml", ["endpoints", "getVerification"])],
      verispec: { "operation-removed": 1 },
      optic: { "prevent operation removal": 1, "prevent removing response property": 46, "prevent response status code removal": 2 },
    },
  ],
  [
    "error HTTP status changed (474 -> 429)",
    {
      given: [set("errors.yaml", ["errorTypes", "too_many_attempts", "httpStatus"], 429)],
      verispec: { "error-status-changed": 1 },
      optic: { "prevent removing response property": 18, "prevent response status code removal": 1 },
    },
  ],
  ["transition removed", { given: [del("statuses.yaml", ["transitions", 6])], verispec: { "transition-removed": 1 }, optic: {} }],
  [
    "signature prefix changed",
    {
      given: [set("webhooks.yaml", ["signatures", "2", "headers", "X-Svc-Signature", "prefix"], "v2=")],
      verispec: { "signature-header-changed": 1 },
      optic: {},
    },
  ],
  [
    "validation message changed",
    {
      given: [set("errors.yaml", ["validationMessages", "observed", "nameTooLong", "message"], "Name is too long.")],
      verispec: { "validation-message-changed": 2 },
      optic: {},
    },
  ],
  [
    "stakeholder role now required",
    {
      given: [set("stakeholders.yaml", ["roleSets", "association", "roles", "publicOfficer", "required"], true)],
      verispec: { "role-became-required": 1 },
      optic: {},
    },
  ],
  ["default attempt cap changed", { given: defaultCap(3), verispec: { "attempt-default-cap-changed": 1, "limit-changed": 1 }, optic: {} }],
];

let base: Side;
let baseDoc: Record<string, unknown>;
beforeAll(() => {
  base = sideFromDir(REAL_SPEC, "base");
  baseDoc = openapiOf(base);
});
afterAll(removeFixtures);

describe("verispec diff beside Optic's breaking-changes ruleset (same pair of documents)", () => {
  it("the real spec against itself: neither reports anything", async () => {
    expect(verispecFindings(base, sideFromDir(REAL_SPEC, "head"))).toEqual({});
    expect(await opticFindings(baseDoc, openapiOf(sideFromDir(REAL_SPEC, "head")))).toEqual({});
  });
  it.each(ROWS)("%s", async (_name, row) => {
    const head = sideFromDir(specWith(row.given), "head");
    expect(verispecFindings(base, head)).toEqual(row.verispec);
    expect(await opticFindings(baseDoc, openapiOf(head))).toEqual(row.optic);
  });
});
