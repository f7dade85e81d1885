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
    const b = locate(base, file, path);
    const h = locate(head, file, path);
    return { ...extra, ...(b ? { base: b } : {}), ...(h ? { head: h } : {}) };
  };
  const p: Pair = { base, head, emit, at };
  for (const rule of RULES) rule(p);
  return sortFindings(dedupe(findings));
}

function schemaContext(p: Pair, direction: Direction, schema: string, use: Omit<Use, "direction">): SchemaContext {
  return { base: p.base.model, head: p.head.model, emit: p.emit, direction, schema, seen: new Set(), definedAt: (set) => definitionOf(p.head, set), ...use };
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

function compareShapes(p: Pair): void {
  const [b, h] = [p.base.model, p.head.model];
  const [bu, hu] = [shapeUses(b), shapeUses(h)];
  for (const id of keysOf(b.shapes, h.shapes)) {
    const [bs, hs] = [b.shapes[id], h.shapes[id]];
    if (!hs) {
      p.emit("schema-removed", `schema ${code(id)} removed`, { schema: id, base: bs!.pos });
      continue;
    }
    if (!bs) {
      p.emit("schema-added", `schema ${code(id)} added`, { schema: id, head: hs.pos });
      continue;
    }
    const uses = new Map<Direction, Use>();
    for (const u of [...(hu.get(id) ?? []), ...(bu.get(id) ?? [])]) if (!uses.has(u.direction)) uses.set(u.direction, u);
    if (uses.size === 0) uses.set("response", { direction: "response" });
    for (const [direction, use] of uses) {
      const { direction: _, ...where } = use;
      compareField(bs, hs, "", schemaContext(p, direction, id, where));
    }
  }
}

function compareEntityRequests(p: Pair): void {
  const [b, h] = [byKey(p.base.model.entityRequests, (r) => r.id), byKey(p.head.model.entityRequests, (r) => r.id)];
  for (const id of keysOf(b, h)) {
    const [br, hr] = [b[id], h[id]];
    if (!br || !hr) {
      p.emit(
        br ? "schema-removed" : "schema-added",
        `schema ${code(id)} ${br ? "removed" : "added"}`,
        p.at("older.yaml", ["entityRequests", id], { schema: id }),
      );
      continue;
    }
    const op = p.head.model.endpoints.find((e) => e.request === id)?.operationId;
    const ctx = schemaContext(p, "request", id, op ? { operation: op } : {});
    const pos = p.at("older.yaml", ["entityRequests", id]);
    compareProperties(br.fields, hr.fields, "", ctx, { base: pos.base!, head: pos.head! });
  }
}

function compareEntityKinds(p: Pair): void {
  const [b, h] = [byKey(p.base.model.entityKinds, (k) => k.kind), byKey(p.head.model.entityKinds, (k) => k.kind)];
  for (const kind of keysOf(b, h)) {
    const [bk, hk] = [b[kind], h[kind]];
    const schema = entitySchemaId(kind);
    const use = operationOfInterface((hk ? p.head : p.base).model, (hk ?? bk)!.interface);
    if (!hk) {
      p.emit("entity-kind-removed", `entity kind ${code(kind)} removed`, { schema, base: bk!.pos, ...use });
      continue;
    }
    if (!bk) {
      p.emit("entity-kind-added", `entity kind ${code(kind)} added`, { schema, head: hk.pos, ...use });
      continue;
    }
    const ctx = schemaContext(p, "request", schema, use);
    const hb = hk.branches.map((x) => x.name);
    bk.branches.forEach((branch, i) => {
      const j = hb.indexOf(branch.name);
      const path = `/properties/fields/oneOf/${j >= 0 ? j : i}`;
      if (j < 0) {
        p.emit("entity-branch-removed", `${code(kind)} branch ${branch.name} (${branch.countries.values.join(", ")}) removed`, {
          schema,
          path,
          base: branch.fields.country?.pos ?? bk.pos,
          head: hk.pos,
          ...use,
        });
        return;
      }
      const hbr = hk.branches[j]!;
      compareProperties(branch.fields, hbr.fields, path, ctx, { base: branch.fields.country?.pos ?? bk.pos, head: hbr.fields.country?.pos ?? hk.pos });
    });
    hk.branches.forEach((branch, j) => {
      if (!bk.branches.some((x) => x.name === branch.name)) {
        p.emit("entity-branch-added", `${code(kind)} branch ${branch.name} (${branch.countries.values.join(", ")}) added`, {
          schema,
          path: `/properties/fields/oneOf/${j}`,
          base: bk.pos,
          head: branch.fields.country?.pos ?? hk.pos,
          ...use,
        });
      }
    });
    compareStakeholders(p, bk, hk, { schema, path: "/properties/stakeholders", ...use });
  }
}

function compareStakeholders(p: Pair, bk: EntityKind, hk: EntityKind, where: Location): void {
  const [bs, hs] = [bk.stakeholders, hk.stakeholders];
  const loc = { ...where, base: bs?.roleSet.pos ?? bk.pos, head: hs?.roleSet.pos ?? hk.pos };
  if (Boolean(bs?.required) !== Boolean(hs?.required))
    p.emit(
      hs?.required ? "stakeholders-became-required" : "stakeholders-became-optional",
      `${code(hk.kind)}: stakeholders ${hs?.required ? "now required" : "no longer required"}`,
      loc,
    );
  if (!bs || !hs) {
    if (bs) p.emit("role-removed", `${code(hk.kind)} no longer takes stakeholders`, loc);
    if (hs) p.emit("role-added", `${code(hk.kind)} now takes stakeholders (roles ${hs.roleSet.roles.map((r) => r.name).join(", ")})`, loc);
    return;
  }
  // The same role set is compared once on its own (compareRoleSets); another one, here.
  if (bs.roleSet.name !== hs.roleSet.name) compareRoles(p, bs.roleSet.roles, hs.roleSet.roles, `${code(hk.kind)}`, loc);
}

function compareRoles(p: Pair, br: readonly Role[], hr: readonly Role[], label: string, where: Location): void {
  const [b, h] = [byKey(br, (r) => r.name), byKey(hr, (r) => r.name)];
  for (const name of keysOf(b, h)) {
    const [x, y] = [b[name], h[name]];
    if (!y) p.emit("role-removed", `${label}: role ${code(name)} removed`, where);
    else if (!x) p.emit(y.required ? "role-became-required" : "role-added", `${label}: role ${code(name)} added${y.required ? " as required" : ""}`, where);
    else {
      if (x.required !== y.required)
        p.emit(
          y.required ? "role-became-required" : "role-became-optional",
          `${label}: role ${code(name)} ${y.required ? "now required" : "no longer required"}`,
          where,
        );
      const lost = x.types.filter((t) => !y.types.includes(t));
      const gained = y.types.filter((t) => !x.types.includes(t));
      if (lost.length > 0) p.emit("role-type-removed", `${label}: role ${code(name)} no longer takes ${lost.join(", ")}`, where);
      if (gained.length > 0) p.emit("role-type-added", `${label}: role ${code(name)} now takes ${gained.join(", ")}`, where);
    }
  }
}

function compareRoleSets(p: Pair): void {
  const [b, h] = [p.base.model.roleSets, p.head.model.roleSets];
  for (const name of keysOf(b, h)) {
    const [x, y] = [b[name], h[name]];
    if (!x || !y) continue; // a role set on its own is not an interface; the entity kinds that use it report
    const kinds = p.head.model.entityKinds.filter((k) => k.stakeholders?.roleSet.name === name).map((k) => k.kind);
    const first = kinds[0];
    const use = first ? operationOfInterface(p.head.model, p.head.model.entityKinds.find((k) => k.kind === first)!.interface) : {};
    const where: Location = { ...(first ? { schema: entitySchemaId(first), path: "/properties/stakeholders" } : {}), ...use, base: x.pos, head: y.pos };
    compareRoles(p, x.roles, y.roles, kinds.length > 0 ? kinds.map(code).join(", ") : `role set ${name}`, where);
  }
}

function compareStakeholderTypes(p: Pair): void {
  const [b, h] = [p.base.model.stakeholderTypes.map((t) => t.name), p.head.model.stakeholderTypes.map((t) => t.name)];
  const lost = b.filter((t) => !h.includes(t));
  const gained = h.filter((t) => !b.includes(t));
  const where = p.at("stakeholders.yaml", ["types"], operationOfInterface(p.head.model, "verify"));
  if (lost.length > 0) p.emit("request-enum-value-removed", `stakeholder types removed: ${lost.map(code).join(", ")}`, where);
  if (gained.length > 0) p.emit("request-enum-value-added", `stakeholder types added: ${gained.map(code).join(", ")}`, where);
}

function compareRequirements(p: Pair): void {
  const [b, h] = [byKey(p.base.model.v5Requirements, (r) => r.type), byKey(p.head.model.v5Requirements, (r) => r.type)];
  const list = (r: Model["v5Requirements"][number] | undefined) =>
    r
      ? [
          ...r.addresses.map((a) => `address ${a}`),
          ...r.documents.map((d) => `document ${d}`),
          ...r.identifiersFor.flatMap((g) => g.identifiers.map((i) => `identifier ${i} for ${g.countries.values.join("/")}`)),
        ]
      : [];
  const op = p.head.model.endpoints.find((e) => e.request === "v5.VerificationCreateRequest")?.operationId;
  for (const type of keysOf(b, h)) {
    const [x, y] = [list(b[type]), list(h[type])];
    const where = p.at("v5.yaml", ["requirements", type], { schema: "v5.VerificationCreateRequest", path: "/allOf", ...(op ? { operation: op } : {}) });
    for (const r of y.filter((v) => !x.includes(v))) p.emit("requirement-added", `type ${code(type)} now requires ${r}`, where);
    for (const r of x.filter((v) => !y.includes(v))) p.emit("requirement-removed", `type ${code(type)} no longer requires ${r}`, where);
  }
}

function compareEndpoints(p: Pair): void {
  const [b, h] = [byKey(p.base.model.endpoints, (e) => e.operationId), byKey(p.head.model.endpoints, (e) => e.operationId)];
  for (const id of keysOf(b, h)) {
    const [x, y] = [b[id], h[id]];
    const where = p.at("endpoints.yaml", ["endpoints", id], { operation: id });
    const name = (e: NonNullable<typeof x>) => `${e.method} ${e.path ?? "(path not shown)"}`;
    if (!y) {
      p.emit("operation-removed", `${name(x!)} (${id}) removed`, where);
      continue;
    }
    if (!x) {
      p.emit("operation-added", `${name(y)} (${id}) added`, where);
      continue;
    }
    if (x.method !== y.method || x.path !== y.path) p.emit("operation-path-changed", `${name(x)} -> ${name(y)}`, where);
    if (x.auth !== y.auth) p.emit("operation-auth-changed", `authentication ${x.auth} -> ${y.auth}`, where);
    if (x.request !== y.request) p.emit("operation-request-changed", `request body ${x.request ?? "none"} -> ${y.request ?? "none"}`, where);
    for (const status of keysOf(x.responses, y.responses)) {
      const [xs, ys] = [x.responses[status], y.responses[status]];
      if (xs !== ys)
        p.emit(
          ys ? (xs ? "operation-response-changed" : "operation-response-added") : "operation-response-changed",
          `response ${status}: ${xs ?? "none"} -> ${ys ?? "none"}`,
          where,
        );
    }
    if (x.errorBody !== y.errorBody) p.emit("operation-response-changed", `error body ${x.errorBody} -> ${y.errorBody}`, where);
    for (const e of y.errors.filter((v) => !x.errors.includes(v))) p.emit("operation-error-added", `may now return error ${code(e)}`, where);
    for (const e of x.errors.filter((v) => !y.errors.includes(v))) p.emit("operation-error-removed", `no longer returns error ${code(e)}`, where);
    if (json(x.limits) !== json(y.limits))
      p.emit("limit-changed", `limits that apply: ${x.limits.join(", ") || "none"} -> ${y.limits.join(", ") || "none"}`, where);
    for (const name of keysOf(x.pathParams, y.pathParams)) {
      const [bf, hf] = [x.pathParams[name], y.pathParams[name]];
      if (bf && hf) compareField(bf, hf, `/parameters/${name}`, schemaContext(p, "request", id, { operation: id }));
      else p.emit(hf ? "request-property-required-added" : "request-property-removed", `path parameter ${code(name)} ${hf ? "added" : "removed"}`, where);
    }
  }
}

function compareWebhooks(p: Pair): void {
  const [b, h] = [byKey(p.base.model.webhookPayloads, (w) => w.name), byKey(p.head.model.webhookPayloads, (w) => w.name)];
  for (const name of keysOf(b, h)) {
    const [x, y] = [b[name], h[name]];
    const where = p.at("webhooks.yaml", ["payloads", name], { webhook: name });
    if (!y || !x) {
      p.emit(y ? "webhook-added" : "webhook-removed", `webhook ${name} (${(x ?? y)!.summary}) ${y ? "added" : "removed"}`, where);
      continue;
    }
    if (x.signatureVersion !== y.signatureVersion)
      p.emit("webhook-signature-version-changed", `signed with version ${x.signatureVersion} -> ${y.signatureVersion}`, where);
    if (x.schema !== y.schema) {
      const [bs, hs] = [p.base.model.shapes[x.schema], p.head.model.shapes[y.schema]];
      if (bs && hs) compareField(bs, hs, "", schemaContext(p, "response", y.schema, { webhook: name }));
    }
  }
}

function compareSignatures(p: Pair): void {
  const [b, h] = [byKey(p.base.model.signatures, (s) => s.version), byKey(p.head.model.signatures, (s) => s.version)];
  for (const version of keysOf(b, h)) {
    const [x, y] = [b[version], h[version]];
    const where = p.at("webhooks.yaml", ["signatures", version]);
    if (!y || !x) {
      p.emit(y ? "signature-scheme-added" : "signature-scheme-removed", `signature version ${version} ${y ? "added" : "removed"}`, where);
      continue;
    }
    const [bh, hh] = [byKey(x.headers, (v) => v.name), byKey(y.headers, (v) => v.name)];
    for (const header of keysOf(bh, hh)) {
      const [xh, yh] = [bh[header], hh[header]];
      const hwhere = p.at("webhooks.yaml", ["signatures", version, "headers", header]);
      if (!xh || !yh) {
        p.emit("signature-header-changed", `version ${version}: header ${header} ${yh ? "added" : "removed"}`, hwhere);
        continue;
      }
      if (xh.prefix !== yh.prefix)
        p.emit("signature-header-changed", `version ${version}: ${header} prefix ${json(xh.prefix ?? "")} -> ${json(yh.prefix ?? "")}`, hwhere);
      if (xh.value !== yh.value)
        p.emit("signature-header-changed", `version ${version}: ${header} value ${json(xh.value ?? "")} -> ${json(yh.value ?? "")}`, hwhere);
      if (xh.digest !== yh.digest)
        p.emit("signature-digest-changed", `version ${version}: ${header} digest ${xh.digest ?? "none"} -> ${yh.digest ?? "none"}`, hwhere);
    }
    if (json(x.receiverMust) !== json(y.receiverMust))
      p.emit(
        "signature-receiver-rules-changed",
        `version ${version}: receivers must ${x.receiverMust.join("; ") || "(nothing stated)"} -> ${y.receiverMust.join("; ") || "(nothing stated)"}`,
        where,
      );
    if (!x.bodyVariant?.deprecated && y.bodyVariant?.deprecated) p.emit("deprecation-added", `version ${version}: the body variant is deprecated`, where);
    if (x.bodyVariant && !y.bodyVariant) p.emit("deprecation-removed", `version ${version}: the body variant removed`, where);
  }
  const [bt, ht] = [p.base.model.webhookToleranceMs, p.head.model.webhookToleranceMs];
  if (bt !== ht)
    p.emit("webhook-tolerance-changed", `timestamp tolerance ±${bt / 1000} s -> ±${ht / 1000} s`, p.at("limits.yaml", ["limits", "webhookTimestampTolerance"]));
}

/** A transition's identity: where it starts and what triggers it. */
const transitionKey = (t: Model["transitions"][number]) => `${t.from ?? "(none)"} | ${t.trigger}`;

function compareTransitions(p: Pair): void {
  const index = (m: Model) => m.transitions.map((t, i) => [transitionKey(t), t, i] as const);
  const [b, h] = [index(p.base.model), index(p.head.model)];
  const where = (bi: number | undefined, hi: number | undefined): Location => ({
    ...(bi !== undefined ? { base: locate(p.base, "statuses.yaml", ["transitions", bi]) } : {}),
    ...(hi !== undefined ? { head: locate(p.head, "statuses.yaml", ["transitions", hi]) } : {}),
  });
  const label = (t: Model["transitions"][number]) => `${t.from ?? "(none)"} --[${t.trigger}]--> ${t.to.length > 0 ? t.to.join("|") : "(not stated)"}`;
  for (const [key, x, bi] of b) {
    const found = h.find(([k]) => k === key);
    if (!found) {
      p.emit("transition-removed", `${label(x)} removed`, where(bi, undefined));
      continue;
    }
    const [, y, hi] = found;
    const lost = x.to.filter((s) => !y.to.includes(s));
    const gained = y.to.filter((s) => !x.to.includes(s));
    if (lost.length > 0) p.emit("transition-target-removed", `${x.from ?? "(none)"} --[${x.trigger}]--> no longer ${lost.join(", ")}`, where(bi, hi));
    if (gained.length > 0) p.emit("transition-target-added", `${x.from ?? "(none)"} --[${x.trigger}]--> now also ${gained.join(", ")}`, where(bi, hi));
    const { to: _x, source: _xs, ...xr } = x;
    const { to: _y, source: _ys, ...yr } = y;
    if (json(sortKeys(xr)) !== json(sortKeys(yr))) p.emit("transition-changed", `${label(y)}: ${describeDelta(xr, yr)}`, where(bi, hi));
  }
  for (const [key, y, hi] of h) if (!b.some(([k]) => k === key)) p.emit("transition-added", `${label(y)} added`, where(undefined, hi));
}

function sortKeys(o: object): object {
  return Object.fromEntries(
    Object.entries(o)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

function describeDelta(x: object, y: object): string {
  const [a, b] = [x as Record<string, unknown>, y as Record<string, unknown>];
  return keysOf(a, b)
    .filter((k) => json(a[k]) !== json(b[k]))
    .map((k) => `${k} ${a[k] === undefined ? "none" : json(a[k])} -> ${b[k] === undefined ? "none" : json(b[k])}`)
    .join("; ");
}

function compareStatuses(p: Pair): void {
  const [b, h] = [byKey(p.base.model.verificationStatuses, (s) => s.value), byKey(p.head.model.verificationStatuses, (s) => s.value)];
  for (const value of keysOf(b, h)) {
    const [x, y] = [b[value], h[value]];
    if (x && y && x.outcome !== y.outcome)
      p.emit(
        "status-outcome-changed",
        `${code(value)}: outcome ${x.outcome} -> ${y.outcome}`,
        p.at("statuses.yaml", ["verificationStatuses", value, "outcome"]),
      );
  }
  const [bo, ho] = [p.base.model.outcomes, p.head.model.outcomes];
  for (const name of keysOf(bo, ho)) {
    const [x, y] = [bo[name], ho[name]];
    if (json(x?.guidance) !== json(y?.guidance))
      p.emit(
        "status-outcome-changed",
        `receiver guidance for ${name}: ${x ? json(x.guidance) : "none"} -> ${y ? json(y.guidance) : "none"}`,
        p.at("statuses.yaml", ["outcomes", name]),
      );
  }
  const locks = (m: Model) =>
    m.submissionStatuses
      .filter((s) => s.locksResubmission)
      .map((s) => s.value)
      .join(",");
  if (locks(p.base.model) !== locks(p.head.model))
    p.emit(
      "submission-status-lock-changed",
      `submission statuses that lock resubmission: ${locks(p.base.model) || "none"} -> ${locks(p.head.model) || "none"}`,
      p.at("statuses.yaml", ["submissionStatuses"]),
    );
}

function compareAttempts(p: Pair): void {
  const [x, y] = [p.base.model.attempts, p.head.model.attempts];
  const where = (key: string) => p.at("statuses.yaml", ["attempts", key]);
  for (const key of ["field", "startsAt", "capField"] as const) {
    if (x[key] !== y[key]) p.emit("attempt-rule-changed", `attempts.${key} ${json(x[key])} -> ${json(y[key])}`, where(key));
  }
  if (x.observedDefaultCap !== y.observedDefaultCap)
    p.emit("attempt-default-cap-changed", `default attempt cap ${x.observedDefaultCap} -> ${y.observedDefaultCap}`, where("observedDefaultCap"));
  // The rule sentences restate this data (check/prose.ts keeps them in agreement): reworded with a change
  // of the data, they are that change, reported above; reworded alone, they are reported here.
  const dataChanged = (["field", "startsAt", "capField", "observedDefaultCap"] as const).some((key) => x[key] !== y[key]);
  if (!dataChanged && json(x.rules) !== json(y.rules))
    p.emit("attempt-rule-changed", `attempt rules: ${describeDelta({ rules: x.rules }, { rules: y.rules })}`, where("rules"));
}

function compareLimits(p: Pair): void {
  const [b, h] = [p.base.model.limits, p.head.model.limits];
  for (const name of keysOf(b, h)) {
    const [x, y] = [b[name], h[name]];
    const where = p.at("limits.yaml", ["limits", name]);
    if (!x || !y) {
      p.emit(y ? "limit-added" : "limit-removed", `limit ${name} (${(x ?? y)!.value}) ${y ? "added" : "removed"}`, where);
      continue;
    }
    const numbers = keysOf(x.numbers, y.numbers).filter((k) => x.numbers[k] !== y.numbers[k]);
    if (numbers.length > 0 || x.value !== y.value) {
      const detail = numbers.map((k) => `${k} ${x.numbers[k] ?? "none"} -> ${y.numbers[k] ?? "none"}`);
      p.emit("limit-changed", `${name}: ${json(x.value)} -> ${json(y.value)}${detail.length ? ` (${detail.join(", ")})` : ""}`, where);
    }
  }
}

function compareErrors(p: Pair): void {
  const [b, h] = [byKey(p.base.model.errorTypes, (e) => e.type), byKey(p.head.model.errorTypes, (e) => e.type)];
  for (const type of keysOf(b, h)) {
    const [x, y] = [b[type], h[type]];
    const where = p.at("errors.yaml", ["errorTypes", type]);
    if (!x || !y) {
      p.emit(y ? "error-type-added" : "error-type-removed", `error ${code(type)} (HTTP ${(x ?? y)!.httpStatus}) ${y ? "added" : "removed"}`, where);
      continue;
    }
    if (x.httpStatus !== y.httpStatus) p.emit("error-status-changed", `${code(type)}: HTTP ${x.httpStatus} -> ${y.httpStatus}`, where);
    if (x.message !== y.message) p.emit("error-message-changed", `${code(type)}: message ${json(x.message ?? null)} -> ${json(y.message ?? null)}`, where);
  }
}

function compareValidationMessages(p: Pair): void {
  const [b, h] = [p.base.model.messages, p.head.model.messages];
  const group = (name: "observed" | "verispec" | "defaults", file: string, path: PathSegment[]) => {
    const x = name === "observed" ? byKey(b.observed, (m) => m.id) : b[name];
    const y = name === "observed" ? byKey(h.observed, (m) => m.id) : h[name];
    const one = (m: typeof x, key: string) => (m[key] ? { [key]: m[key] } : {});
    for (const key of keysOf(x, y)) compareMessages(one(x, key), one(y, key), p.at(file, [...path, key]), p.emit, `${name} `);
  };
  group("observed", "errors.yaml", ["validationMessages", "observed"]);
  group("verispec", "errors.yaml", ["validationMessages", "verispec"]);
  group("defaults", "errors.yaml", ["validationMessages", "defaults"]);
  // A rule's messages are reported once at the rule; its constraints, at each field that uses it.
  const [br, hr] = [p.base.model.rules, p.head.model.rules];
  for (const name of keysOf(br, hr)) {
    const [x, y] = [br[name], hr[name]];
    if (x && y) compareMessages(x.messages, y.messages, { base: x.pos, head: y.pos }, p.emit, `rule ${name}: `);
  }
  const [x, y] = [p.base.model.requiredDocumentMessage, p.head.model.requiredDocumentMessage];
  if (x.id !== y.id) compareMessages({ requiredDocument: x }, { requiredDocument: y }, p.at("v5.yaml", ["requiredDocumentMessage"]), p.emit);
}

function compareVersions(p: Pair): void {
  const [x, y] = [p.base.model.versions, p.head.model.versions];
  const pairs: [string, string, PathSegment[]][] = [
    [x.metadataVersion, y.metadataVersion, ["olderInterface", "metadataVersion"]],
    [x.pathPrefix, y.pathPrefix, ["currentInterface", "pathPrefix"]],
    [x.webhookVersion, y.webhookVersion, ["currentInterface", "webhookVersion"]],
  ];
  for (const [bv, hv, path] of pairs)
    if (bv !== hv) p.emit("interface-version-changed", `${path.join(".")} ${json(bv)} -> ${json(hv)}`, p.at("versions.yaml", path));
  if (json(x.olderPaths) !== json(y.olderPaths))
    p.emit(
      "interface-version-changed",
      `older interface paths ${x.olderPaths.join(", ")} -> ${y.olderPaths.join(", ")}`,
      p.at("versions.yaml", ["olderInterface", "paths"]),
    );
  const [bd, hd] = [x.deprecations.map((d) => d.what), y.deprecations.map((d) => d.what)];
  for (const d of hd.filter((v) => !bd.includes(v))) p.emit("deprecation-added", `deprecated: ${d}`, p.at("versions.yaml", ["deprecations", hd.indexOf(d)]));
  for (const d of bd.filter((v) => !hd.includes(v)))
    p.emit("deprecation-removed", `no longer listed as deprecated: ${d}`, {
      base: locate(p.base, "versions.yaml", ["deprecations", bd.indexOf(d)]),
      head: locate(p.head, "versions.yaml", ["deprecations"]),
    } as Location);
}

function compareServers(p: Pair): void {
  const [b, h] = [p.base.model.servers.map((s) => s.name), p.head.model.servers.map((s) => s.name)];
  for (const s of b.filter((v) => !h.includes(v))) p.emit("server-removed", `environment ${s} removed`, p.at("endpoints.yaml", ["servers"]));
  for (const s of h.filter((v) => !b.includes(v))) p.emit("server-added", `environment ${s} added`, p.at("endpoints.yaml", ["servers"]));
}

const RULES: readonly ((p: Pair) => void)[] = [
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
