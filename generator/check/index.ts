// Check: the meta-schema first (the shape of every file), then the cross-reference checks, one module per
// concern. Everything the model builder relies on is checked here; the builder only builds.
import type { Diagnostic } from "../diagnostics.js";
import type { LoadedSpec } from "../load/load-spec.js";
import { Checks } from "./context.js";
import { checkCountries } from "./countries.js";
import { checkEndpoints } from "./endpoints.js";
import { checkEntities } from "./entities.js";
import { checkFields } from "./fields.js";
import { checkMessages } from "./messages.js";
import { checkPresence } from "./presence.js";
import { checkAgainstMetaSchema } from "./meta-schema.js";
import { checkRequiredNames } from "./required.js";
import { checkProse } from "./prose.js";
import { checkRules } from "./rules.js";
import { checkSandbox } from "./sandbox.js";
import { checkShapes } from "./shapes.js";
import { checkStakeholders } from "./stakeholders.js";
import { checkStatuses } from "./statuses.js";
import { checkTransitions } from "./transitions.js";
import { checkVersions } from "./versions.js";
import { checkWebhooks } from "./webhooks.js";

/** In the order the spec reads: vocabularies first, then what refers to them. */
const CROSS_REFERENCE_CHECKS: readonly ((c: Checks) => void)[] = [
  checkRequiredNames,
  checkCountries,
  checkMessages,
  checkRules,
  checkStatuses,
  checkShapes,
  checkFields,
  checkStakeholders,
  checkEntities,
  checkVersions,
  checkWebhooks,
  checkEndpoints,
  checkPresence,
  checkTransitions,
  checkSandbox,
  checkProse,
];

/** Every diagnostic of the spec (empty: the model can be built). */
export function checkSpec(spec: LoadedSpec): Diagnostic[] {
  const shape = checkAgainstMetaSchema(spec);
  if (shape.length > 0) return shape;
  const c = new Checks(spec);
  for (const check of CROSS_REFERENCE_CHECKS) check(c);
  return c.diagnostics;
}
