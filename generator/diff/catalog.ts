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

const c = (severity: Severity, audience: Audience, summary: string): Check => ({ severity, audience, summary });

export const CHECKS = {
  // Request senders: what a request must look like.
  "request-property-required-added": c("breaking", "request", "a new required property in a request body"),
  "request-property-became-required": c("breaking", "request", "an optional request property became required"),
  "request-property-removed": c("warning", "request", "a property a sender may still send is gone from a request body"),
  "request-property-rejected": c(
    "breaking",
    "request",
    "a property is gone from a request object that rejects unknown properties: senders that still send it fail",
  ),
  "request-enum-value-removed": c("breaking", "request", "a request enum or value list lost a value"),
  "request-country-removed": c("breaking", "request", "a request country list lost a country"),
  "request-const-changed": c("breaking", "request", "the fixed value of a request property changed"),
  "request-type-narrowed": c("breaking", "request", "a request property accepts fewer JSON types (or no longer null)"),
  "request-length-tightened": c("breaking", "request", "a request string's minLength rose or maxLength fell"),
  "request-minimum-raised": c("breaking", "request", "a request number's minimum rose"),
  "request-pattern-added": c("breaking", "request", "a request string gained a pattern"),
  "request-pattern-changed": c(
    "breaking",
    "request",
    "a request string's pattern changed and the new one does not provably accept every value the old one did",
  ),
  "request-format-added": c("breaking", "request", "a request string gained a format or its format changed"),
  "request-conditional-rule-added": c("warning", "request", "a request object gained rules that apply when a field has given values"),
  "request-additional-properties-closed": c("breaking", "request", "a request object no longer accepts unknown properties"),
  "request-union-branch-removed": c("breaking", "request", "a request union lost a branch"),
  "request-property-optional-added": c("info", "request", "a new optional property in a request body"),
  "request-property-became-optional": c("info", "request", "a required request property became optional"),
  "request-enum-value-added": c("info", "request", "a request enum or value list gained a value"),
  "request-country-added": c("info", "request", "a request country list gained a country"),
  "request-constraint-relaxed": c("info", "request", "a request constraint was relaxed (type, length, pattern, format, minimum, null, unknown properties)"),
  "request-union-branch-added": c("info", "request", "a request union gained a branch"),
  "entity-kind-removed": c("breaking", "request", "an entity kind (`type`) is no longer accepted"),
  "entity-kind-added": c("info", "request", "a new entity kind (`type`)"),
  "entity-branch-removed": c("breaking", "request", "an entity kind lost a country branch"),
  "entity-branch-added": c("info", "request", "an entity kind gained a country branch"),
  "stakeholders-became-required": c("breaking", "request", "an entity kind now requires stakeholders"),
  "stakeholders-became-optional": c("info", "request", "an entity kind no longer requires stakeholders"),
  "role-removed": c("breaking", "request", "a stakeholder role is no longer accepted"),
  "role-added": c("info", "request", "a new stakeholder role"),
  "role-became-required": c("breaking", "request", "a stakeholder role became required"),
  "role-became-optional": c("info", "request", "a required stakeholder role became optional"),
  "role-type-removed": c("breaking", "request", "a role accepts fewer stakeholder types"),
  "role-type-added": c("info", "request", "a role accepts more stakeholder types"),
  "requirement-added": c("breaking", "request", "a v5 entity type requires a new address, document or identifier"),
  "requirement-removed": c("info", "request", "a v5 entity type no longer requires an address, document or identifier"),
  "operation-removed": c("breaking", "request", "an operation is gone"),
  "operation-added": c("info", "request", "a new operation"),
  "operation-path-changed": c("breaking", "request", "an operation's method or path changed"),
  "operation-auth-changed": c("breaking", "request", "an operation's authentication changed"),
  "operation-request-changed": c("warning", "request", "an operation's request body is another schema"),
  "interface-version-changed": c("breaking", "request", "the older metadata_version, the v5 path prefix or the webhook version changed"),
  "server-removed": c("breaking", "request", "an environment is gone"),
  "server-added": c("info", "request", "a new environment"),

  // Response and webhook readers: what they may receive.
  "response-property-removed": c("breaking", "response", "a property readers may use is gone from a response or webhook"),
  "response-property-became-optional": c("breaking", "response", "an always-present response property may now be absent"),
  "response-enum-value-added": c("breaking", "response", "a response enum or value list gained a value readers never handled"),
  "response-const-changed": c("breaking", "response", "the fixed value of a response property changed"),
  "response-type-widened": c("breaking", "response", "a response property may carry another JSON type (or null)"),
  "response-union-branch-added": c("breaking", "response", "a response union gained a branch"),
  "response-property-added": c("info", "response", "a new response property"),
  "response-property-became-required": c("info", "response", "a response property is now always present"),
  "response-enum-value-removed": c("info", "response", "a response enum or value list lost a value"),
  "response-union-branch-removed": c("info", "response", "a response union lost a branch"),
  "response-constraint-relaxed": c(
    "warning",
    "response",
    "a response property may carry values it could not before (a longer string, another pattern, a lower minimum, unknown properties)",
  ),
  "response-constraint-tightened": c("info", "response", "a response property carries a narrower range of values (type, length, pattern, format, minimum)"),
  "deprecated-property-removed": c("warning", "response", "a deprecated property was removed"),
  "operation-response-changed": c("breaking", "response", "an operation's success response is gone or is another schema"),
  "operation-response-added": c("info", "response", "an operation has a new success response"),
  "webhook-removed": c("breaking", "response", "a webhook payload is no longer sent"),
  "webhook-added": c("info", "response", "a new webhook payload"),

  // Behaviour: what the service does, beyond the shapes.
  "transition-removed": c("breaking", "behaviour", "a status transition was removed"),
  "transition-added": c("warning", "behaviour", "a new status transition"),
  "transition-target-removed": c("breaking", "behaviour", "a transition no longer leads to a status"),
  "transition-target-added": c("warning", "behaviour", "a transition may lead to another status"),
  "transition-changed": c("warning", "behaviour", "a transition's condition or side effect changed"),
  "status-outcome-changed": c("warning", "behaviour", "what a verification status means to a receiver changed"),
  "submission-status-lock-changed": c("breaking", "behaviour", "which submission status locks resubmission changed"),
  "attempt-rule-changed": c("breaking", "behaviour", "the attempt counter's field, start or cap field changed"),
  "attempt-default-cap-changed": c("warning", "behaviour", "the observed default attempt cap changed"),
  "limit-changed": c("warning", "behaviour", "a limit's value changed"),
  "limit-added": c("info", "behaviour", "a new limit"),
  "limit-removed": c("warning", "behaviour", "a limit was removed"),
  "webhook-tolerance-changed": c("warning", "behaviour", "the webhook timestamp tolerance changed"),
  "signature-scheme-removed": c("breaking", "behaviour", "a signature version is no longer used"),
  "signature-scheme-added": c("info", "behaviour", "a new signature version"),
  "signature-header-changed": c("breaking", "behaviour", "a signature header was added, removed, renamed or its prefix or value changed"),
  "signature-digest-changed": c("breaking", "behaviour", "a signature header's digest algorithm changed"),
  "signature-receiver-rules-changed": c("warning", "behaviour", "what a receiver must check changed"),
  "webhook-signature-version-changed": c("breaking", "behaviour", "a webhook payload is signed with another signature version"),
  "error-type-removed": c("warning", "behaviour", "an error type is no longer returned"),
  "error-type-added": c("warning", "behaviour", "a new error type integrators may receive"),
  "error-status-changed": c("breaking", "behaviour", "an error type's HTTP status changed"),
  "error-message-changed": c("warning", "behaviour", "an error type's message changed"),
  "operation-error-added": c("warning", "behaviour", "an operation may return another error type"),
  "operation-error-removed": c("info", "behaviour", "an operation no longer returns an error type"),
  "validation-code-changed": c("breaking", "behaviour", "the issue code a validation rule reports changed (integrators match on it)"),
  "validation-message-changed": c("warning", "behaviour", "the message a validation rule reports changed (integrators match on it)"),
  "deprecation-added": c("info", "behaviour", "something was deprecated"),
  "deprecation-removed": c("info", "behaviour", "a deprecation was withdrawn or its subject removed"),
  "schema-removed": c("warning", "behaviour", "a published schema id is gone (generated/schemas/<id>.json)"),
  "schema-added": c("info", "behaviour", "a new published schema id"),
  "spec-version-not-bumped": c(
    "breaking",
    "behaviour",
    "spec/versions.yaml's specVersion was not raised enough for the changes (warning when none of them is breaking)",
  ),
} as const satisfies Record<string, Check>;

export type CheckId = keyof typeof CHECKS;

export function isCheckId(id: string): id is CheckId {
  return Object.hasOwn(CHECKS, id);
}
