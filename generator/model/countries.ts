// Model: countries.yaml: the ISO 3166-1 alpha-3 codes, the country groups, the USA state codes.
import type { Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { Model, ValueSet } from "./types.js";

export function buildCountries(ctx: ModelContext): Model["countries"] {
  const countries = ctx.root("countries.yaml");
  const iso3 = Object.entries(countries.iso3166Alpha3 as Record<string, string>).map(([code, name]) => ({ code, name }));
  const groups: Record<string, ValueSet & { source: string; description?: string }> = {};
  for (const [name, g] of Object.entries(countries.groups as Record<string, Raw>)) {
    groups[name] = { name, countryGroup: true, source: g.source, description: g.description, values: [...g.countries] };
  }
  const usStates: ValueSet = {
    name: "usStates",
    source: countries.usStates.source,
    description: "2-letter USA state code.",
    values: [...countries.usStates.codes],
  };
  return { iso3, groups, usStates };
}
