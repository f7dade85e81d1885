// Check: the entity kinds (entities/*.yaml) and the older interface's entity requests (older.yaml):
// one definition per kind, branch countries that exist and do not overlap, no hand-written `country`
// field, fields listed once, role sets that exist; request ids apart from shape ids, and interfaces
// some kind declares.
import { nameList } from "../diagnostics.js";
import type { SpecFile } from "../load/load-spec.js";
import { groupNames } from "./countries.js";
import { at, rawAt, type At, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";
import { checkIncludes } from "./fields.js";
import { shapeSources } from "./shapes.js";

export function checkEntities(c: Checks): void {
  const countries = rawAt(c.root("countries.yaml"));
  const groups = groupNames(c);
  const sets = rawAt(c.root("fieldsets.yaml")).fieldSets as Record<string, Raw>;
  const roleSets = Object.keys(rawAt(c.root("stakeholders.yaml")).roleSets);
  const kindFiles = new Map<string, SpecFile>();
  const interfaces = new Set<string>();
  for (const file of c.spec.files.filter((f) => f.name.startsWith("entities/"))) {
    const e = file.data as Raw;
    const a: At = { file, path: [] };
    interfaces.add(e.interface);
    const previous = kindFiles.get(e.kind);
    if (previous) c.report("VS407", at(a, "kind"), { kind: JSON.stringify(e.kind), first: previous.displayPath });
    kindFiles.set(e.kind, file);
    const seen = new Map<string, string>();
    (e.branches as Raw[]).forEach((b, i) => {
      const ba = at(a, "branches", i);
      const values: string[] | undefined = b.countries === "iso3" ? Object.keys(countries.iso3166Alpha3) : countries.groups[b.countries]?.countries;
      if (!values) c.report("VS309", at(ba, "countries"), { value: JSON.stringify(b.countries), allowed: '"iso3" or ', choices: nameList(groups) });
      for (const country of values ?? []) {
        const other = seen.get(country);
        if (other) c.report("VS408", at(ba, "countries"), { country, first: other, second: b.name });
        seen.set(country, b.name);
      }
      if ("country" in (b.fields ?? {})) c.report("VS409", at(ba, "fields", "country"), {}, true);
      checkIncludes(c, ba, b.include);
      const included = ((b.include ?? []) as string[]).flatMap((s) => Object.keys(sets[s]?.fields ?? {}));
      for (const name of Object.keys(b.fields ?? {})) if (included.includes(name)) c.report("VS410", at(ba, "fields", name), { field: name }, true);
    });
    const roleSet = e.stakeholders?.roleSet;
    if (roleSet !== undefined && !roleSets.includes(roleSet))
      c.report("VS310", at(a, "stakeholders", "roleSet"), { value: JSON.stringify(roleSet), choices: nameList(roleSets) });
  }

  const older = c.root("older.yaml");
  const o = rawAt(older);
  checkIncludes(c, at(older, "envelope"), o.envelope.include);
  const shapes = shapeSources(c);
  for (const [id, r] of Object.entries(o.entityRequests as Record<string, Raw>)) {
    if (shapes.has(id)) c.report("VS411", at(older, "entityRequests", id), { id }, true);
    if (!interfaces.has(r.interface)) c.report("VS412", at(older, "entityRequests", id, "interface"), { interface: r.interface });
  }
}
