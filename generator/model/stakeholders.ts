// Model: stakeholders.yaml: the stakeholder types, the role sets an entity kind's stakeholders follow, and
// the guidance text.
import { positionOf } from "../load/load-spec.js";
import type { Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { Model, RoleSet } from "./types.js";

export function buildStakeholders(ctx: ModelContext): Pick<Model, "stakeholderGuidance" | "stakeholderTypes" | "roleSets"> {
  const file = ctx.file("stakeholders.yaml");
  const sh = ctx.root("stakeholders.yaml");
  const roleSets: Record<string, RoleSet> = {};
  for (const [name, rs] of Object.entries(sh.roleSets as Record<string, Raw>)) {
    const roles = Object.entries(rs.roles as Record<string, Raw>).map(([role, r]) => ({
      name: role,
      types: [...r.types],
      required: r.required === true,
      description: r.description,
      unknown: r.unknown,
    }));
    roleSets[name] = { name, source: rs.source, description: rs.description, roles, pos: positionOf(file, ["roleSets", name], true) };
  }
  return {
    stakeholderGuidance: sh.guidance.text,
    stakeholderTypes: Object.entries(sh.types as Record<string, Raw>).map(([name, t]) => ({
      name,
      source: t.source,
      description: t.description,
      fields: t.fields,
    })),
    roleSets,
  };
}
