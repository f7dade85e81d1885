// Compare rules for the whole model: shapes through their uses, then the domain facts verispec models
// beside the schemas (entity kinds, roles, requirements, operations, webhooks, signatures, transitions,
// attempts, limits, errors, messages, versions). Each rule reads one part of both models and emits.
import type { PathSegment } from "../load/load-spec.js";
import { entitySchemaId, type EntityKind, type Model, type Role, type ValueSet } from "../model/types.js";
import { compareField, compareMessages, compareProperties, type Direction, type SchemaContext } from "./compare-schemas.js";
import { collector, dedupe, sortFindings, type Emit, type Finding, type Location } from "./finding.js";
import { locate, type Side } from "./sides.js";
import { operationOfInterface, shapeUses, type Use } from "./usage.js";

interface Pair {
  readonly base: Side;
  readonly head: Side;
  readonly emit: Emit;
  /** Both sides' positions of the same place in a spec file (the deepest part that exists on each). */
  readonly at: (file: string, path: readonly PathSegment[], extra?: Omit<Location, "base" | "head">) => Location;
}

const json = (v: unknown) => JSON.stringify(v);
const keysOf = <T>(b: Readonly<Record<string, T>>, h: Readonly<Record<string, T>>) => [...new Set([...Object.keys(b), ...Object.keys(h)])].sort();
const byKey = <T>(items: readonly T[], key: (t: T) => string): Record<string, T> => Object.fromEntries(items.map((t) => [key(t), t]));
const code = (v: string) => `\`${v}\``;

/** All findings between two sides, deduplicated, in report order (before overrides). */
export function compareSides(base: Side, head: Side): Finding[] {
  const { emit, findings } = collector();
  const at: Pair["at"] = (file, path, extra = {}) => {
    const basePos = locate(base, file, path);
    const headPos = locate(head, file, path);
    return { ...extra, ...(basePos ? { base: basePos } : {}), ...(headPos ? { head: headPos } : {}) };
  };
  const pair: Pair = { base, head, emit, at };
  for (const rule of RULES) rule(pair);
  return sortFindings(dedupe(findings));
}

function schemaContext(pair: Pair, direction: Direction, schema: string, use: Omit<Use, "direction">): SchemaContext {
  return {
    base: pair.base.model,
    head: pair.head.model,
    emit: pair.emit,
    direction,
    schema,
    seen: new Set(),
    definedAt: (set) => definitionOf(pair.head, set),
    ...use,
  };
}

/** The file:line where a country list is written (countries.yaml), for messages. */
function definitionOf(side: Side, set: ValueSet): string | undefined {
  const path = set.countryGroup
    ? ["groups", set.name, "countries"]
    : set.name === "usStates"
      ? ["usStates", "codes"]
      : set.name === "iso3"
        ? ["iso3166Alpha3"]
        : undefined;
  const pos = path && locate(side, "countries.yaml", path);
  return pos ? `${pos.file}:${pos.line}` : undefined;
}

function compareShapes(pair: Pair): void {
  const [baseModel, headModel] = [pair.base.model, pair.head.model];
  const [baseUses, headUses] = [shapeUses(baseModel), shapeUses(headModel)];
  for (const id of keysOf(baseModel.shapes, headModel.shapes)) {
    const [baseShape, headShape] = [baseModel.shapes[id], headModel.shapes[id]];
    if (!headShape) {
      pair.emit("schema-removed", `schema ${code(id)} removed`, { schema: id, base: baseShape!.pos });
      continue;
    }
    if (!baseShape) {
      pair.emit("schema-added", `schema ${code(id)} added`, { schema: id, head: headShape.pos });
      continue;
    }
    const uses = new Map<Direction, Use>();
    for (const u of [...(headUses.get(id) ?? []), ...(baseUses.get(id) ?? [])]) if (!uses.has(u.direction)) uses.set(u.direction, u);
    if (uses.size === 0) uses.set("response", { direction: "response" });
    for (const [direction, use] of uses) {
      const { direction: _, ...where } = use;
      compareField(baseShape, headShape, "", schemaContext(pair, direction, id, where));
    }
  }
}

function compareEntityRequests(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.entityRequests, (r) => r.id), byKey(pair.head.model.entityRequests, (r) => r.id)];
  for (const id of keysOf(base, head)) {
    const [baseRequest, headRequest] = [base[id], head[id]];
    if (!baseRequest || !headRequest) {
      pair.emit(
        baseRequest ? "schema-removed" : "schema-added",
        `schema ${code(id)} ${baseRequest ? "removed" : "added"}`,
        pair.at("older.yaml", ["entityRequests", id], { schema: id }),
      );
      continue;
    }
    const operationId = pair.head.model.endpoints.find((e) => e.request === id)?.operationId;
    const ctx = schemaContext(pair, "request", id, operationId ? { operation: operationId } : {});
    const pos = pair.at("older.yaml", ["entityRequests", id]);
    compareProperties(baseRequest.fields, headRequest.fields, "", ctx, { base: pos.base!, head: pos.head! });
  }
}

function compareEntityKinds(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.entityKinds, (k) => k.kind), byKey(pair.head.model.entityKinds, (k) => k.kind)];
  for (const kind of keysOf(base, head)) {
    const [baseKind, headKind] = [base[kind], head[kind]];
    const schema = entitySchemaId(kind);
    const use = operationOfInterface((headKind ? pair.head : pair.base).model, (headKind ?? baseKind)!.interface);
    if (!headKind) {
      pair.emit("entity-kind-removed", `entity kind ${code(kind)} removed`, { schema, base: baseKind!.pos, ...use });
      continue;
    }
    if (!baseKind) {
      pair.emit("entity-kind-added", `entity kind ${code(kind)} added`, { schema, head: headKind.pos, ...use });
      continue;
    }
    const ctx = schemaContext(pair, "request", schema, use);
    const headBranchNames = headKind.branches.map((x) => x.name);
    baseKind.branches.forEach((branch, baseIndex) => {
      const headIndex = headBranchNames.indexOf(branch.name);
      const path = `/properties/fields/oneOf/${headIndex >= 0 ? headIndex : baseIndex}`;
      if (headIndex < 0) {
        pair.emit("entity-branch-removed", `${code(kind)} branch ${branch.name} (${branch.countries.values.join(", ")}) removed`, {
          schema,
          path,
          base: branch.fields.country?.pos ?? baseKind.pos,
          head: headKind.pos,
          ...use,
        });
        return;
      }
      const hbr = headKind.branches[headIndex]!;
      compareProperties(branch.fields, hbr.fields, path, ctx, {
        base: branch.fields.country?.pos ?? baseKind.pos,
        head: hbr.fields.country?.pos ?? headKind.pos,
      });
    });
    headKind.branches.forEach((branch, headIndex) => {
      if (!baseKind.branches.some((x) => x.name === branch.name)) {
        pair.emit("entity-branch-added", `${code(kind)} branch ${branch.name} (${branch.countries.values.join(", ")}) added`, {
          schema,
          path: `/properties/fields/oneOf/${headIndex}`,
          base: baseKind.pos,
          head: branch.fields.country?.pos ?? headKind.pos,
          ...use,
        });
      }
    });
    compareStakeholders(pair, baseKind, headKind, { schema, path: "/properties/stakeholders", ...use });
  }
}

function compareStakeholders(pair: Pair, baseKind: EntityKind, headKind: EntityKind, where: Location): void {
  const [baseStakeholders, headStakeholders] = [baseKind.stakeholders, headKind.stakeholders];
  const loc = { ...where, base: baseStakeholders?.roleSet.pos ?? baseKind.pos, head: headStakeholders?.roleSet.pos ?? headKind.pos };
  if (Boolean(baseStakeholders?.required) !== Boolean(headStakeholders?.required))
    pair.emit(
      headStakeholders?.required ? "stakeholders-became-required" : "stakeholders-became-optional",
      `${code(headKind.kind)}: stakeholders ${headStakeholders?.required ? "now required" : "no longer required"}`,
      loc,
    );
  if (!baseStakeholders || !headStakeholders) {
    if (baseStakeholders) pair.emit("role-removed", `${code(headKind.kind)} no longer takes stakeholders`, loc);
    if (headStakeholders)
      pair.emit("role-added", `${code(headKind.kind)} now takes stakeholders (roles ${headStakeholders.roleSet.roles.map((r) => r.name).join(", ")})`, loc);
    return;
  }
  // The same role set is compared once on its own (compareRoleSets); another one, here.
  if (baseStakeholders.roleSet.name !== headStakeholders.roleSet.name)
    compareRoles(pair, baseStakeholders.roleSet.roles, headStakeholders.roleSet.roles, `${code(headKind.kind)}`, loc);
}

function compareRoles(pair: Pair, baseRoles: readonly Role[], headRoles: readonly Role[], label: string, where: Location): void {
  const [base, head] = [byKey(baseRoles, (r) => r.name), byKey(headRoles, (r) => r.name)];
  for (const name of keysOf(base, head)) {
    const [before, after] = [base[name], head[name]];
    if (!after) pair.emit("role-removed", `${label}: role ${code(name)} removed`, where);
    else if (!before)
      pair.emit(after.required ? "role-became-required" : "role-added", `${label}: role ${code(name)} added${after.required ? " as required" : ""}`, where);
    else {
      if (before.required !== after.required)
        pair.emit(
          after.required ? "role-became-required" : "role-became-optional",
          `${label}: role ${code(name)} ${after.required ? "now required" : "no longer required"}`,
          where,
        );
      const lost = before.types.filter((t) => !after.types.includes(t));
      const gained = after.types.filter((t) => !before.types.includes(t));
      if (lost.length > 0) pair.emit("role-type-removed", `${label}: role ${code(name)} no longer takes ${lost.join(", ")}`, where);
      if (gained.length > 0) pair.emit("role-type-added", `${label}: role ${code(name)} now takes ${gained.join(", ")}`, where);
    }
  }
}

function compareRoleSets(pair: Pair): void {
  const [base, head] = [pair.base.model.roleSets, pair.head.model.roleSets];
  for (const name of keysOf(base, head)) {
    const [before, after] = [base[name], head[name]];
    if (!before || !after) continue; // a role set on its own is not an interface; the entity kinds that use it report
    const kinds = pair.head.model.entityKinds.filter((k) => k.stakeholders?.roleSet.name === name).map((k) => k.kind);
    const first = kinds[0];
    const use = first ? operationOfInterface(pair.head.model, pair.head.model.entityKinds.find((k) => k.kind === first)!.interface) : {};
    const where: Location = {
      ...(first ? { schema: entitySchemaId(first), path: "/properties/stakeholders" } : {}),
      ...use,
      base: before.pos,
      head: after.pos,
    };
    compareRoles(pair, before.roles, after.roles, kinds.length > 0 ? kinds.map(code).join(", ") : `role set ${name}`, where);
  }
}

function compareStakeholderTypes(pair: Pair): void {
  const [base, head] = [pair.base.model.stakeholderTypes.map((t) => t.name), pair.head.model.stakeholderTypes.map((t) => t.name)];
  const lost = base.filter((t) => !head.includes(t));
  const gained = head.filter((t) => !base.includes(t));
  const where = pair.at("stakeholders.yaml", ["types"], operationOfInterface(pair.head.model, "verify"));
  if (lost.length > 0) pair.emit("request-enum-value-removed", `stakeholder types removed: ${lost.map(code).join(", ")}`, where);
  if (gained.length > 0) pair.emit("request-enum-value-added", `stakeholder types added: ${gained.map(code).join(", ")}`, where);
}

function compareRequirements(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.v5Requirements, (r) => r.type), byKey(pair.head.model.v5Requirements, (r) => r.type)];
  const list = (requirement: Model["v5Requirements"][number] | undefined) =>
    requirement
      ? [
          ...requirement.addresses.map((a) => `address ${a}`),
          ...requirement.documents.map((d) => `document ${d}`),
          ...requirement.identifiersFor.flatMap((g) => g.identifiers.map((i) => `identifier ${i} for ${g.countries.values.join("/")}`)),
        ]
      : [];
  const operationId = pair.head.model.endpoints.find((e) => e.request === "v5.VerificationCreateRequest")?.operationId;
  for (const type of keysOf(base, head)) {
    const [before, after] = [list(base[type]), list(head[type])];
    const where = pair.at("v5.yaml", ["requirements", type], {
      schema: "v5.VerificationCreateRequest",
      path: "/allOf",
      ...(operationId ? { operation: operationId } : {}),
    });
    for (const r of after.filter((v) => !before.includes(v))) pair.emit("requirement-added", `type ${code(type)} now requires ${r}`, where);
    for (const r of before.filter((v) => !after.includes(v))) pair.emit("requirement-removed", `type ${code(type)} no longer requires ${r}`, where);
  }
}

function compareEndpoints(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.endpoints, (e) => e.operationId), byKey(pair.head.model.endpoints, (e) => e.operationId)];
  for (const id of keysOf(base, head)) {
    const [before, after] = [base[id], head[id]];
    const where = pair.at("endpoints.yaml", ["endpoints", id], { operation: id });
    const name = (e: NonNullable<typeof before>) => `${e.method} ${e.path ?? "(path not shown)"}`;
    if (!after) {
      pair.emit("operation-removed", `${name(before!)} (${id}) removed`, where);
      continue;
    }
    if (!before) {
      pair.emit("operation-added", `${name(after)} (${id}) added`, where);
      continue;
    }
    if (before.method !== after.method || before.path !== after.path) pair.emit("operation-path-changed", `${name(before)} -> ${name(after)}`, where);
    if (before.auth !== after.auth) pair.emit("operation-auth-changed", `authentication ${before.auth} -> ${after.auth}`, where);
    if (before.request !== after.request)
      pair.emit("operation-request-changed", `request body ${before.request ?? "none"} -> ${after.request ?? "none"}`, where);
    for (const status of keysOf(before.responses, after.responses)) {
      const [beforeResponse, afterResponse] = [before.responses[status], after.responses[status]];
      if (beforeResponse !== afterResponse)
        pair.emit(
          afterResponse ? (beforeResponse ? "operation-response-changed" : "operation-response-added") : "operation-response-changed",
          `response ${status}: ${beforeResponse ?? "none"} -> ${afterResponse ?? "none"}`,
          where,
        );
    }
    if (before.errorBody !== after.errorBody) pair.emit("operation-response-changed", `error body ${before.errorBody} -> ${after.errorBody}`, where);
    for (const e of after.errors.filter((v) => !before.errors.includes(v))) pair.emit("operation-error-added", `may now return error ${code(e)}`, where);
    for (const e of before.errors.filter((v) => !after.errors.includes(v))) pair.emit("operation-error-removed", `no longer returns error ${code(e)}`, where);
    if (json(before.limits) !== json(after.limits))
      pair.emit("limit-changed", `limits that apply: ${before.limits.join(", ") || "none"} -> ${after.limits.join(", ") || "none"}`, where);
    for (const name of keysOf(before.pathParams, after.pathParams)) {
      const [baseParam, headParam] = [before.pathParams[name], after.pathParams[name]];
      if (baseParam && headParam) compareField(baseParam, headParam, `/parameters/${name}`, schemaContext(pair, "request", id, { operation: id }));
      else
        pair.emit(
          headParam ? "request-property-required-added" : "request-property-removed",
          `path parameter ${code(name)} ${headParam ? "added" : "removed"}`,
          where,
        );
    }
  }
}

function compareWebhooks(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.webhookPayloads, (w) => w.name), byKey(pair.head.model.webhookPayloads, (w) => w.name)];
  for (const name of keysOf(base, head)) {
    const [before, after] = [base[name], head[name]];
    const where = pair.at("webhooks.yaml", ["payloads", name], { webhook: name });
    if (!after || !before) {
      pair.emit(after ? "webhook-added" : "webhook-removed", `webhook ${name} (${(before ?? after)!.summary}) ${after ? "added" : "removed"}`, where);
      continue;
    }
    if (before.signatureVersion !== after.signatureVersion)
      pair.emit("webhook-signature-version-changed", `signed with version ${before.signatureVersion} -> ${after.signatureVersion}`, where);
    if (before.schema !== after.schema) {
      const [baseShape, headShape] = [pair.base.model.shapes[before.schema], pair.head.model.shapes[after.schema]];
      if (baseShape && headShape) compareField(baseShape, headShape, "", schemaContext(pair, "response", after.schema, { webhook: name }));
    }
  }
}

function compareSignatures(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.signatures, (s) => s.version), byKey(pair.head.model.signatures, (s) => s.version)];
  for (const version of keysOf(base, head)) {
    const [before, after] = [base[version], head[version]];
    const where = pair.at("webhooks.yaml", ["signatures", version]);
    if (!after || !before) {
      pair.emit(after ? "signature-scheme-added" : "signature-scheme-removed", `signature version ${version} ${after ? "added" : "removed"}`, where);
      continue;
    }
    const [baseHeaders, headHeaders] = [byKey(before.headers, (v) => v.name), byKey(after.headers, (v) => v.name)];
    for (const header of keysOf(baseHeaders, headHeaders)) {
      const [beforeHeader, afterHeader] = [baseHeaders[header], headHeaders[header]];
      const hwhere = pair.at("webhooks.yaml", ["signatures", version, "headers", header]);
      if (!beforeHeader || !afterHeader) {
        pair.emit("signature-header-changed", `version ${version}: header ${header} ${afterHeader ? "added" : "removed"}`, hwhere);
        continue;
      }
      if (beforeHeader.prefix !== afterHeader.prefix)
        pair.emit(
          "signature-header-changed",
          `version ${version}: ${header} prefix ${json(beforeHeader.prefix ?? "")} -> ${json(afterHeader.prefix ?? "")}`,
          hwhere,
        );
      if (beforeHeader.value !== afterHeader.value)
        pair.emit(
          "signature-header-changed",
          `version ${version}: ${header} value ${json(beforeHeader.value ?? "")} -> ${json(afterHeader.value ?? "")}`,
          hwhere,
        );
      if (beforeHeader.digest !== afterHeader.digest)
        pair.emit(
          "signature-digest-changed",
          `version ${version}: ${header} digest ${beforeHeader.digest ?? "none"} -> ${afterHeader.digest ?? "none"}`,
          hwhere,
        );
    }
    if (json(before.receiverMust) !== json(after.receiverMust))
      pair.emit(
        "signature-receiver-rules-changed",
        `version ${version}: receivers must ${before.receiverMust.join("; ") || "(nothing stated)"} -> ${after.receiverMust.join("; ") || "(nothing stated)"}`,
        where,
      );
    if (!before.bodyVariant?.deprecated && after.bodyVariant?.deprecated)
      pair.emit("deprecation-added", `version ${version}: the body variant is deprecated`, where);
    if (before.bodyVariant && !after.bodyVariant) pair.emit("deprecation-removed", `version ${version}: the body variant removed`, where);
  }
  const [baseToleranceMs, headToleranceMs] = [pair.base.model.webhookToleranceMs, pair.head.model.webhookToleranceMs];
  if (baseToleranceMs !== headToleranceMs)
    pair.emit(
      "webhook-tolerance-changed",
      `timestamp tolerance ±${baseToleranceMs / 1000} s -> ±${headToleranceMs / 1000} s`,
      pair.at("limits.yaml", ["limits", "webhookTimestampTolerance"]),
    );
}

/** A transition's identity: where it starts and what triggers it. */
const transitionKey = (t: Model["transitions"][number]) => `${t.from ?? "(none)"} | ${t.trigger}`;

function compareTransitions(pair: Pair): void {
  const index = (m: Model) => m.transitions.map((t, i) => [transitionKey(t), t, i] as const);
  const [base, head] = [index(pair.base.model), index(pair.head.model)];
  const where = (baseIndex: number | undefined, headIndex: number | undefined): Location => ({
    ...(baseIndex !== undefined ? { base: locate(pair.base, "statuses.yaml", ["transitions", baseIndex]) } : {}),
    ...(headIndex !== undefined ? { head: locate(pair.head, "statuses.yaml", ["transitions", headIndex]) } : {}),
  });
  const label = (t: Model["transitions"][number]) => `${t.from ?? "(none)"} --[${t.trigger}]--> ${t.to.length > 0 ? t.to.join("|") : "(not stated)"}`;
  for (const [key, before, baseIndex] of base) {
    const found = head.find(([k]) => k === key);
    if (!found) {
      pair.emit("transition-removed", `${label(before)} removed`, where(baseIndex, undefined));
      continue;
    }
    const [, after, headIndex] = found;
    const lost = before.to.filter((s) => !after.to.includes(s));
    const gained = after.to.filter((s) => !before.to.includes(s));
    if (lost.length > 0)
      pair.emit("transition-target-removed", `${before.from ?? "(none)"} --[${before.trigger}]--> no longer ${lost.join(", ")}`, where(baseIndex, headIndex));
    if (gained.length > 0)
      pair.emit("transition-target-added", `${before.from ?? "(none)"} --[${before.trigger}]--> now also ${gained.join(", ")}`, where(baseIndex, headIndex));
    const { to: _beforeTo, source: _beforeSource, ...beforeRest } = before;
    const { to: _afterTo, source: _afterSource, ...afterRest } = after;
    if (json(sortKeys(beforeRest)) !== json(sortKeys(afterRest)))
      pair.emit("transition-changed", `${label(after)}: ${describeDelta(beforeRest, afterRest)}`, where(baseIndex, headIndex));
  }
  for (const [key, after, headIndex] of head)
    if (!base.some(([k]) => k === key)) pair.emit("transition-added", `${label(after)} added`, where(undefined, headIndex));
}

function sortKeys(record: object): object {
  return Object.fromEntries(
    Object.entries(record)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

function describeDelta(beforeObject: object, afterObject: object): string {
  const [before, after] = [beforeObject as Record<string, unknown>, afterObject as Record<string, unknown>];
  return keysOf(before, after)
    .filter((k) => json(before[k]) !== json(after[k]))
    .map((k) => `${k} ${before[k] === undefined ? "none" : json(before[k])} -> ${after[k] === undefined ? "none" : json(after[k])}`)
    .join("; ");
}

function compareStatuses(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.verificationStatuses, (s) => s.value), byKey(pair.head.model.verificationStatuses, (s) => s.value)];
  for (const value of keysOf(base, head)) {
    const [before, after] = [base[value], head[value]];
    if (before && after && before.outcome !== after.outcome)
      pair.emit(
        "status-outcome-changed",
        `${code(value)}: outcome ${before.outcome} -> ${after.outcome}`,
        pair.at("statuses.yaml", ["verificationStatuses", value, "outcome"]),
      );
  }
  const [baseOutcomes, headOutcomes] = [pair.base.model.outcomes, pair.head.model.outcomes];
  for (const name of keysOf(baseOutcomes, headOutcomes)) {
    const [before, after] = [baseOutcomes[name], headOutcomes[name]];
    if (json(before?.guidance) !== json(after?.guidance))
      pair.emit(
        "status-outcome-changed",
        `receiver guidance for ${name}: ${before ? json(before.guidance) : "none"} -> ${after ? json(after.guidance) : "none"}`,
        pair.at("statuses.yaml", ["outcomes", name]),
      );
  }
  const locks = (model: Model) =>
    model.submissionStatuses
      .filter((s) => s.locksResubmission)
      .map((s) => s.value)
      .join(",");
  if (locks(pair.base.model) !== locks(pair.head.model))
    pair.emit(
      "submission-status-lock-changed",
      `submission statuses that lock resubmission: ${locks(pair.base.model) || "none"} -> ${locks(pair.head.model) || "none"}`,
      pair.at("statuses.yaml", ["submissionStatuses"]),
    );
}

function compareAttempts(pair: Pair): void {
  const [before, after] = [pair.base.model.attempts, pair.head.model.attempts];
  const where = (key: string) => pair.at("statuses.yaml", ["attempts", key]);
  for (const key of ["field", "startsAt", "capField"] as const) {
    if (before[key] !== after[key]) pair.emit("attempt-rule-changed", `attempts.${key} ${json(before[key])} -> ${json(after[key])}`, where(key));
  }
  if (before.observedDefaultCap !== after.observedDefaultCap)
    pair.emit("attempt-default-cap-changed", `default attempt cap ${before.observedDefaultCap} -> ${after.observedDefaultCap}`, where("observedDefaultCap"));
  // The rule sentences restate this data (check/prose.ts keeps them in agreement): reworded with a change
  // of the data, they are that change, reported above; reworded alone, they are reported here.
  const dataChanged = (["field", "startsAt", "capField", "observedDefaultCap"] as const).some((key) => before[key] !== after[key]);
  if (!dataChanged && json(before.rules) !== json(after.rules))
    pair.emit("attempt-rule-changed", `attempt rules: ${describeDelta({ rules: before.rules }, { rules: after.rules })}`, where("rules"));
}

function compareLimits(pair: Pair): void {
  const [base, head] = [pair.base.model.limits, pair.head.model.limits];
  for (const name of keysOf(base, head)) {
    const [before, after] = [base[name], head[name]];
    const where = pair.at("limits.yaml", ["limits", name]);
    if (!before || !after) {
      pair.emit(after ? "limit-added" : "limit-removed", `limit ${name} (${(before ?? after)!.value}) ${after ? "added" : "removed"}`, where);
      continue;
    }
    const numbers = keysOf(before.numbers, after.numbers).filter((k) => before.numbers[k] !== after.numbers[k]);
    if (numbers.length > 0 || before.value !== after.value) {
      const detail = numbers.map((k) => `${k} ${before.numbers[k] ?? "none"} -> ${after.numbers[k] ?? "none"}`);
      pair.emit("limit-changed", `${name}: ${json(before.value)} -> ${json(after.value)}${detail.length ? ` (${detail.join(", ")})` : ""}`, where);
    }
  }
}

function compareErrors(pair: Pair): void {
  const [base, head] = [byKey(pair.base.model.errorTypes, (e) => e.type), byKey(pair.head.model.errorTypes, (e) => e.type)];
  for (const type of keysOf(base, head)) {
    const [before, after] = [base[type], head[type]];
    const where = pair.at("errors.yaml", ["errorTypes", type]);
    if (!before || !after) {
      pair.emit(
        after ? "error-type-added" : "error-type-removed",
        `error ${code(type)} (HTTP ${(before ?? after)!.httpStatus}) ${after ? "added" : "removed"}`,
        where,
      );
      continue;
    }
    if (before.httpStatus !== after.httpStatus) pair.emit("error-status-changed", `${code(type)}: HTTP ${before.httpStatus} -> ${after.httpStatus}`, where);
    if (before.message !== after.message)
      pair.emit("error-message-changed", `${code(type)}: message ${json(before.message ?? null)} -> ${json(after.message ?? null)}`, where);
  }
}

function compareValidationMessages(pair: Pair): void {
  const [base, head] = [pair.base.model.messages, pair.head.model.messages];
  const group = (name: "observed" | "verispec" | "defaults", file: string, path: PathSegment[]) => {
    const beforeGroup = name === "observed" ? byKey(base.observed, (m) => m.id) : base[name];
    const afterGroup = name === "observed" ? byKey(head.observed, (m) => m.id) : head[name];
    const one = (m: typeof beforeGroup, key: string) => (m[key] ? { [key]: m[key] } : {});
    for (const key of keysOf(beforeGroup, afterGroup))
      compareMessages(one(beforeGroup, key), one(afterGroup, key), pair.at(file, [...path, key]), pair.emit, `${name} `);
  };
  group("observed", "errors.yaml", ["validationMessages", "observed"]);
  group("verispec", "errors.yaml", ["validationMessages", "verispec"]);
  group("defaults", "errors.yaml", ["validationMessages", "defaults"]);
  // A rule's messages are reported once at the rule; its constraints, at each field that uses it.
  const [baseRules, headRules] = [pair.base.model.rules, pair.head.model.rules];
  for (const name of keysOf(baseRules, headRules)) {
    const [beforeRule, afterRule] = [baseRules[name], headRules[name]];
    if (beforeRule && afterRule)
      compareMessages(beforeRule.messages, afterRule.messages, { base: beforeRule.pos, head: afterRule.pos }, pair.emit, `rule ${name}: `);
  }
  const [beforeMessage, afterMessage] = [pair.base.model.requiredDocumentMessage, pair.head.model.requiredDocumentMessage];
  if (beforeMessage.id !== afterMessage.id)
    compareMessages({ requiredDocument: beforeMessage }, { requiredDocument: afterMessage }, pair.at("v5.yaml", ["requiredDocumentMessage"]), pair.emit);
}

function compareVersions(pair: Pair): void {
  const [before, after] = [pair.base.model.versions, pair.head.model.versions];
  const pairs: [string, string, PathSegment[]][] = [
    [before.metadataVersion, after.metadataVersion, ["olderInterface", "metadataVersion"]],
    [before.pathPrefix, after.pathPrefix, ["currentInterface", "pathPrefix"]],
    [before.webhookVersion, after.webhookVersion, ["currentInterface", "webhookVersion"]],
  ];
  for (const [bv, hv, path] of pairs)
    if (bv !== hv) pair.emit("interface-version-changed", `${path.join(".")} ${json(bv)} -> ${json(hv)}`, pair.at("versions.yaml", path));
  if (json(before.olderPaths) !== json(after.olderPaths))
    pair.emit(
      "interface-version-changed",
      `older interface paths ${before.olderPaths.join(", ")} -> ${after.olderPaths.join(", ")}`,
      pair.at("versions.yaml", ["olderInterface", "paths"]),
    );
  const [baseDeprecated, headDeprecated] = [before.deprecations.map((d) => d.what), after.deprecations.map((d) => d.what)];
  for (const d of headDeprecated.filter((v) => !baseDeprecated.includes(v)))
    pair.emit("deprecation-added", `deprecated: ${d}`, pair.at("versions.yaml", ["deprecations", headDeprecated.indexOf(d)]));
  for (const d of baseDeprecated.filter((v) => !headDeprecated.includes(v)))
    pair.emit("deprecation-removed", `no longer listed as deprecated: ${d}`, {
      base: locate(pair.base, "versions.yaml", ["deprecations", baseDeprecated.indexOf(d)]),
      head: locate(pair.head, "versions.yaml", ["deprecations"]),
    } as Location);
}

function compareServers(pair: Pair): void {
  const [base, head] = [pair.base.model.servers.map((s) => s.name), pair.head.model.servers.map((s) => s.name)];
  for (const s of base.filter((v) => !head.includes(v))) pair.emit("server-removed", `environment ${s} removed`, pair.at("endpoints.yaml", ["servers"]));
  for (const s of head.filter((v) => !base.includes(v))) pair.emit("server-added", `environment ${s} added`, pair.at("endpoints.yaml", ["servers"]));
}

const RULES: readonly ((pair: Pair) => void)[] = [
  compareShapes,
  compareEntityRequests,
  compareEntityKinds,
  compareRoleSets,
  compareStakeholderTypes,
  compareRequirements,
  compareEndpoints,
  compareWebhooks,
  compareSignatures,
  compareTransitions,
  compareStatuses,
  compareAttempts,
  compareLimits,
  compareErrors,
  compareValidationMessages,
  compareVersions,
  compareServers,
];
