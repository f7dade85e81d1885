// Model: entities/*.yaml: one entity kind a file, its branches by country (each with its `country` field
// and its fields) and its stakeholders' role set; kinds sorted by name.
import { positionOf, type SpecFile } from "../load/load-spec.js";
import { at, type At, type Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { FieldBuilder } from "./fields.js";
import type { EntityBranch, EntityKind, Field, Model, RoleSet } from "./types.js";
import type { ValueSets } from "./value-sets.js";

export function buildEntityKinds(
  ctx: ModelContext,
  fields: FieldBuilder,
  countries: Model["countries"],
  values: ValueSets,
  roleSets: Readonly<Record<string, RoleSet>>,
): EntityKind[] {
  const kinds = ctx.spec.files
    .filter((f) => f.name.startsWith("entities/"))
    .map((file) => {
      const e = file.data as Raw;
      const branches = (e.branches as Raw[]).map((b, i) =>
        buildBranch(file, at({ file, path: [] }, "branches", i), b, fields, b.countries === "iso3" ? values.iso3 : countries.groups[b.countries]!),
      );
      const stakeholders: EntityKind["stakeholders"] = e.stakeholders
        ? { source: e.stakeholders.source, required: e.stakeholders.required, roleSet: roleSets[e.stakeholders.roleSet]! }
        : undefined;
      return {
        kind: e.kind,
        source: e.source,
        interface: e.interface,
        title: e.title,
        description: e.description,
        unknown: e.unknown,
        branches,
        stakeholders,
        pos: positionOf(file, ["kind"]),
      };
    });
  return kinds.sort((x, y) => (x.kind < y.kind ? -1 : x.kind > y.kind ? 1 : 0));
}

function buildBranch(file: SpecFile, ba: At, b: Raw, fields: FieldBuilder, set: EntityBranch["countries"]): EntityBranch {
  const country: Field = {
    pos: positionOf(file, [...ba.path, "countries"]),
    source: b.source,
    type: "string",
    required: "yes",
    nullable: false,
    values: set,
    deprecated: false,
    secret: false,
    when: [],
    messages: {},
    requirements: false,
    unknownShape: false,
    openKeys: false,
    description:
      set.values.length === 1
        ? `\`${set.values[0]}\``
        : b.countries === "iso3"
          ? "3-letter ISO code (ISO 3166-1 alpha-3)."
          : `One of the countries of the group ${b.countries}.`,
  };
  return {
    name: b.name,
    source: b.source,
    countries: set,
    fields: { country, ...fields.fieldMap(ba, undefined, "fields"), ...fields.fieldMap(ba, b.include, undefined) },
  };
}
