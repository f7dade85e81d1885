// Model: the named value sets (countries, statuses, error types, validation codes) and how a field's
// `values:` names one ("group:<name>" for a country group).
import type { ModelContext } from "./context.js";
import type { StatusModel } from "./statuses.js";
import type { ErrorType, Model, ValueSet } from "./types.js";

export interface ValueSets {
  /** In model order (Model["valueSets"]). */
  readonly list: readonly ValueSet[];
  readonly iso3: ValueSet;
  /** A value set by its spec name: a named one, or "group:<name>" for a country group. */
  resolve(name: string): ValueSet;
}

export function buildValueSets(
  ctx: ModelContext,
  countries: Model["countries"],
  statuses: StatusModel,
  errorTypes: readonly ErrorType[],
  codes: readonly string[],
): ValueSets {
  const byName: Record<string, ValueSet> = {
    iso3: {
      name: "iso3",
      source: ctx.root("countries.yaml").source,
      description: "ISO 3166-1 alpha-3 country code.",
      values: countries.iso3.map((c) => c.code),
    },
    usStates: countries.usStates,
    verificationStatuses: {
      name: "verificationStatuses",
      source: "3",
      description: "Verification status.",
      values: statuses.verificationStatuses.map((s) => s.value),
    },
    olderVerificationStatuses: {
      name: "olderVerificationStatuses",
      source: "6.3",
      description: "Verification status of the older webhook payload.",
      values: statuses.olderVerificationStatuses,
    },
    submissionStatuses: { name: "submissionStatuses", source: "3", description: "Submission status.", values: statuses.submissionStatuses.map((s) => s.value) },
    errorTypes: { name: "errorTypes", source: "7", description: "Error type.", values: errorTypes.map((e) => e.type) },
    validationCodes: { name: "validationCodes", source: "7", description: "Validation issue code (Zod 4's codes).", values: [...codes] },
  };
  return {
    list: Object.values(byName),
    iso3: byName.iso3!,
    resolve: (name) => (name.startsWith("group:") ? countries.groups[name.slice("group:".length)]! : byName[name]!),
  };
}
