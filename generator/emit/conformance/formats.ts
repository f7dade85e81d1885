// The JSON Schema of each conformance file's own format (shipped beside it as <name>.schema.json), so a
// runner in any language can check it reads the file it expects. Bump FORMAT_VERSION when a format changes.
import { SCHEMA_DIALECT } from "../json-schemas.js";
import { REASONS } from "./webhooks.js";

export const FORMAT_VERSION = 1;
export const formatUri = (name: string) => `https://verispec.dev/conformance/${name}.schema.json`;

type Schema = Record<string, unknown>;
const str = { type: "string" } as const;
const int = { type: "integer" } as const;
const path = { type: "array", items: { type: ["string", "integer"] } } as const;
const issue = { type: "object", additionalProperties: false, required: ["message", "code", "path"], properties: { message: str, code: str, path } } as const;

function header(name: string, title: string, description: string, cases: Schema, extra: Record<string, Schema> = {}): Schema {
  return {
    $schema: SCHEMA_DIALECT,
    $id: formatUri(name),
    title,
    description,
    type: "object",
    additionalProperties: false,
    required: ["format", "formatVersion", "specVersion", "description", "cases", ...Object.keys(extra)],
    properties: {
      $schema: str,
      $comment: str,
      format: { const: `verispec-conformance-${name}` },
      formatVersion: { const: FORMAT_VERSION },
      specVersion: { ...str, description: "The spec's own version (spec/versions.yaml `specVersion`) the vectors were generated from." },
      description: str,
      cases: { type: "array", items: cases },
      ...extra,
    },
  };
}

export const REQUESTS_FORMAT: Schema = header(
  "requests",
  "verispec conformance vectors: request bodies",
  "Each case is one request body for one operation, its verdict, and the exact issues of the service's 422 `error.details`. Issues compare as a set (their order is not specified): sorted here by path, code, message.",
  {
    type: "object",
    additionalProperties: false,
    required: ["id", "schema", "operation", "source", "title", "payload", "valid", "errors"],
    properties: {
      id: str,
      schema: { ...str, description: "The request schema id (generated/schemas/<id>.json)." },
      operation: { ...str, description: "The endpoint's operationId (createVerification, verify, idForm, getVerificationStatus, submitRequestedActions)." },
      source: { ...str, description: "The section of the service's specification the operation is described in." },
      title: str,
      payload: { description: "The request body (credentials of the older interface are placeholders: a runner sending it replaces them)." },
      valid: { type: "boolean" },
      errors: { type: "array", items: issue },
      changed: { ...path, description: "Where the payload differs from a valid one." },
    },
  },
);

const delivery = {
  type: "object",
  required: ["secrets", "body", "headers", "now", "expect"],
  properties: {
    secrets: { type: "array", minItems: 1, items: str, description: "The signing keys the receiver holds; any one may match." },
    body: { ...str, description: "The body text; the signed bytes are its UTF-8 encoding." },
    headers: { type: "object", additionalProperties: str, description: "Header names are case-insensitive." },
    now: { ...int, description: "The receiver's clock, Unix milliseconds." },
    allowBodySignature: { const: true, description: "The receiver accepts the deprecated body-embedded signature when no signature header is present." },
    expect: {
      oneOf: [
        { type: "object", additionalProperties: false, required: ["verdict"], properties: { verdict: { const: "accept" } } },
        {
          type: "object",
          additionalProperties: false,
          required: ["verdict", "reason"],
          properties: { verdict: { const: "reject" }, reason: { enum: [...REASONS], description: "The first failing check, in the order of this list." } },
        },
      ],
    },
  },
} as const;

export const WEBHOOKS_FORMAT: Schema = header(
  "webhooks",
  "verispec conformance vectors: webhook signatures",
  `Signature vectors for both signature versions. A verifier checks, in this order, and the first failure names the reason: ${REASONS.join(", ")}. A case runs against a fresh replay store; a sequence runs its steps in order against one store. The replay key is the signed bytes (the same bytes are one delivery whatever version or key signed them).`,
  {
    ...delivery,
    additionalProperties: false,
    required: ["id", "title", "signatureVersion", ...delivery.required],
    properties: { id: str, title: str, signatureVersion: str, ...delivery.properties },
  },
  {
    toleranceMs: { ...int, description: "The timestamp tolerance, inclusive, both directions." },
    sequences: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["id", "title", "steps"],
        properties: { id: str, title: str, steps: { type: "array", items: { ...delivery, additionalProperties: false } } },
      },
    },
  },
);

const stateFields = {
  verificationStatus: { type: ["string", "null"] },
  submissionStatus: { type: ["string", "null"] },
  attempt: { type: ["integer", "null"] },
} as const;

export const LIFECYCLE_FORMAT: Schema = header(
  "lifecycle",
  "verispec conformance vectors: the verification life cycle",
  "What an event does to a verification, from the transition table of the service's specification, section 3: a transition to a new state, an error with its HTTP status (474, 475), or refused (no row of the table applies). A `verificationStatus` of null in an expected state means the target is not shown (see `targets`).",
  {
    type: "object",
    additionalProperties: false,
    required: ["id", "title", "source", "given", "event", "expect"],
    properties: {
      id: str,
      title: str,
      source: str,
      given: {
        type: "object",
        additionalProperties: false,
        required: ["verificationStatus", "submissionStatus", "attempt", "maxAttempts", "type", "subType", "stakeholder"],
        properties: {
          ...stateFields,
          maxAttempts: { type: ["integer", "null"] },
          type: str,
          subType: { type: ["string", "null"] },
          stakeholder: { type: "boolean" },
        },
      },
      event: { ...str, description: "submit, complete:<status>, resubmit, remove, followUp." },
      expect: {
        type: "object",
        required: ["outcome"],
        properties: {
          outcome: { enum: ["transition", "error", "refused"] },
          transition: str,
          error: str,
          httpStatus: int,
          why: str,
          targets: { type: "array", items: str },
          state: { type: "object", additionalProperties: false, required: ["verificationStatus", "submissionStatus", "attempt"], properties: stateFields },
        },
      },
    },
  },
);
