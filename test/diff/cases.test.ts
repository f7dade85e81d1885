// Given/want: each case edits a copy of the real spec (given) and names the findings it must produce
// (want). The set of check ids found must be exactly the wanted set (the version check aside, which has
// its own tests), and each wanted finding must match on every field it names.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSides } from "../../generator/diff/compare-model.js";
import type { Finding } from "../../generator/diff/finding.js";
import { sideFromDir, type Side } from "../../generator/diff/sides.js";
import type { Model } from "../../generator/model/types.js";
import { del, mapList, REAL_SPEC, removeFixtures, reword, set, specWith, type Edit } from "./fixture.js";

type Want = Partial<Omit<Finding, "base" | "head">> & { id: Finding["id"]; message?: string; baseFile?: string; headFile?: string };
const V5 = ["shapes", "v5.VerificationCreateRequest", "properties"];
const WH = ["shapes", "v5.WebhookPayload", "properties"];
const TRANSITIONS = ["transitions"];

/** A requested action of another kind: a variant of v4.RequestedAction, named by its `type` (VS444). */
const requestedSelfie = set("webhooks.yaml", ["shapes", "v4.RequestedSelfie"], {
  source: "6.3",
  type: "object",
  presence: { source: "6.3" },
  properties: { type: { required: true, type: "string", const: "selfie" } },
});

const CASES: [string, { given: Edit[]; model?: (m: Model) => Model; want: Want[] }][] = [
  // Request senders.
  [
    "a new required field in a request",
    {
      given: [set("v5.yaml", [...V5, "purpose"], { required: true, type: "string" })],
      want: [
        {
          id: "request-property-required-added",
          severity: "breaking",
          audience: "request",
          schema: "v5.VerificationCreateRequest",
          path: "/properties/purpose",
          operation: "createVerification",
          message: "`purpose` added as required",
          headFile: "spec/v5.yaml",
        },
      ],
    },
  ],
  [
    "a new optional field in a request",
    {
      given: [set("v5.yaml", [...V5, "purpose"], { type: "string" })],
      want: [{ id: "request-property-optional-added", severity: "info", path: "/properties/purpose" }],
    },
  ],
  [
    "an optional request field becomes required",
    {
      given: [set("v5.yaml", [...V5, "industry", "required"], true)],
      want: [{ id: "request-property-became-required", severity: "breaking", path: "/properties/industry" }],
    },
  ],
  [
    "a required request field becomes optional",
    {
      given: [del("v5.yaml", ["shapes", "v5.Document", "properties", "kind", "required"])],
      want: [{ id: "request-property-became-optional", severity: "info", schema: "v5.Document", path: "/properties/kind" }],
    },
  ],
  [
    "a request field removed",
    {
      given: [del("v5.yaml", [...V5, "industry"])],
      want: [{ id: "request-property-removed", severity: "warning", path: "/properties/industry", baseFile: "spec/v5.yaml" }],
    },
  ],
  [
    "a field removed from a closed request object",
    {
      given: [del("older.yaml", ["shapes", "v4.RequestedIndividualAnswer", "properties", "fields", "properties", "email"])],
      want: [
        {
          id: "request-property-rejected",
          severity: "breaking",
          schema: "v4.RequestedIndividualAnswer",
          path: "/properties/fields/properties/email",
          operation: "submitRequestedActions",
        },
      ],
    },
  ],
  [
    "a narrowed request enum",
    {
      given: [mapList("v5.yaml", ["shapes", "v5.Document", "properties", "source", "enum"], () => ["base64"])],
      want: [{ id: "request-enum-value-removed", severity: "breaking", schema: "v5.Document", path: "/properties/source", message: "`url`" }],
    },
  ],
  [
    "a widened request enum",
    {
      given: [mapList("v5.yaml", ["shapes", "v5.Document", "properties", "source", "enum"], (v) => [...v, "upload"])],
      want: [{ id: "request-enum-value-added", severity: "info", message: "`upload`" }],
    },
  ],
  [
    "a narrowed country list",
    {
      given: [
        reword("countries.yaml", "The 15 other countries", "The 14 other countries"),
        mapList("countries.yaml", ["groups", "trustCountries", "countries"], (v) => v.filter((c) => c !== "SWE")),
      ],
      want: [
        {
          id: "request-country-removed",
          severity: "breaking",
          schema: "v4.entities.Trust",
          path: "/properties/fields/oneOf/0/properties/country",
          operation: "verify",
          message: "countries of trustCountries (spec/countries.yaml:289) removed: `SWE`",
        },
      ],
    },
  ],
  [
    "a widened country list",
    {
      given: [
        reword("countries.yaml", "The 15 other countries", "The 16 other countries"),
        mapList("countries.yaml", ["groups", "trustCountries", "countries"], (v) => [...v, "USA"]),
      ],
      want: [{ id: "request-country-added", severity: "info", message: "`USA`" }],
    },
  ],
  [
    "a US state code removed",
    {
      given: [mapList("countries.yaml", ["usStates", "codes"], (v) => v.filter((c) => c !== "WY"))],
      want: [{ id: "request-enum-value-removed", message: "`WY`" }],
    },
  ],
  [
    "a lower maxLength",
    {
      given: [
        reword("rules.yaml", "fewer than 80 characters", "fewer than 50 characters"),
        reword("limits.yaml", "fewer than 80 characters", "fewer than 50 characters"),
        set("rules.yaml", ["rules", "personName", "maxLength"], 49),
      ],
      want: [
        { id: "limit-changed", message: "fewer than 50 characters" },
        { id: "request-length-tightened", severity: "breaking", message: "maxLength 79 -> 49: values of 50-79 characters are now refused" },
      ],
    },
  ],
  [
    "a higher maxLength",
    {
      given: [
        reword("rules.yaml", "fewer than 80 characters", "fewer than 100 characters"),
        reword("limits.yaml", "fewer than 80 characters", "fewer than 100 characters"),
        set("rules.yaml", ["rules", "personName", "maxLength"], 99),
      ],
      want: [
        { id: "limit-changed", message: "fewer than 100 characters" },
        { id: "request-constraint-relaxed", severity: "info", message: "maxLength 79 -> 99" },
      ],
    },
  ],
  [
    "a lower v5 name maxLength: what now fails, with the service's code",
    {
      given: [
        reword("rules.yaml", "Fewer than 200 characters", "Fewer than 100 characters"),
        reword("v5.yaml", "Fewer than 200 characters", "Fewer than 100 characters"),
        reword("errors.yaml", "less than 200 characters", "less than 100 characters"),
        reword("limits.yaml", "fewer than 200 characters", "fewer than 100 characters"),
        set("rules.yaml", ["rules", "v5Name", "maxLength"], 99),
      ],
      want: [
        { id: "limit-changed", message: "fewer than 100 characters" },
        { id: "validation-message-changed", message: "less than 100 characters" },
        {
          id: "request-length-tightened",
          severity: "breaking",
          message: 'maxLength 199 -> 99: values of 100-199 characters now get 422 too_big ("Name must be less than 100 characters.")',
        },
      ],
    },
  ],
  [
    "a higher minLength",
    {
      given: [set("rules.yaml", ["rules", "personName", "minLength"], 2)],
      want: [{ id: "request-length-tightened", message: "minLength 1 -> 2: values of 1 character are now refused" }],
    },
  ],
  // Patterns: breaking unless the new one provably accepts every value the old did; both shown.
  [
    "a tightened pattern (nzbn 6 to 13 digits -> 13)",
    {
      given: [
        reword("rules.yaml", "6 to 13 digits", "13 digits"),
        reword("limits.yaml", "6 to 13 digits", "13 digits"),
        reword("errors.yaml", "6 to 13 digits", "13 digits"),
        set("rules.yaml", ["rules", "nzbn", "pattern"], "^[0-9]{13}$"),
      ],
      want: [
        { id: "limit-changed" },
        { id: "validation-message-changed" },
        {
          id: "request-pattern-changed",
          severity: "breaking",
          schema: "v4.entities.Partnership",
          message: 'pattern changed, not provably accepting every value it accepted: "^[0-9]{6,13}$" -> "^[0-9]{13}$" (rule nzbn)',
        },
      ],
    },
  ],
  [
    "a pattern changed to one neither wider nor narrower",
    {
      given: [set("rules.yaml", ["rules", "acn", "pattern"], "^[0-9]{3} [0-9]{3} [0-9]{3}$")],
      want: [{ id: "request-pattern-changed", severity: "breaking", message: '"^[0-9]{9}$" -> "^[0-9]{3} [0-9]{3} [0-9]{3}$" (rule acn)' }],
    },
  ],
  [
    "a widened pattern (nzbn 6 to 13 digits -> 1 to 13)",
    {
      given: [
        reword("rules.yaml", "6 to 13 digits", "1 to 13 digits"),
        reword("limits.yaml", "6 to 13 digits", "1 to 13 digits"),
        reword("errors.yaml", "6 to 13 digits", "1 to 13 digits"),
        set("rules.yaml", ["rules", "nzbn", "pattern"], "^[0-9]{1,13}$"),
      ],
      want: [
        { id: "limit-changed" },
        { id: "validation-message-changed" },
        { id: "request-constraint-relaxed", severity: "info", message: 'pattern widened: "^[0-9]{6,13}$" -> "^[0-9]{1,13}$" (rule nzbn)' },
      ],
    },
  ],
  [
    "a pattern widened by an optional part (ZIP+4)",
    {
      given: [set("rules.yaml", ["rules", "usPostcode", "pattern"], "^[0-9]{5}(-[0-9]{4})?$")],
      want: [{ id: "request-constraint-relaxed", severity: "info", message: 'pattern widened: "^[0-9]{5}$" -> "^[0-9]{5}(-[0-9]{4})?$" (rule usPostcode)' }],
    },
  ],
  [
    "a request pattern's anchors dropped (wider)",
    {
      given: [set("rules.yaml", ["rules", "nzbn", "pattern"], "[0-9]{6,13}")],
      want: [{ id: "request-constraint-relaxed", severity: "info", message: "pattern widened" }],
    },
  ],
  [
    "a request pattern removed",
    {
      given: [del("rules.yaml", ["rules", "nzbn", "pattern"]), del("rules.yaml", ["rules", "nzbn", "messages"])],
      want: [
        { id: "request-constraint-relaxed", severity: "info", message: 'pattern removed: was "^[0-9]{6,13}$" (rule nzbn)' },
        { id: "validation-message-changed", message: "no longer reports" },
      ],
    },
  ],
  [
    "a pattern added to a request string",
    {
      given: [set("v5.yaml", [...V5, "userId"], { rule: "usPostcode" })],
      want: [{ id: "request-pattern-added", severity: "breaking", path: "/properties/userId" }],
    },
  ],
  [
    "a format added to a request string",
    {
      given: [set("v5.yaml", [...V5, "onBehalfUid", "format"], "uuid")],
      want: [{ id: "request-format-added", severity: "breaking", message: "format none -> uuid" }],
    },
  ],
  [
    "null no longer accepted in a request",
    {
      given: [set("entities/individual.yaml", ["branches", 0, "fields", "unitNumber", "nullable"], false)],
      want: [{ id: "request-type-narrowed", severity: "breaking", schema: "v4.entities.Individual", message: "no longer nullable" }],
    },
  ],
  [
    "a request object closed to unknown properties",
    {
      given: [set("v5.yaml", ["shapes", "v5.Document", "additionalProperties"], false)],
      want: [{ id: "request-additional-properties-closed", severity: "breaking", schema: "v5.Document" }],
    },
  ],
  [
    "a conditional request rule added",
    {
      given: [
        set("v5.yaml", ["shapes", "v5.Document", "when", 2], {
          field: "kind",
          equals: "trustDeed",
          source: "2.11",
          properties: { fileName: { required: true, type: "string" } },
        }),
      ],
      want: [{ id: "request-conditional-rule-added", severity: "warning", schema: "v5.Document" }],
    },
  ],
  [
    "an entity kind removed",
    {
      given: [{ file: "entities/soleTrader.yaml", remove: true }],
      want: [
        { id: "entity-kind-removed", severity: "breaking", schema: "v4.entities.SoleTrader", operation: "idForm", baseFile: "spec/entities/soleTrader.yaml" },
      ],
    },
  ],
  [
    "a country branch removed",
    {
      given: [del("entities/governmentBody.yaml", ["branches", 1])],
      want: [{ id: "entity-branch-removed", severity: "breaking", schema: "v4.entities.GovernmentBody", message: "NZL" }],
    },
  ],
  [
    "a stakeholder role removed",
    {
      given: [del("stakeholders.yaml", ["roleSets", "trust", "roles", "settlors"])],
      want: [{ id: "role-removed", severity: "breaking", message: "role `settlors` removed" }],
    },
  ],
  [
    "a stakeholder role added",
    {
      given: [set("stakeholders.yaml", ["roleSets", "trust", "roles", "protector"], { types: ["individual"] })],
      want: [{ id: "role-added", severity: "info", message: "`protector`" }],
    },
  ],
  [
    "a stakeholder role becomes required",
    {
      given: [set("stakeholders.yaml", ["roleSets", "association", "roles", "publicOfficer", "required"], true)],
      want: [{ id: "role-became-required", severity: "breaking", schema: "v4.entities.Association", message: "`publicOfficer` now required" }],
    },
  ],
  [
    "a role takes fewer stakeholder types",
    {
      given: [mapList("stakeholders.yaml", ["roleSets", "trust", "roles", "trustee", "types"], (v) => v.filter((t) => t !== "governmentBody"))],
      want: [{ id: "role-type-removed", severity: "breaking", message: "governmentBody" }],
    },
  ],
  [
    "stakeholders become required",
    {
      given: [set("entities/privateCompany.yaml", ["stakeholders", "required"], true)],
      want: [{ id: "stakeholders-became-required", severity: "breaking", schema: "v4.entities.PrivateCompany" }],
    },
  ],
  [
    "a v5 requirement added",
    {
      given: [set("v5.yaml", ["requirements", "trust", "addresses"], ["registeredAddress"])],
      want: [
        { id: "requirement-added", severity: "breaking", message: "type `trust` now requires address registeredAddress", operation: "createVerification" },
      ],
    },
  ],
  [
    "an operation removed",
    {
      given: [del("endpoints.yaml", ["endpoints", "getVerification"])],
      want: [{ id: "operation-removed", severity: "breaking", operation: "getVerification" }],
    },
  ],
  [
    "an operation's path changed",
    {
      given: [set("endpoints.yaml", ["endpoints", "createVerification", "path"], "/v5/verification")],
      want: [
        { id: "operation-path-changed", severity: "breaking", operation: "createVerification", message: "POST /v5/verifications -> POST /v5/verification" },
      ],
    },
  ],
  [
    "an operation's authentication changed",
    {
      given: [set("endpoints.yaml", ["endpoints", "getVerificationStatus", "auth"], "basic")],
      want: [{ id: "operation-auth-changed", severity: "breaking", operation: "getVerificationStatus", message: "body -> basic" }],
    },
  ],
  // Response and webhook readers.
  [
    "a webhook field removed",
    {
      given: [del("webhooks.yaml", [...WH, "idvRisk"])],
      want: [
        {
          id: "response-property-removed",
          severity: "breaking",
          audience: "response",
          schema: "v5.WebhookPayload",
          webhook: "v5",
          path: "/properties/idvRisk",
        },
      ],
    },
  ],
  [
    "an always-present webhook field becomes optional",
    {
      given: [del("webhooks.yaml", [...WH, "tags", "required"])],
      want: [{ id: "response-property-became-optional", severity: "breaking", path: "/properties/tags" }],
    },
  ],
  [
    "a webhook field added",
    {
      given: [set("webhooks.yaml", [...WH, "deliveryId"], { type: "string" })],
      want: [{ id: "response-property-added", severity: "info", path: "/properties/deliveryId" }],
    },
  ],
  [
    "a webhook field may now be null",
    {
      given: [set("webhooks.yaml", [...WH, "name", "nullable"], true)],
      want: [{ id: "response-type-widened", severity: "breaking", message: "may now be null" }],
    },
  ],
  [
    "a webhook field's type widened",
    {
      given: [set("webhooks.yaml", [...WH, "parentTrace", "type"], ["string", "number"])],
      want: [{ id: "response-type-widened", message: "may now be number" }],
    },
  ],
  [
    "a widened response enum",
    {
      given: [mapList("webhooks.yaml", ["shapes", "v5.Screening", "properties", "watchlist", "properties", "status", "enum"], (v) => [...v, "pending"])],
      want: [
        {
          id: "response-enum-value-added",
          severity: "breaking",
          schema: "v5.Screening",
          path: "/properties/watchlist/properties/status",
          message: "`pending`",
        },
      ],
    },
  ],
  [
    "a narrowed response enum",
    {
      given: [mapList("webhooks.yaml", ["shapes", "v5.Screening", "properties", "watchlist", "properties", "status", "enum"], () => ["clear"])],
      want: [{ id: "response-enum-value-removed", severity: "info" }],
    },
  ],
  [
    "a response minimum changed",
    {
      given: [set("webhooks.yaml", [...WH, "attempt", "minimum"], 0)],
      want: [{ id: "response-constraint-relaxed", severity: "warning", message: "minimum 1 -> 0" }],
    },
  ],
  [
    "a response string gets a format",
    {
      given: [set("webhooks.yaml", [...WH, "trace", "format"], "uuid")],
      want: [{ id: "response-constraint-tightened", severity: "info", message: "format none -> uuid" }],
    },
  ],
  [
    "a response pattern narrowed (lower-case UUIDs only)",
    {
      given: [
        set("rules.yaml", ["rules", "uuidLower"], {
          source: "6.3",
          description: "UUID, lower case.",
          type: "string",
          format: "uuid",
          pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
          examples: ["7f0c2a9e-3b8d-4c55-9d1e-2f4b6a8c0d12"],
        }),
        set("webhooks.yaml", ["shapes", "v4.WebhookPayload", "properties", "trace", "rule"], "uuidLower"),
      ],
      want: [
        {
          id: "response-constraint-tightened",
          severity: "info",
          webhook: "older",
          path: "/properties/trace",
          message:
            'pattern narrowed: "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$" -> "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" (rule uuid -> uuidLower)',
        },
      ],
    },
  ],
  [
    "a response pattern changed to one not provably narrower",
    {
      given: [
        set("rules.yaml", ["rules", "anyId"], {
          source: "6.3",
          description: "An id.",
          type: "string",
          pattern: "^[0-9A-Za-z-]{36}$",
          examples: ["7f0c2a9e-3b8d-4c55-9d1e-2f4b6a8c0d12"],
        }),
        set("webhooks.yaml", ["shapes", "v4.WebhookPayload", "properties", "trace", "rule"], "anyId"),
      ],
      want: [
        {
          id: "response-constraint-relaxed",
          severity: "warning",
          webhook: "older",
          path: "/properties/trace",
          message:
            'pattern changed, may carry values it could not: "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$" -> "^[0-9A-Za-z-]{36}$" (rule uuid -> anyId)',
        },
      ],
    },
  ],
  [
    "a format changed to another: breaking for senders, a warning for readers",
    {
      given: [set("rules.yaml", ["rules", "url", "format"], "uuid")],
      want: [
        { id: "request-format-added", severity: "breaking", schema: "v5.Document", message: "format uri -> uuid" },
        { id: "response-constraint-relaxed", severity: "warning", schema: "v4.IdFormResponse", message: "format uri -> uuid" },
      ],
    },
  ],
  [
    "a format removed: relaxed for senders, a warning for readers",
    {
      given: [del("rules.yaml", ["rules", "url", "format"])],
      want: [
        { id: "request-constraint-relaxed", severity: "info", schema: "v5.Document", message: "format uri removed" },
        { id: "response-constraint-relaxed", severity: "warning", schema: "v4.IdFormResponse", message: "format uri removed" },
      ],
    },
  ],
  [
    "a deprecated webhook field removed",
    {
      given: [del("webhooks.yaml", ["shapes", "v4.WebhookPayload", "properties", "verificationUuid"])],
      want: [{ id: "deprecated-property-removed", severity: "warning", webhook: "older" }],
    },
  ],
  [
    "a webhook field deprecated",
    {
      given: [set("webhooks.yaml", [...WH, "idvRisk", "deprecated"], true)],
      want: [{ id: "deprecation-added", severity: "info", path: "/properties/idvRisk" }],
    },
  ],
  [
    "a webhook payload removed (the checks require both payloads today: the model is edited)",
    {
      given: [],
      model: (m) => ({ ...m, webhookPayloads: m.webhookPayloads.filter((w) => w.name !== "older") }),
      want: [{ id: "webhook-removed", severity: "breaking", webhook: "older" }],
    },
  ],
  [
    "a webhook signed with another version",
    {
      given: [set("webhooks.yaml", ["payloads", "v5", "signatureVersion"], "1")],
      want: [{ id: "webhook-signature-version-changed", severity: "breaking", webhook: "v5" }],
    },
  ],
  // Behaviour.
  [
    "a transition removed (one the sandbox does not need)",
    {
      given: [del("statuses.yaml", [...TRANSITIONS, 6])],
      want: [
        {
          id: "transition-removed",
          severity: "breaking",
          audience: "behaviour",
          message: "any --[individual in an entity marked as removed]-->",
          baseFile: "spec/statuses.yaml",
        },
      ],
    },
  ],
  [
    "a transition added",
    {
      given: [set("statuses.yaml", [...TRANSITIONS, 8], { source: "3", from: "info", trigger: "caller withdraws", to: ["rejected"] })],
      want: [{ id: "transition-added", severity: "warning", message: "info --[caller withdraws]--> rejected added", headFile: "spec/statuses.yaml" }],
    },
  ],
  [
    "a transition loses a target",
    {
      given: [mapList("statuses.yaml", [...TRANSITIONS, 1, "to"], () => ["verified", "rejected"])],
      want: [{ id: "transition-target-removed", severity: "breaking", message: "no longer info" }],
    },
  ],
  [
    "a transition gains a target",
    {
      given: [mapList("statuses.yaml", [...TRANSITIONS, 1, "to"], (v) => [...v, "error"])],
      want: [{ id: "transition-target-added", severity: "warning", message: "now also error" }],
    },
  ],
  [
    "a transition's condition changed",
    {
      given: [set("statuses.yaml", [...TRANSITIONS, 0, "condition"], "always, once per submission")],
      want: [{ id: "transition-changed", severity: "warning", message: "condition" }],
    },
  ],
  [
    "a status's outcome changed",
    {
      given: [set("statuses.yaml", ["verificationStatuses", "error", "outcome"], "final_rejection")],
      want: [{ id: "status-outcome-changed", message: "`error`: outcome fetch_details -> final_rejection" }],
    },
  ],
  [
    "the default attempt cap changed",
    {
      given: [
        set("limits.yaml", ["limits", "verificationAttempts", "observedDefault"], 3),
        reword("limits.yaml", "(5 observed as default", "(3 observed as default"),
        reword("statuses.yaml", "default cap observed is 5", "default cap observed is 3"),
        set("statuses.yaml", ["attempts", "observedDefaultCap"], 3),
      ],
      want: [
        { id: "limit-changed", message: "(observedDefault 5 -> 3)" },
        { id: "attempt-default-cap-changed", severity: "warning", message: "5 -> 3" },
      ],
    },
  ],
  [
    "the attempt counter's start changed",
    {
      given: [reword("statuses.yaml", "starts at 1.", "starts at 0."), set("statuses.yaml", ["attempts", "startsAt"], 0)],
      want: [{ id: "attempt-rule-changed", severity: "breaking", message: "startsAt 1 -> 0" }],
    },
  ],
  [
    "the form lifetime changed",
    {
      given: [
        set("limits.yaml", ["limits", "formLifetime", "days"], 30),
        set("limits.yaml", ["limits", "formLifetime", "value"], "30 days; reduced prefilled data after 30 minutes"),
      ],
      want: [{ id: "limit-changed", severity: "warning", message: "days 31 -> 30" }],
    },
  ],
  [
    "the webhook tolerance changed",
    {
      given: [
        reword("limits.yaml", "plus or minus 5 minutes", "plus or minus 10 minutes"),
        reword("webhooks.yaml", "more than 5 minutes", "more than 10 minutes"),
        set("limits.yaml", ["limits", "webhookTimestampTolerance", "ms"], 600000),
      ],
      want: [
        { id: "signature-receiver-rules-changed", message: "more than 10 minutes" },
        { id: "webhook-tolerance-changed", message: "±300 s -> ±600 s" },
        { id: "limit-changed", message: "ms 300000 -> 600000" },
      ],
    },
  ],
  [
    "a signature prefix changed",
    {
      given: [set("webhooks.yaml", ["signatures", "2", "headers", "X-Svc-Signature", "prefix"], "v2=")],
      want: [{ id: "signature-header-changed", severity: "breaking", message: 'prefix "sha256=" -> "v2="' }],
    },
  ],
  [
    "a signature header renamed",
    {
      given: [
        del("webhooks.yaml", ["signatures", "2", "headers", "X-Svc-Signature"]),
        set("webhooks.yaml", ["signatures", "2", "headers", "X-Svc-Sig"], { prefix: "sha256=", digest: "hmac-sha256" }),
      ],
      want: [
        { id: "signature-header-changed", message: "header X-Svc-Signature removed" },
        { id: "signature-header-changed", message: "header X-Svc-Sig added" },
      ],
    },
  ],
  [
    "a signature digest changed",
    {
      // A spec changes the digest of scheme 2 or 1 only with the runtime (VS441 refuses it): the head's model is edited.
      given: [],
      model: (m) => ({
        ...m,
        signatures: m.signatures.map((s) =>
          s.version !== "1" ? s : { ...s, headers: s.headers.map((h) => (h.name === "X-Svc-Signature-SHA" ? { ...h, digest: "hmac-sha256" as const } : h)) },
        ),
      }),
      want: [{ id: "signature-digest-changed", severity: "breaking", message: "sha3-256 -> hmac-sha256" }],
    },
  ],
  [
    "what a receiver must check changed",
    {
      given: [mapList("webhooks.yaml", ["signatures", "2", "receiverMust"], (v) => v.slice(0, 3))],
      want: [{ id: "signature-receiver-rules-changed", severity: "warning" }],
    },
  ],
  [
    "an error's HTTP status changed",
    {
      given: [set("errors.yaml", ["errorTypes", "too_many_attempts", "httpStatus"], 429)],
      want: [{ id: "error-status-changed", severity: "breaking", message: "HTTP 474 -> 429" }],
    },
  ],
  [
    "an error's message changed",
    {
      given: [set("errors.yaml", ["errorTypes", "validation_error", "message"], "Validation failed")],
      want: [{ id: "error-message-changed", severity: "warning" }],
    },
  ],
  [
    "an observed validation message changed",
    {
      given: [set("errors.yaml", ["validationMessages", "observed", "nameTooLong", "message"], "Name is too long.")],
      want: [{ id: "validation-message-changed", severity: "warning", message: '"Name must be less than 200 characters." -> "Name is too long."' }],
    },
  ],
  [
    "a validation code changed",
    {
      given: [set("errors.yaml", ["validationMessages", "observed", "websiteRequired", "code"], "invalid_type")],
      want: [{ id: "validation-code-changed", severity: "breaking", message: "too_small -> invalid_type" }],
    },
  ],
  [
    "a deprecation listed",
    {
      given: [set("versions.yaml", ["deprecations", 3], { source: "9", what: "webhook field `userId`" })],
      want: [{ id: "deprecation-added", message: "webhook field `userId`" }],
    },
  ],
  [
    "which submission status locks resubmission changed",
    {
      given: [
        reword("statuses.yaml", "effects: { set: { submissionStatus: locked } }", "effects: { set: { submissionStatus: incomplete } }"),
        del("statuses.yaml", ["submissionStatuses", "locked", "locksResubmission"]),
        set("statuses.yaml", ["submissionStatuses", "incomplete", "locksResubmission"], true),
      ],
      want: [{ id: "transition-changed" }, { id: "submission-status-lock-changed", severity: "breaking", message: "locked -> incomplete" }],
    },
  ],
  [
    "an operation may return another error",
    {
      given: [set("endpoints.yaml", ["endpoints", "getVerification", "errors"], ["validation_error"])],
      want: [{ id: "operation-error-added", severity: "warning", operation: "getVerification" }],
    },
  ],
  // More kinds, one check id each.
  [
    "a request const changed",
    {
      given: [set("older.yaml", ["entityRequests", "v4.IdFormRequest", "fields", "serviceLink_dataAccessType", "const"], "form")],
      want: [{ id: "request-const-changed", severity: "breaking", schema: "v4.IdFormRequest", message: 'fixed value "idForm" -> "form"' }],
    },
  ],
  [
    "a request field becomes a number with a minimum",
    {
      given: [set("v5.yaml", [...V5, "industry"], { type: "integer", minimum: 1 })],
      want: [
        { id: "request-minimum-raised", severity: "breaking", message: "minimum none -> 1" },
        { id: "request-type-narrowed", message: "no longer accepts string" },
        { id: "request-constraint-relaxed", message: "may now be integer" },
      ],
    },
  ],
  [
    "a request union branch replaced",
    {
      given: [mapList("v5.yaml", ["shapes", "v5.Stakeholder", "oneOf"], (v) => [v[0], { ref: "v5.StakeholderEntity" }])],
      want: [
        { id: "request-union-branch-removed", severity: "breaking", schema: "v5.Stakeholder", message: "branch v5.StakeholderWithEntity removed" },
        { id: "request-union-branch-added", severity: "info", message: "branch v5.StakeholderEntity added" },
      ],
    },
  ],
  [
    "a response union branch added",
    {
      given: [requestedSelfie, mapList("webhooks.yaml", ["shapes", "v4.RequestedAction", "oneOf"], (v) => [...v, { ref: "v4.RequestedSelfie" }])],
      want: [
        { id: "response-union-branch-added", severity: "breaking", schema: "v4.RequestedAction", message: "branch v4.RequestedSelfie added" },
        { id: "schema-added", schema: "v4.RequestedSelfie" },
      ],
    },
  ],
  [
    "a response union branch replaced",
    {
      given: [requestedSelfie, mapList("webhooks.yaml", ["shapes", "v4.RequestedAction", "oneOf"], (v) => [v[0], { ref: "v4.RequestedSelfie" }])],
      want: [
        { id: "response-union-branch-removed", severity: "info", message: "branch v4.RequestedDocument removed" },
        { id: "response-union-branch-added", severity: "breaking" },
        { id: "schema-added", schema: "v4.RequestedSelfie" },
      ],
    },
  ],
  [
    "a response const changed",
    { given: [set("webhooks.yaml", [...WH, "version", "const"], "v6")], want: [{ id: "response-const-changed", severity: "breaking", webhook: "v5" }] },
  ],
  [
    "a response field now always present",
    { given: [set("webhooks.yaml", [...WH, "trace", "required"], true)], want: [{ id: "response-property-became-required", severity: "info" }] },
  ],
  [
    "an entity kind added",
    {
      given: [
        {
          file: "entities/cooperative.yaml",
          create:
            'kind: cooperative\nsource: "1"\ninterface: idform\ntitle: Cooperative\ndescription: "A cooperative."\nbranches:\n  - name: Any\n    source: "1"\n    countries: iso3\n    include: [formsCommon]\n    fields: {}\n',
        },
      ],
      want: [{ id: "entity-kind-added", severity: "info", schema: "v4.entities.Cooperative", headFile: "spec/entities/cooperative.yaml" }],
    },
  ],
  [
    "an entity branch added",
    {
      given: [
        set("entities/partnership.yaml", ["branches", 1], {
          name: "AUS",
          source: "2.8",
          countries: "australia",
          fields: { name: { required: true, rule: "nonEmpty" } },
        }),
      ],
      want: [{ id: "entity-branch-added", severity: "info", message: "branch AUS (AUS) added" }],
    },
  ],
  [
    "stakeholders become optional",
    { given: [set("entities/trust.yaml", ["stakeholders", "required"], false)], want: [{ id: "stakeholders-became-optional", severity: "info" }] },
  ],
  [
    "a required role becomes optional",
    {
      given: [set("stakeholders.yaml", ["roleSets", "trust", "roles", "trustee", "required"], false)],
      want: [{ id: "role-became-optional", severity: "info" }],
    },
  ],
  [
    "a role takes more stakeholder types",
    {
      given: [mapList("stakeholders.yaml", ["roleSets", "trust", "roles", "settlors", "types"], (v) => [...v, "privateCompany"])],
      want: [{ id: "role-type-added", severity: "info", message: "now takes privateCompany" }],
    },
  ],
  [
    "a v5 requirement removed",
    { given: [del("v5.yaml", ["requirements", "trust"])], want: [{ id: "requirement-removed", severity: "info", message: "document trustDeed" }] },
  ],
  [
    "an operation added",
    {
      given: [
        set("endpoints.yaml", ["endpoints", "getVerificationAgain"], {
          source: "4.6",
          method: "GET",
          path: "/v5/verifications/{trace}/again",
          auth: "basic",
          client: "getVerificationAgain",
          summary: "Again",
          description: "Again.",
          pathParams: { trace: { type: "string", required: true } },
          responses: { "200": "v5.VerificationGetResponse" },
          errorBody: "v5.ErrorEnvelope",
        }),
      ],
      want: [{ id: "operation-added", severity: "info", operation: "getVerificationAgain" }],
    },
  ],
  [
    "an operation's response changed",
    {
      given: [set("endpoints.yaml", ["endpoints", "createVerification", "responses", "200"], "v5.VerificationGetResponse")],
      want: [{ id: "operation-response-changed", severity: "breaking", message: "response 200: v5.VerificationCreateResponse -> v5.VerificationGetResponse" }],
    },
  ],
  [
    "an operation's request body changed",
    {
      given: [set("endpoints.yaml", ["endpoints", "verify", "request"], "v4.IdFormRequest")],
      want: [{ id: "operation-request-changed", severity: "warning" }],
    },
  ],
  [
    "the v5 path prefix changed",
    {
      given: [set("versions.yaml", ["currentInterface", "pathPrefix"], "/v6")],
      want: [{ id: "interface-version-changed", severity: "breaking", message: 'currentInterface.pathPrefix "/v5" -> "/v6"' }],
    },
  ],
  ["an environment removed", { given: [del("endpoints.yaml", ["servers", 1])], want: [{ id: "server-removed", severity: "breaking", message: "production" }] }],
  [
    "a limit removed",
    {
      // Every limit an endpoint lists is one the sandbox copies (VS433 refuses a spec without it): the head's model is edited.
      given: [],
      model: (m) => ({
        ...m,
        limits: Object.fromEntries(Object.entries(m.limits).filter(([name]) => name !== "formOpens")),
        endpoints: m.endpoints.map((e) => ({ ...e, limits: e.limits.filter((x) => x !== "formOpens") })),
      }),
      want: [
        { id: "limit-removed", severity: "warning" },
        { id: "limit-changed", operation: "idForm" },
      ],
    },
  ],
  [
    "a signature version added",
    {
      given: [
        set("webhooks.yaml", ["signatures", "3"], {
          source: "6.4",
          description: "HMAC-SHA256, another header.",
          headers: { "X-Svc-Signature-v3": { prefix: "v3=", digest: "hmac-sha256" }, "X-Svc-Signature-version": { value: "3" } },
          receiverMust: [],
        }),
      ],
      want: [{ id: "signature-scheme-added", severity: "info" }],
    },
  ],
  [
    "an error type added",
    {
      given: [set("errors.yaml", ["errorTypes", "rate_limited"], { source: "7", httpStatus: 429, condition: "Too many requests." })],
      want: [
        { id: "error-type-added", severity: "warning", message: "`rate_limited` (HTTP 429) added" },
        { id: "response-enum-value-added", message: "`rate_limited`" },
      ],
    },
  ],
  ["a deprecation withdrawn", { given: [del("versions.yaml", ["deprecations", 2])], want: [{ id: "deprecation-removed", severity: "info" }] }],
  [
    "a schema added",
    {
      given: [set("v5.yaml", ["shapes", "v5.Note"], { source: "2.11", type: "object", properties: { text: { type: "string" } } })],
      want: [{ id: "schema-added", severity: "info", schema: "v5.Note" }],
    },
  ],
];

let base: Side;
beforeAll(() => {
  base = sideFromDir(REAL_SPEC, "base");
});
afterAll(removeFixtures);

function matches(f: Finding, w: Want): boolean {
  const { message, baseFile, headFile, ...rest } = w;
  if (message !== undefined && !f.message.includes(message)) return false;
  if (baseFile !== undefined && f.base?.file !== baseFile) return false;
  if (headFile !== undefined && f.head?.file !== headFile) return false;
  return Object.entries(rest).every(([k, v]) => (f as unknown as Record<string, unknown>)[k] === v);
}

describe("verispec diff: given a changed spec, want the findings", () => {
  it("covers at least 40 kinds of change with at least 40 distinct check ids overall in the catalog", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.flatMap(([, c]) => c.want.map((w) => w.id))).size).toBeGreaterThanOrEqual(40);
  });
  it.each(CASES)("%s", (_name, { given, model, want }) => {
    const edited = sideFromDir(specWith(given), "head");
    const head = model ? { ...edited, model: model(edited.model) } : edited;
    const found = compareSides(base, head);
    expect([...new Set(found.map((f) => f.id))].sort(), found.map((f) => `${f.id} ${f.message}`).join("\n")).toEqual(
      [...new Set(want.map((w) => w.id))].sort(),
    );
    for (const w of want) {
      const hit = found.find((f) => matches(f, w));
      expect(
        hit,
        `no finding matches ${JSON.stringify(w)} in:\n${found.map((f) => `${f.id} ${f.schema ?? ""} ${f.path ?? ""} ${f.message}`).join("\n")}`,
      ).toBeDefined();
      expect(hit!.base ?? hit!.head, "a finding has a spec position").toBeDefined();
    }
  });
});
