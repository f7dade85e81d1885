// Check: every role of a role set (stakeholders.yaml) allows declared stakeholder types only.
import { nameList } from "../diagnostics.js";
import { at, rawAt, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";

export function checkStakeholders(c: Checks): void {
  const root = c.root("stakeholders.yaml");
  const sh = rawAt(root);
  const types = Object.keys(sh.types);
  for (const [set, rs] of Object.entries(sh.roleSets as Record<string, Raw>)) {
    for (const [role, r] of Object.entries(rs.roles as Record<string, { types: string[] }>)) {
      r.types.forEach((t, i) => {
        if (!types.includes(t)) c.report("VS308", at(root, "roleSets", set, "roles", role, "types", i), { value: JSON.stringify(t), choices: nameList(types) });
      });
    }
  }
}
