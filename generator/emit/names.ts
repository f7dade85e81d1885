// The one naming module: every name an emitter derives from the model (identifiers, type names, schema
// definition ids), so that two emitters that must agree on a name read it from one place.
import type { Rule, ValueSet } from "../model/types.js";

/** Identifier of a schema id: "v4.entities.Trust" -> "V4EntitiesTrust". */
export function pascalId(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

/** The generated validator of a schema id: "v4.Gender" -> "validateV4Gender". */
export const validatorName = (id: string) => `validate${pascalId(id)}`;

/** Ajv's raw function of a schema id in generated/validators/ajv.js. */
export const rawName = (id: string) => `raw${pascalId(id)}`;

/** "v4.VerifyRequest" -> "VerifyBody", "v4.RequestedActionsRequest" -> "RequestedActionsBody". */
export const bodyTypeName = (requestId: string) =>
  `${requestId
    .split(".")
    .pop()!
    .replace(/Request$/, "")}Body`;

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "usStates" -> "UsState", "verificationStatuses" -> "VerificationStatus", "iso3" -> "Iso3". */
export function valueSetTypeName(set: ValueSet): string {
  const n = cap(set.name);
  return n.endsWith("uses") ? n.slice(0, -2) : n.endsWith("s") ? n.slice(0, -1) : n;
}

/** Shared definitions of the schemas: a rule ("rules.abn"), a named value set ("values.iso3"). */
export const ruleDefinitionId = (rule: Rule) => `rules.${rule.name}`;
export const valueSetDefinitionId = (set: ValueSet) => `values.${set.name}`;
