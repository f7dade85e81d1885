// Check: every country of a country group is an ISO 3166-1 alpha-3 code of the list (countries.yaml).
import { at, rawAt } from "../load/spec-access.js";
import type { Checks } from "./context.js";

export function checkCountries(c: Checks): void {
  const root = c.root("countries.yaml");
  const data = rawAt(root);
  const iso3 = new Set(Object.keys(data.iso3166Alpha3));
  for (const [name, g] of Object.entries(data.groups as Record<string, { countries: string[] }>)) {
    g.countries.forEach((code, i) => {
      if (!iso3.has(code)) c.report("VS301", at(root, "groups", name, "countries", i), { value: JSON.stringify(code) });
    });
  }
}

/** The country group names of countries.yaml. */
export const groupNames = (c: Checks): string[] => Object.keys(rawAt(c.root("countries.yaml")).groups);
