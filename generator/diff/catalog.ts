// The check catalog of `verispec diff`: every kind of change it reports, one entry each, with its stable
// id, default severity and the audience it concerns. Ids never change meaning; new kinds get new ids.
// The README and `--format json` consumers rely on this list (it is printed by `verispec diff --checks`).

export type Severity = "breaking" | "warning" | "info";
/** request: who sends requests (client, validators); response: who reads responses and webhooks; behaviour: what the service does. */
export type Audience = "request" | "response" | "behaviour";

export const SEVERITIES: readonly Severity[] = ["breaking", "warning", "info"];
export const AUDIENCES: readonly Audience[] = ["request", "response", "behaviour"];
export const AUDIENCE_TITLES: Readonly<Record<Audience, string>> = {
  request: "Request senders (client, validators)",
  response: "Response and webhook readers (types, receivers)",
  behaviour: "Behaviour (statuses, limits, signatures, errors)",
};

export interface Check {
  readonly severity: Severity;
  readonly audience: Audience;
  readonly summary: string;
}

const check = (severity: Severity, audience: Audience, summary: string): Check => ({ severity, audience, summary });

export const CHECKS = {
  // Request senders: what a request must look like.
  "request-property-required-added": check("breaking", "request", "a new required property in a request body"),
  "request-property-became-required": check("breaking", "request", "an optional request property became required"),
  "request-property-removed": check("warning", "request", "a property a sender may still send is gone from a request body"),
  "request-property-rejected": check(
    "breaking",
    "request",
    "a property is gone from a request object that rejects unknown properties: senders that still send it fail",
  ),
  "request-enum-value-removed": check("breaking", "request", "a request enum or value list lost a value"),
  "request-country-removed": check("breaking", "request", "a request country list lost a country"),
  "request-const-changed": check("breaking", "request", "the fixed value of a request property changed"),
  "request-type-narrowed": check("breaking", "request", "a request property accepts fewer JSON types (or no longer null)"),
  "request-length-tightened": check("breaking", "request", "a request string's minLength rose or maxLength fell"),
  "request-minimum-raised": check("breaking", "request", "a request number's minimum rose"),
  "request-pattern-added": check("breaking", "request", "a request string gained a pattern"),
  "request-pattern-changed": check(
    "breaking",
    "request",
    "a request string's pattern changed and the new one does not provably accept every value the old one did",
  ),
  "request-format-added": check("breaking", "request", "a request string gained a format or its format changed"),
  "request-conditional-rule-added": check("warning", "request", "a request object gained rules that apply when a field has given values"),
  "request-additional-properties-closed": check("breaking", "request", "a request object no longer accepts unknown properties"),
  "request-union-branch-removed": check("breaking", "request", "a request union lost a branch"),
  "request-property-optional-added": check("info", "request", "a new optional property in a request body"),
  "request-property-became-optional": check("info", "request", "a required request property became optional"),
  "request-enum-value-added": check("info", "request", "a request enum or value list gained a value"),
  "request-country-added": check("info", "request", "a request country list gained a country"),
  "request-constraint-relaxed": check("info", "request", "a request constraint was relaxed (type, length, pattern, format, minimum, null, unknown properties)"),
  "request-union-branch-added": check("info", "request", "a request union gained a branch"),
  "entity-kind-removed": check("breaking", "request", "an entity kind (`type`) is no longer accepted"),
  "entity-kind-added": check("info", "request", "a new entity kind (`type`)"),
  "entity-branch-removed": check("breaking", "request", "an entity kind lost a country branch"),
  "entity-branch-added": check("info", "request", "an entity kind gained a country branch"),
  "stakeholders-became-required": check("breaking", "request", "an entity kind now requires stakeholders"),
  "stakeholders-became-optional": check("info", "request", "an entity kind no longer requires stakeholders"),
  "role-removed": check("breaking", "request", "a stakeholder role is no longer accepted"),
  "role-added": check("info", "request", "a new stakeholder role"),
  "role-became-required": check("breaking", "request", "a stakeholder role became required"),
  "role-became-optional": check("info", "request", "a required stakeholder role became optional"),
  "role-type-removed": check("breaking", "request", "a role accepts fewer stakeholder types"),
  "role-type-added": check("info", "request", "a role accepts more stakeholder types"),
  "requirement-added": check("breaking", "request", "a v5 entity type requires a new address, document or identifier"),
  "requirement-removed": check("info", "request", "a v5 entity type no longer requires an address, document or identifier"),
  "operation-removed": check("breaking", "request", "an operation is gone"),
  "operation-added": check("info", "request", "a new operation"),
  "operation-path-changed": check("breaking", "request", "an operation's method or path changed"),
  "operation-auth-changed": check("breaking", "request", "an operation's authentication changed"),
  "operation-request-changed": check("warning", "request", "an operation's request body is another schema"),
  "interface-version-changed": check("breaking", "request", "the older metadata_version, the v5 path prefix or the webhook version changed"),
  "server-removed": check("breaking", "request", "an environment is gone"),
  "server-added": check("info", "request", "a new environment"),

  // Response and webhook readers: what they may receive.
  "response-property-removed": check("breaking", "response", "a property readers may use is gone from a response or webhook"),
  "response-property-became-optional": check("breaking", "response", "an always-present response property may now be absent"),
  "response-enum-value-added": check("breaking", "response", "a response enum or value list gained a value readers never handled"),
  "response-const-changed": check("breaking", "response", "the fixed value of a response property changed"),
  "response-type-widened": check("breaking", "response", "a response property may carry another JSON type (or null)"),
  "response-union-branch-added": check("breaking", "response", "a response union gained a branch"),
  "response-property-added": check("info", "response", "a new response property"),
  "response-property-became-required": check("info", "response", "a response property is now always present"),
  "response-enum-value-removed": check("info", "response", "a response enum or value list lost a value"),
  "response-union-branch-removed": check("info", "response", "a response union lost a branch"),
  "response-constraint-relaxed": check(
    "warning",
    "response",
    "a response property may carry values it could not before (a longer string, another pattern, a lower minimum, unknown properties)",
  ),
  "response-constraint-tightened": check("info", "response", "a response property carries a narrower range of values (type, length, pattern, format, minimum)"),
  "deprecated-property-removed": check("warning", "response", "a deprecated property was removed"),
  "operation-response-changed": check("breaking", "response", "an operation's success response is gone or is another schema"),
  "operation-response-added": check("info", "response", "an operation has a new success response"),
  "webhook-removed": check("breaking", "response", "a webhook payload is no longer sent"),
  "webhook-added": check("info", "response", "a new webhook payload"),

  // Behaviour: what the service does, beyond the shapes.
  "transition-removed": check("breaking", "behaviour", "a status transition was removed"),
  "transition-added": check("warning", "behaviour", "a new status transition"),
  "transition-target-removed": check("breaking", "behaviour", "a transition no longer leads to a status"),
  "transition-target-added": check("warning", "behaviour", "a transition may lead to another status"),
  "transition-changed": check("warning", "behaviour", "a transition's condition or side effect changed"),
  "status-outcome-changed": check("warning", "behaviour", "what a verification status means to a receiver changed"),
  "submission-status-lock-changed": check("breaking", "behaviour", "which submission status locks resubmission changed"),
  "attempt-rule-changed": check("breaking", "behaviour", "the attempt counter's field, start or cap field changed"),
  "attempt-default-cap-changed": check("warning", "behaviour", "the observed default attempt cap changed"),
  "limit-changed": check("warning", "behaviour", "a limit's value changed"),
  "limit-added": check("info", "behaviour", "a new limit"),
  "limit-removed": check("warning", "behaviour", "a limit was removed"),
  "webhook-tolerance-changed": check("warning", "behaviour", "the webhook timestamp tolerance changed"),
  "signature-scheme-removed": check("breaking", "behaviour", "a signature version is no longer used"),
  "signature-scheme-added": check("info", "behaviour", "a new signature version"),
  "signature-header-changed": check("breaking", "behaviour", "a signature header was added, removed, renamed or its prefix or value changed"),
  "signature-digest-changed": check("breaking", "behaviour", "a signature header's digest algorithm changed"),
  "signature-receiver-rules-changed": check("warning", "behaviour", "what a receiver must check changed"),
  "webhook-signature-version-changed": check("breaking", "behaviour", "a webhook payload is signed with another signature version"),
  "error-type-removed": check("warning", "behaviour", "an error type is no longer returned"),
  "error-type-added": check("warning", "behaviour", "a new error type integrators may receive"),
  "error-status-changed": check("breaking", "behaviour", "an error type's HTTP status changed"),
  "error-message-changed": check("warning", "behaviour", "an error type's message changed"),
  "operation-error-added": check("warning", "behaviour", "an operation may return another error type"),
  "operation-error-removed": check("info", "behaviour", "an operation no longer returns an error type"),
  "validation-code-changed": check("breaking", "behaviour", "the issue code a validation rule reports changed (integrators match on it)"),
  "validation-message-changed": check("warning", "behaviour", "the message a validation rule reports changed (integrators match on it)"),
  "deprecation-added": check("info", "behaviour", "something was deprecated"),
  "deprecation-removed": check("info", "behaviour", "a deprecation was withdrawn or its subject removed"),
  "schema-removed": check("warning", "behaviour", "a published schema id is gone (generated/schemas/<id>.json)"),
  "schema-added": check("info", "behaviour", "a new published schema id"),
  "spec-version-not-bumped": check(
    "breaking",
    "behaviour",
    "spec/versions.yaml's specVersion was not raised enough for the changes (warning when none of them is breaking)",
  ),
} as const satisfies Record<string, Check>;

export type CheckId = keyof typeof CHECKS;

export function isCheckId(id: string): id is CheckId {
  return Object.hasOwn(CHECKS, id);
}
