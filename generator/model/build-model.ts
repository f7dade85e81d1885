// Model: turn the checked spec files into the one typed model, resolving every reference. The checks
// (generator/check/) have already proved that every reference resolves and the facts agree; this
// module only builds, so a lookup here is a plain index (`!`).
import { at, rawAt as raw, type At, type Raw } from "../check/context.js";
import { expandPattern, letterClass } from "../check/rules.js";
import { SHAPE_FILES } from "../check/shapes.js";
import { positionOf, specFile, type LoadedSpec, type SpecFile } from "../load/load-spec.js";
import type { PathSegment } from "../pointer.js";
import type {
  Condition, ConditionExpr, Endpoint, EntityBranch, EntityKind, EntityRequest, Field, Limit, Message, Model, RoleSet, Rule,
  NamedCondition, SandboxSpec, Shape, SignatureScheme, Transition, Unknown, V5Requirement, ValueSet, WebhookPayloadDef,
} from "./types.js";

class Context {
  constructor(readonly spec: LoadedSpec) {}
  file(name: string): SpecFile {
    return specFile(this.spec, name);
  }
}

/** The model of a spec that passed checkSpec (generator/check/). */
export function buildModel(spec: LoadedSpec): Model {
  return buildAll(new Context(spec));
}

function buildAll(ctx: Context): Model {
  const countriesFile = ctx.file("countries.yaml");
  const countries = raw({ file: countriesFile, path: [] });
  const iso3 = Object.entries(countries.iso3166Alpha3 as Record<string, string>).map(([code, name]) => ({ code, name }));
  const groups: Record<string, ValueSet & { source: string; description?: string }> = {};
  for (const [name, g] of Object.entries(countries.groups as Record<string, Raw>)) {
    groups[name] = { name, countryGroup: true, source: g.source, description: g.description, values: [...g.countries] };
  }
  const usStates: ValueSet = { name: "usStates", source: countries.usStates.source, description: "2-letter USA state code.", values: [...countries.usStates.codes] };

  const errors = raw({ file: ctx.file("errors.yaml"), path: [] });
  const vm = errors.validationMessages as Raw;
  const msg = (origin: Message["origin"], table: Record<string, Raw>): Record<string, Message> =>
    Object.fromEntries(Object.entries(table).map(([id, m]) => [id, { id, code: m.code, message: m.message, origin }]));
  const observed = msg("observed", vm.observed);
  const verispecMessages = msg("verispec", vm.verispec);
  const defaults = msg("default", vm.defaults);
  const codes = new Set<string>(vm.codes);
  const namedMessages: Record<string, Message> = { ...observed, ...verispecMessages };
  const resolveMessages = (table: Record<string, string> | undefined): Record<string, Message> =>
    Object.fromEntries(Object.entries(table ?? {}).map(([keyword, id]) => [keyword, namedMessages[id]!]));

  const letters = raw({ file: ctx.file("unicode-letters.yaml"), path: [] });
  const letterText = letterClass(letters.ranges);

  const rulesFile = ctx.file("rules.yaml");
  const rules: Record<string, Rule> = {};
  const patternParts = { ...(raw({ file: rulesFile, path: [] }).patternParts ?? {}), unicodeLetter: letterText };
  for (const [name, r] of Object.entries(raw({ file: rulesFile, path: ["rules"] }) as Record<string, Raw>)) {
    const a: At = { file: rulesFile, path: ["rules", name] };
    const pattern = r.pattern === undefined ? undefined : expandPattern(r.pattern, patternParts);
    rules[name] = {
      name, source: r.source, description: r.description, minLength: r.minLength, maxLength: r.maxLength, pattern, format: r.format,
      messages: resolveMessages(r.messages), examples: r.examples ?? [], pos: positionOf(rulesFile, a.path, true),
    };
  }

  const statusesFile = ctx.file("statuses.yaml");
  const statuses = raw({ file: statusesFile, path: [] });
  const verificationStatuses = Object.entries(statuses.verificationStatuses as Record<string, Raw>).map(([value, s]) => ({ value, source: s.source, meaning: s.meaning, outcome: s.outcome, ...(s.onlyWhen ? { onlyWhen: s.onlyWhen } : {}) }));
  const submissionStatuses = Object.entries(statuses.submissionStatuses as Record<string, Raw>).map(([value, s]) => ({
    value, source: s.source, meaning: s.meaning, unknown: s.unknown, locksResubmission: s.locksResubmission === true,
  }));

  const errorTypes = Object.entries(errors.errorTypes as Record<string, Raw>).map(([type, e]) => ({ type, source: e.source, httpStatus: e.httpStatus, message: e.message, condition: e.condition }));

  const valueSets: Record<string, ValueSet> = {
    iso3: { name: "iso3", source: countries.source, description: "ISO 3166-1 alpha-3 country code.", values: iso3.map((c) => c.code) },
    usStates,
    verificationStatuses: { name: "verificationStatuses", source: "3", description: "Verification status.", values: verificationStatuses.map((s) => s.value) },
    olderVerificationStatuses: { name: "olderVerificationStatuses", source: "6.3", description: "Verification status of the older webhook payload.", values: [...statuses.olderVerificationStatuses.values] },
    submissionStatuses: { name: "submissionStatuses", source: "3", description: "Submission status.", values: submissionStatuses.map((s) => s.value) },
    errorTypes: { name: "errorTypes", source: "7", description: "Error type.", values: errorTypes.map((e) => e.type) },
    validationCodes: { name: "validationCodes", source: "7", description: "Validation issue code (Zod 4's codes).", values: [...codes] },
  };
  /** A value set by its spec name: a named one, or "group:<name>" for a country group. */
  const resolveValues = (name: string): ValueSet => (name.startsWith("group:") ? groups[name.slice("group:".length)]! : valueSets[name]!);

  // Field sets and shapes are collected first, so that references between files resolve in any order.
  const fieldSetsFile = ctx.file("fieldsets.yaml");
  const fieldSets = raw({ file: fieldSetsFile, path: ["fieldSets"] }) as Record<string, Raw>;
  const shapeSources: Record<string, At> = {};
  for (const name of SHAPE_FILES) {
    const file = ctx.file(name);
    for (const id of Object.keys((file.data as Raw).shapes ?? {})) shapeSources[id] = { file, path: ["shapes", id] };
  }

  const toField = (a: At, defaultRequired: Field["required"] = "no"): Field => {
    const r = raw(a);
    const rule: Rule | undefined = r.rule !== undefined ? rules[r.rule]! : undefined;
    const properties = r.properties || r.include ? fieldMap(a, r.include, r.properties ? "properties" : undefined) : undefined;
    const when: Condition[] = (r.when ?? []).map((w: Raw, i: number) => {
      const wa = at(a, "when", i);
      const values = w.values !== undefined ? resolveValues(w.values).values : w.equals !== undefined ? [w.equals] : [];
      return { field: w.field, values, source: w.source, properties: fieldMap(wa, undefined, "properties") };
    });
    const type = r.type ?? (rule ? "string" : r.values ? "string" : undefined);
    return {
      pos: positionOf(a.file, a.path, true),
      source: r.source, title: r.title, description: r.description ?? rule?.description, unknown: r.unknown,
      type, required: r.required === true ? "yes" : r.required === "ifPresent" ? "ifPresent" : r.required === false ? "no" : defaultRequired,
      nullable: r.nullable === true, rule, enum: r.enum, const: r.const,
      values: r.values !== undefined ? resolveValues(r.values) : undefined,
      format: r.format, deprecated: r.deprecated === true, secret: r.secret === true, examples: r.examples ?? (rule?.examples.length ? rule.examples : undefined),
      minimum: r.minimum, maximum: r.maximum, properties,
      additionalProperties: typeof r.additionalProperties === "object" ? toField(at(a, "additionalProperties")) : r.additionalProperties,
      items: r.items ? toField(at(a, "items")) : undefined,
      ref: r.ref, when, exactlyOneOf: r.exactlyOneOf,
      oneOf: r.oneOf ? (r.oneOf as Raw[]).map((_, i) => toField(at(a, "oneOf", i))) : undefined,
      discriminator: r.discriminator, selectBy: r.selectBy,
      messages: resolveMessages(r.messages),
      requirements: r.requirements === true, unknownShape: r.unknownShape === true,
      openKeys: r.openKeys === true, onlyIn: r.onlyIn,
    };
  };

  /** Included field sets first, then the map's own fields (which may refine an included one). */
  function fieldMap(a: At, include: string[] | undefined, ownKey?: "fields" | "properties"): Record<string, Field> {
    const out: Record<string, Field> = {};
    for (const setName of include ?? []) {
      const set = fieldSets[setName]!;
      for (const name of Object.keys(set.fields)) out[name] = toField({ file: fieldSetsFile, path: ["fieldSets", setName, "fields", name] });
    }
    for (const name of Object.keys(ownKey ? raw(a)[ownKey] ?? {} : {})) out[name] = toField(at(a, ownKey!, name));
    return out;
  }

  const shapes: Record<string, Shape> = {};
  for (const [id, a] of Object.entries(shapeSources)) shapes[id] = { id, ...toField(a) };

  const stakeholdersFile = ctx.file("stakeholders.yaml");
  const sh = raw({ file: stakeholdersFile, path: [] });
  const stakeholderTypes = Object.entries(sh.types as Record<string, Raw>).map(([name, t]) => ({ name, source: t.source, description: t.description, fields: t.fields }));
  const roleSets: Record<string, RoleSet> = {};
  for (const [name, rs] of Object.entries(sh.roleSets as Record<string, Raw>)) {
    const roles = Object.entries(rs.roles as Record<string, Raw>).map(([role, r]) => ({ name: role, types: [...r.types], required: r.required === true, description: r.description, unknown: r.unknown }));
    roleSets[name] = { name, source: rs.source, description: rs.description, roles, pos: positionOf(stakeholdersFile, ["roleSets", name], true) };
  }

  const entityKinds: EntityKind[] = [];
  for (const file of ctx.spec.files.filter((f) => f.name.startsWith("entities/"))) {
    const e = file.data as Raw;
    const a: At = { file, path: [] };
    const branches: EntityBranch[] = (e.branches as Raw[]).map((b, i) => {
      const ba = at(a, "branches", i);
      const set = b.countries === "iso3" ? valueSets.iso3! : groups[b.countries]!;
      const country: Field = {
        pos: positionOf(file, [...ba.path, "countries"]), source: b.source, type: "string", required: "yes", nullable: false,
        values: set, deprecated: false, secret: false, when: [], messages: {}, requirements: false, unknownShape: false, openKeys: false,
        description: set.values.length === 1 ? `\`${set.values[0]}\`` : b.countries === "iso3" ? "3-letter ISO code (ISO 3166-1 alpha-3)." : `One of the countries of the group ${b.countries}.`,
      };
      const fields = { country, ...fieldMapFromBranch(ba, b) };
      return { name: b.name, source: b.source, countries: set, fields };
    });
    const stakeholders: EntityKind["stakeholders"] = e.stakeholders
      ? { source: e.stakeholders.source, required: e.stakeholders.required, roleSet: roleSets[e.stakeholders.roleSet]! }
      : undefined;
    entityKinds.push({ kind: e.kind, source: e.source, interface: e.interface, title: e.title, description: e.description, unknown: e.unknown, branches, stakeholders, pos: positionOf(file, ["kind"]) });
  }
  function fieldMapFromBranch(ba: At, b: Raw): Record<string, Field> {
    return { ...fieldMap(ba, undefined, "fields"), ...fieldMap(ba, b.include, undefined) };
  }
  entityKinds.sort((x, y) => (x.kind < y.kind ? -1 : x.kind > y.kind ? 1 : 0));

  const olderFile = ctx.file("older.yaml");
  const older = raw({ file: olderFile, path: [] });
  const envelopeFields = fieldMap({ file: olderFile, path: ["envelope"] }, older.envelope.include, "fields");
  const entityRequests: EntityRequest[] = Object.entries(older.entityRequests as Record<string, Raw>).map(([id, r]) => {
    const own = fieldMap({ file: olderFile, path: ["entityRequests", id] }, undefined, r.fields ? "fields" : undefined);
    return { id, source: r.source, title: r.title, description: r.description, interface: r.interface, examples: r.examples ?? [], fields: { ...envelopeFields, ...own } };
  });
  const versions = raw({ file: ctx.file("versions.yaml"), path: [] });

  const v5File = ctx.file("v5.yaml");
  const v5 = raw({ file: v5File, path: [] });
  const v5Requirements: V5Requirement[] = Object.entries(v5.requirements as Record<string, Raw>).map(([type, r]) => ({
    type, source: r.source, addresses: r.addresses ?? [], documents: r.documents ?? [],
    identifiersFor: Object.entries((r.identifiersFor ?? {}) as Record<string, string[]>).map(([groupName, identifiers]) => ({ countries: groups[groupName]!, identifiers })),
  }));
  const requiredDocumentMessage = namedMessages[v5.requiredDocumentMessage]!;

  const limitsFile = ctx.file("limits.yaml");
  const limits: Record<string, Limit> = {};
  for (const [name, l] of Object.entries(raw({ file: limitsFile, path: ["limits"] }) as Record<string, Raw>)) {
    const numbers = Object.fromEntries(Object.entries(l).filter(([, v]) => typeof v === "number")) as Record<string, number>;
    limits[name] = { name, source: l.source, value: l.value, appliesTo: l.appliesTo, rule: l.rule, numbers };
  }

  const webhooksFile = ctx.file("webhooks.yaml");
  const wh = raw({ file: webhooksFile, path: [] });
  const signatures: SignatureScheme[] = Object.entries(wh.signatures as Record<string, Raw>).map(([version, s]) => ({
    version, source: s.source, description: s.description,
    headers: Object.entries(s.headers as Record<string, Raw>).map(([name, h]) => ({ name, ...h })),
    receiverMust: s.receiverMust ?? [], bodyVariant: s.bodyVariant,
  }));
  const tolerance = limits[wh.signatures["2"].toleranceLimit]!.numbers.ms!;
  const webhookPayloads: WebhookPayloadDef[] = Object.entries(wh.payloads as Record<string, Raw>).map(([name, p]) => ({
    name, format: name === "v5" ? "v5" : "older", source: p.source, schema: p.schema, signatureVersion: p.signatureVersion, operationId: p.operationId, summary: p.summary,
  }));

  const endpointsFile = ctx.file("endpoints.yaml");
  const ep = raw({ file: endpointsFile, path: [] });
  const endpoints: Endpoint[] = Object.entries(ep.endpoints as Record<string, Raw>).map(([operationId, e]) => {
    const a: At = { file: endpointsFile, path: ["endpoints", operationId] };
    const declared = Object.keys(e.pathParams ?? {});
    return {
      operationId, source: e.source, method: e.method, path: e.path, auth: e.auth, client: e.client, summary: e.summary,
      description: e.description, unknown: e.unknown, request: e.request,
      pathParams: Object.fromEntries(declared.map((n) => [n, toField(at(a, "pathParams", n), "yes")])),
      responses: e.responses, errors: e.errors ?? [], errorBody: e.errorBody, limits: e.limits ?? [],
    };
  });

  return {
    countries: { iso3, groups, usStates },
    unicodeVersion: letters.unicodeVersion,
    rules,
    patternNotes: { engines: raw({ file: rulesFile, path: [] }).patternNote, portable: raw({ file: rulesFile, path: [] }).portablePatternNote },
    valueSets: Object.values(valueSets),
    messages: {
      codes: [...codes],
      observed: Object.entries(vm.observed as Record<string, Raw>).map(([id, m]) => ({ ...observed[id]!, source: m.source, paths: m.paths ?? [] })),
      defaults, verispec: verispecMessages,
    },
    errorTypes,
    limits,
    verificationStatuses,
    olderVerificationStatuses: valueSets.olderVerificationStatuses!.values,
    submissionStatuses,
    outcomes: statuses.outcomes,
    conditions: buildConditions(statuses),
    transitions: buildTransitions(statuses),
    attempts: statuses.attempts,
    sandbox: buildSandbox(raw({ file: ctx.file("sandbox.yaml"), path: [] })),
    versions: {
      ...(versions.specVersion !== undefined ? { specVersion: versions.specVersion } : {}),
      metadataVersion: versions.olderInterface.metadataVersion,
      olderPaths: versions.olderInterface.paths,
      pathPrefix: versions.currentInterface.pathPrefix,
      webhookVersion: versions.currentInterface.webhookVersion,
      signatureVersions: versions.signatureVersions,
      deprecations: versions.deprecations,
    },
    stakeholderGuidance: sh.guidance.text,
    stakeholderTypes,
    roleSets,
    entityKinds,
    entityRequests,
    shapes,
    v5Requirements,
    requiredDocumentMessage,
    servers: ep.servers,
    auth: ep.auth,
    endpoints,
    delivery: { source: wh.delivery.source, rules: wh.delivery.rules },
    signatures,
    webhookToleranceMs: tolerance,
    webhookPayloads,
    unknowns: collectUnknowns(ctx.spec),
  };
}

/** Every `unknown:` of every file, with the nearest `source:` section above it. */
function collectUnknowns(spec: LoadedSpec): Unknown[] {
  const out: Unknown[] = [];
  for (const file of spec.files) {
    const walk = (v: unknown, path: PathSegment[], source: string | undefined) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i], source));
      else if (v && typeof v === "object") {
        const o = v as Raw;
        // `source` is also an ordinary field name (the /idform answer's), so only a section number counts.
        const here = typeof o.source === "string" && /^[0-9]+(\.[0-9]+)?$/.test(o.source) ? o.source : source;
        if (typeof o.unknown === "string") out.push({ source: here ?? "", text: o.unknown, pos: positionOf(file, [...path, "unknown"]) });
        for (const [k, x] of Object.entries(o)) if (k !== "unknown") walk(x, [...path, k], here);
      }
    };
    walk(file.data, [], undefined);
  }
  return out;
}

/** A condition as data, without the `source`/`text` of a named one (checked by check/transitions.ts). */
function conditionExpr(raw: Raw): ConditionExpr {
  const { source: _source, text: _text, ...expr } = raw;
  if (expr.all) return { all: (expr.all as Raw[]).map(conditionExpr) };
  if (expr.any) return { any: (expr.any as Raw[]).map(conditionExpr) };
  if (expr.not) return { not: conditionExpr(expr.not) };
  return expr as ConditionExpr;
}

function buildConditions(statuses: Raw): Record<string, NamedCondition> {
  return Object.fromEntries(
    Object.entries(statuses.conditions as Record<string, Raw>).map(([name, c]) => [name, { name, source: c.source, text: c.text, expr: conditionExpr(c) }]),
  );
}

function buildTransitions(statuses: Raw): Transition[] {
  return (statuses.transitions as Raw[]).map((t) => ({
    // The condition's text has one home: the named condition `when` refers to (check/prose.ts VS435).
    ...(t.id ? { id: t.id } : {}), source: t.source, from: t.from, trigger: t.trigger, condition: t.condition ?? statuses.conditions?.[t.when?.ref]?.text, to: [...t.to],
    ...(t.when ? { when: conditionExpr(t.when) } : {}), ...(t.effects ? { effects: t.effects } : {}), ...(t.error ? { error: t.error } : {}),
    alsoHappens: t.alsoHappens, unknown: t.unknown,
  }));
}

function buildSandbox(sb: Raw): SandboxSpec {
  return { choices: sb.choices, testValues: sb.testValues };
}
