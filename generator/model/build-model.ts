// Model: turn the checked spec files into the one typed model, resolving every reference. The checks
// (generator/check/) have already proved that every reference resolves and the facts agree; the builders
// here (one a concern, like check/) only build, so a lookup is a plain index (`!`).
import type { LoadedSpec } from "../load/load-spec.js";
import { ModelContext } from "./context.js";
import { buildCountries } from "./countries.js";
import { buildEntityKinds } from "./entities.js";
import { buildShapes, FieldBuilder } from "./fields.js";
import { buildEndpoints, buildLimits, buildSandbox, buildVersions, buildWebhooks } from "./interface.js";
import { buildErrorTypes, buildMessages } from "./messages.js";
import { buildEntityRequests, buildV5 } from "./requests.js";
import { buildRules } from "./rules.js";
import { buildStakeholders } from "./stakeholders.js";
import { buildStatuses } from "./statuses.js";
import type { Model } from "./types.js";
import { collectUnknowns } from "./unknowns.js";
import { buildValueSets } from "./value-sets.js";

/** The model of a spec that passed checkSpec (generator/check/). */
export function buildModel(spec: LoadedSpec): Model {
  const ctx = new ModelContext(spec);
  const countries = buildCountries(ctx);
  const messages = buildMessages(ctx);
  const errorTypes = buildErrorTypes(ctx);
  const rules = buildRules(ctx, messages);
  const statuses = buildStatuses(ctx);
  const valueSets = buildValueSets(ctx, countries, statuses, errorTypes, messages.model.codes);
  // Field sets and shapes are read through one builder, so that references between files resolve in any order.
  const fields = new FieldBuilder(ctx, rules, valueSets, messages);
  const shapes = buildShapes(ctx, fields);
  const stakeholders = buildStakeholders(ctx);
  const limits = buildLimits(ctx);
  return {
    specHash: spec.hash,
    countries,
    unicodeVersion: ctx.root("unicode-letters.yaml").unicodeVersion,
    rules,
    patternNotes: { engines: ctx.root("rules.yaml").patternNote, portable: ctx.root("rules.yaml").portablePatternNote },
    valueSets: valueSets.list,
    messages: messages.model,
    errorTypes,
    limits,
    ...statuses,
    sandbox: buildSandbox(ctx),
    versions: buildVersions(ctx),
    ...stakeholders,
    entityKinds: buildEntityKinds(ctx, fields, countries, valueSets, stakeholders.roleSets),
    entityRequests: buildEntityRequests(ctx, fields),
    shapes,
    ...buildV5(ctx, countries, messages),
    ...buildEndpoints(ctx, fields),
    ...buildWebhooks(ctx, limits),
    unknowns: collectUnknowns(spec),
  };
}
