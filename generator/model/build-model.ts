// Model: turn the checked spec files into the one typed model, resolving every reference. A reference
// that does not resolve (a rule, a country group, a shape, a stakeholder type...) is a diagnostic with
// the position of the reference itself.
import { describeValue, SpecError, type Diagnostic } from "../diagnostics.js";
import { positionOf, type LoadedSpec, type PathSegment, type SpecFile } from "../load/load-spec.js";
import type {
  Condition, Endpoint, EntityBranch, EntityKind, EntityRequest, Field, Limit, Message, Model, RoleSet, Rule,
  Shape, SignatureScheme, Unknown, V5Requirement, ValueSet,
} from "./types.js";

type Raw = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- shapes are guaranteed by the meta-schema

/** Where a raw value came from, for diagnostics. */
interface At {
  readonly file: SpecFile;
  readonly path: readonly PathSegment[];
}

class Context {
  readonly diagnostics: Diagnostic[] = [];
  constructor(readonly spec: LoadedSpec) {}

  file(name: string): SpecFile {
    const f = this.spec.files.find((x) => x.name === name);
    if (!f) throw new SpecError([{ pos: { file: `spec/${name}`, line: 1, col: 1 }, found: "no such file", expected: `the spec file spec/${name}` }]);
    return f;
  }

  report(at: At, found: string, expected: string, key = false): void {
    this.diagnostics.push({ pos: positionOf(at.file, at.path, key), found, expected });
  }
}

const at = (a: At, ...more: PathSegment[]): At => ({ file: a.file, path: [...a.path, ...more] });
const raw = (a: At): Raw => {
  let v: unknown = a.file.data;
  for (const s of a.path) v = (v as Raw)[s as string];
  return v as Raw;
};
const list = (names: Iterable<string>): string => [...names].map((n) => `\`${n}\``).join(", ");

export function buildModel(spec: LoadedSpec): Model {
  const ctx = new Context(spec);
  const model = buildAll(ctx);
  if (ctx.diagnostics.length > 0) throw new SpecError(ctx.diagnostics);
  return model;
}

function buildAll(ctx: Context): Model {
  const countriesFile = ctx.file("countries.yaml");
  const countries = raw({ file: countriesFile, path: [] });
  const iso3 = Object.entries(countries.iso3166Alpha3 as Record<string, string>).map(([code, name]) => ({ code, name }));
  const iso3Codes = new Set(iso3.map((c) => c.code));
  const groups: Record<string, ValueSet & { seed: string; description?: string }> = {};
  for (const [name, g] of Object.entries(countries.groups as Record<string, Raw>)) {
    (g.countries as string[]).forEach((code, i) => {
      if (!iso3Codes.has(code)) ctx.report({ file: countriesFile, path: ["groups", name, "countries", i] }, `the country ${JSON.stringify(code)}`, "an ISO 3166-1 alpha-3 code of iso3166Alpha3");
    });
    groups[name] = { name: `group:${name}`, seed: g.seed, description: g.description, values: [...g.countries] };
  }
  const usStates: ValueSet = { name: "usStates", seed: countries.usStates.seed, description: "2-letter USA state code.", values: [...countries.usStates.codes] };

  const errors = raw({ file: ctx.file("errors.yaml"), path: [] });
  const vm = errors.validationMessages as Raw;
  const msg = (origin: Message["origin"], table: Record<string, Raw>): Record<string, Message> =>
    Object.fromEntries(Object.entries(table).map(([id, m]) => [id, { id, code: m.code, message: m.message, origin }]));
  const observed = msg("observed", vm.observed);
  const verispecMessages = msg("verispec", vm.verispec);
  const defaults = msg("default", vm.defaults);
  const codes = new Set<string>(vm.codes);
  for (const [table, entries] of [["observed", vm.observed], ["defaults", vm.defaults], ["verispec", vm.verispec]] as const) {
    for (const [id, m] of Object.entries(entries as Record<string, Raw>)) {
      if (!codes.has(m.code)) ctx.report({ file: ctx.file("errors.yaml"), path: ["validationMessages", table, id, "code"] }, `the code ${JSON.stringify(m.code)}`, `one of the codes ${list(codes)}`);
    }
  }
  const namedMessages: Record<string, Message> = { ...observed, ...verispecMessages };
  const resolveMessages = (table: Record<string, string> | undefined, a: At): Record<string, Message> => {
    const out: Record<string, Message> = {};
    for (const [keyword, id] of Object.entries(table ?? {})) {
      const m = namedMessages[id];
      if (m) out[keyword] = m;
      else ctx.report(at(a, keyword), `the message ${JSON.stringify(id)}`, `a message of errors.yaml (observed or verispec): ${list(Object.keys(namedMessages))}`);
    }
    return out;
  };

  const letters = raw({ file: ctx.file("unicode-letters.yaml"), path: [] });
  const letterClass = (letters.ranges as string[]).map(renderRange).join("");

  const rulesFile = ctx.file("rules.yaml");
  const rules: Record<string, Rule> = {};
  for (const [name, r] of Object.entries(raw({ file: rulesFile, path: ["rules"] }) as Record<string, Raw>)) {
    const a: At = { file: rulesFile, path: ["rules", name] };
    let pattern: string | undefined = r.pattern;
    if (pattern !== undefined) {
      pattern = pattern.replaceAll("{unicodeLetter}", letterClass);
      const leftover = /\{[A-Za-z]+\}/.exec(pattern);
      if (leftover) ctx.report(at(a, "pattern"), `the placeholder ${leftover[0]}`, "only {unicodeLetter}");
      try {
        new RegExp(pattern, "u");
      } catch {
        ctx.report(at(a, "pattern"), describeValue(r.pattern), "a regular expression valid in ECMA-262 with the u flag");
      }
    }
    if (r.minLength !== undefined && r.maxLength !== undefined && r.minLength > r.maxLength) {
      ctx.report(at(a, "maxLength"), `maxLength ${r.maxLength} below minLength ${r.minLength}`, "maxLength >= minLength");
    }
    rules[name] = {
      name, seed: r.seed, description: r.description, minLength: r.minLength, maxLength: r.maxLength, pattern,
      messages: resolveMessages(r.messages, at(a, "messages")), examples: r.examples ?? [], pos: positionOf(rulesFile, a.path, true),
    };
  }

  const statusesFile = ctx.file("statuses.yaml");
  const statuses = raw({ file: statusesFile, path: [] });
  const verificationStatuses = Object.entries(statuses.verificationStatuses as Record<string, Raw>).map(([value, s]) => ({ value, seed: s.seed, meaning: s.meaning, outcome: s.outcome }));
  const submissionStatuses = Object.entries(statuses.submissionStatuses as Record<string, Raw>).map(([value, s]) => ({
    value, seed: s.seed, meaning: s.meaning, unknown: s.unknown, locksResubmission: s.locksResubmission === true,
  }));
  const statusNames = new Set(verificationStatuses.map((s) => s.value));
  (statuses.olderVerificationStatuses.values as string[]).forEach((v, i) => {
    if (!statusNames.has(v)) ctx.report({ file: statusesFile, path: ["olderVerificationStatuses", "values", i] }, `the status ${JSON.stringify(v)}`, `a verification status: ${list(statusNames)}`);
  });
  for (const s of verificationStatuses) {
    if (s.outcome !== "by_attempts" && !(s.outcome in statuses.outcomes)) ctx.report({ file: statusesFile, path: ["verificationStatuses", s.value, "outcome"] }, `the outcome ${JSON.stringify(s.outcome)}`, `an outcome of \`outcomes\`: ${list(Object.keys(statuses.outcomes))}`);
  }
  (statuses.transitions as Raw[]).forEach((t, i) => {
    const ok = (v: string | null) => v === null || v === "any" || statusNames.has(v);
    if (!ok(t.from)) ctx.report({ file: statusesFile, path: ["transitions", i, "from"] }, `the status ${JSON.stringify(t.from)}`, `null, "any" or a verification status: ${list(statusNames)}`);
    (t.to as string[]).forEach((v, j) => {
      if (!ok(v)) ctx.report({ file: statusesFile, path: ["transitions", i, "to", j] }, `the status ${JSON.stringify(v)}`, `"any" or a verification status: ${list(statusNames)}`);
    });
  });

  const errorTypes = Object.entries(errors.errorTypes as Record<string, Raw>).map(([type, e]) => ({ type, seed: e.seed, httpStatus: e.httpStatus, message: e.message, condition: e.condition }));

  const valueSets: Record<string, ValueSet> = {
    iso3: { name: "iso3", seed: countries.seed, description: "ISO 3166-1 alpha-3 country code.", values: iso3.map((c) => c.code) },
    usStates,
    verificationStatuses: { name: "verificationStatuses", seed: "3", description: "Verification status.", values: verificationStatuses.map((s) => s.value) },
    olderVerificationStatuses: { name: "olderVerificationStatuses", seed: "6.3", description: "Verification status of the older webhook payload.", values: [...statuses.olderVerificationStatuses.values] },
    submissionStatuses: { name: "submissionStatuses", seed: "3", description: "Submission status.", values: submissionStatuses.map((s) => s.value) },
    errorTypes: { name: "errorTypes", seed: "7", description: "Error type.", values: errorTypes.map((e) => e.type) },
    validationCodes: { name: "validationCodes", seed: "7", description: "Validation issue code (Zod 4's codes).", values: [...codes] },
  };
  const resolveValues = (name: string, a: At): ValueSet | undefined => {
    if (name.startsWith("group:")) {
      const g = groups[name.slice(6)];
      if (!g) ctx.report(a, `the country group ${JSON.stringify(name.slice(6))}`, `a group of countries.yaml: ${list(Object.keys(groups))}`);
      return g;
    }
    return valueSets[name];
  };

  // Field sets and shapes are collected first, so that references between files resolve in any order.
  const fieldSetsFile = ctx.file("fieldsets.yaml");
  const fieldSets = raw({ file: fieldSetsFile, path: ["fieldSets"] }) as Record<string, Raw>;
  const shapeSources: Record<string, At> = {};
  for (const name of ["stakeholders.yaml", "older.yaml", "webhooks.yaml", "v5.yaml"]) {
    const file = ctx.file(name);
    for (const id of Object.keys((file.data as Raw).shapes ?? {})) {
      if (shapeSources[id]) ctx.report({ file, path: ["shapes", id] }, `a second definition of the shape ${id}`, `one definition (the first is in ${shapeSources[id]!.file.displayPath})`, true);
      else shapeSources[id] = { file, path: ["shapes", id] };
    }
  }

  const toField = (a: At, defaultRequired: Field["required"] = "no"): Field => {
    const r = raw(a);
    let rule: Rule | undefined;
    if (r.rule !== undefined) {
      rule = rules[r.rule];
      if (!rule) ctx.report(at(a, "rule"), `the rule ${JSON.stringify(r.rule)}`, `a rule of rules.yaml: ${list(Object.keys(rules))}`);
    }
    if (r.ref !== undefined && !shapeSources[r.ref]) ctx.report(at(a, "ref"), `the shape ${JSON.stringify(r.ref)}`, "a shape defined under `shapes` in stakeholders.yaml, older.yaml, webhooks.yaml or v5.yaml");
    if (r.selectBy) for (const k of ["then", "else"] as const) {
      if (!shapeSources[r.selectBy[k]]) ctx.report(at(a, "selectBy", k), `the shape ${JSON.stringify(r.selectBy[k])}`, "a defined shape");
    }
    const properties = r.properties || r.include ? fieldMap(a, r.include, r.properties ? "properties" : undefined) : undefined;
    for (const name of r.exactlyOneOf ?? []) {
      if (!properties?.[name]) ctx.report(at(a, "exactlyOneOf"), `the field ${JSON.stringify(name)}`, `a field of this shape: ${list(Object.keys(properties ?? {}))}`);
    }
    if (r.discriminator !== undefined && !r.oneOf) ctx.report(at(a, "discriminator"), "a discriminator without `oneOf`", "`oneOf` beside `discriminator`");
    const when: Condition[] = (r.when ?? []).map((w: Raw, i: number) => {
      const wa = at(a, "when", i);
      if (!properties?.[w.field]) ctx.report(at(wa, "field"), `the field ${JSON.stringify(w.field)}`, `a field of this shape: ${list(Object.keys(properties ?? {}))}`);
      const values = w.values !== undefined ? resolveValues(w.values, at(wa, "values"))?.values ?? [] : w.equals !== undefined ? [w.equals] : [];
      if (w.values === undefined && w.equals === undefined) ctx.report(wa, "a condition with neither `values` nor `equals`", "`values` (a value set) or `equals` (one value)");
      return { field: w.field, values, seed: w.seed, properties: fieldMap(wa, undefined, "properties") };
    });
    const type = r.type ?? (rule ? "string" : r.values ? "string" : undefined);
    return {
      pos: positionOf(a.file, a.path, true),
      seed: r.seed, title: r.title, description: r.description ?? rule?.description, unknown: r.unknown,
      type, required: r.required === true ? "yes" : r.required === "ifPresent" ? "ifPresent" : r.required === false ? "no" : defaultRequired,
      nullable: r.nullable === true, rule, enum: r.enum, const: r.const,
      values: r.values !== undefined ? resolveValues(r.values, at(a, "values")) : undefined,
      format: r.format, deprecated: r.deprecated === true, secret: r.secret === true, examples: r.examples ?? (rule?.examples.length ? rule.examples : undefined),
      minimum: r.minimum, properties,
      additionalProperties: typeof r.additionalProperties === "object" ? toField(at(a, "additionalProperties")) : r.additionalProperties,
      items: r.items ? toField(at(a, "items")) : undefined,
      ref: r.ref, when, exactlyOneOf: r.exactlyOneOf,
      oneOf: r.oneOf ? (r.oneOf as Raw[]).map((_, i) => toField(at(a, "oneOf", i))) : undefined,
      discriminator: r.discriminator, selectBy: r.selectBy,
      messages: resolveMessages(r.messages, at(a, "messages")),
      requirements: r.requirements === true, unknownShape: r.unknownShape === true,
      openKeys: r.openKeys === true, onlyIn: r.onlyIn,
    };
  };

  /** Included field sets first, then the map's own fields (which may refine an included one). */
  function fieldMap(a: At, include: string[] | undefined, ownKey?: "fields" | "properties"): Record<string, Field> {
    const out: Record<string, Field> = {};
    (include ?? []).forEach((setName, i) => {
      const set = fieldSets[setName];
      if (!set) {
        ctx.report(at(a, "include", i), `the field set ${JSON.stringify(setName)}`, `a field set of fieldsets.yaml: ${list(Object.keys(fieldSets))}`);
        return;
      }
      for (const name of Object.keys(set.fields)) out[name] = toField({ file: fieldSetsFile, path: ["fieldSets", setName, "fields", name] });
    });
    for (const name of Object.keys(ownKey ? raw(a)[ownKey] ?? {} : {})) out[name] = toField(at(a, ownKey!, name));
    return out;
  }

  const shapes: Record<string, Shape> = {};
  for (const [id, a] of Object.entries(shapeSources)) shapes[id] = { id, ...toField(a) };

  const stakeholdersFile = ctx.file("stakeholders.yaml");
  const sh = raw({ file: stakeholdersFile, path: [] });
  const stakeholderTypes = Object.entries(sh.types as Record<string, Raw>).map(([name, t]) => {
    if (!shapeSources[t.fields]) ctx.report({ file: stakeholdersFile, path: ["types", name, "fields"] }, `the shape ${JSON.stringify(t.fields)}`, "a defined shape");
    return { name, seed: t.seed, description: t.description, fields: t.fields };
  });
  const typeNames = new Set(stakeholderTypes.map((t) => t.name));
  const roleSets: Record<string, RoleSet> = {};
  for (const [name, rs] of Object.entries(sh.roleSets as Record<string, Raw>)) {
    const roles = Object.entries(rs.roles as Record<string, Raw>).map(([role, r]) => {
      (r.types as string[]).forEach((t, i) => {
        if (!typeNames.has(t)) ctx.report({ file: stakeholdersFile, path: ["roleSets", name, "roles", role, "types", i] }, `the stakeholder type ${JSON.stringify(t)}`, `a stakeholder type of \`types\`: ${list(typeNames)}`);
      });
      return { name: role, types: [...r.types], required: r.required === true, description: r.description, unknown: r.unknown };
    });
    roleSets[name] = { name, seed: rs.seed, description: rs.description, roles, pos: positionOf(stakeholdersFile, ["roleSets", name], true) };
  }

  const entityKinds: EntityKind[] = [];
  const kindFiles = new Map<string, SpecFile>();
  for (const file of ctx.spec.files.filter((f) => f.name.startsWith("entities/"))) {
    const e = file.data as Raw;
    const a: At = { file, path: [] };
    const previous = kindFiles.get(e.kind);
    if (previous) ctx.report(at(a, "kind"), `a second entity kind ${JSON.stringify(e.kind)}`, `a kind not already defined (first in ${previous.displayPath})`);
    kindFiles.set(e.kind, file);
    const seenCountries = new Map<string, string>();
    const branches: EntityBranch[] = (e.branches as Raw[]).map((b, i) => {
      const ba = at(a, "branches", i);
      const set = b.countries === "iso3" ? valueSets.iso3! : groups[b.countries];
      if (!set) ctx.report(at(ba, "countries"), `the country group ${JSON.stringify(b.countries)}`, `"iso3" or a group of countries.yaml: ${list(Object.keys(groups))}`);
      for (const c of set?.values ?? []) {
        const other = seenCountries.get(c);
        if (other) ctx.report(at(ba, "countries"), `the country ${c} in the branches ${other} and ${b.name}`, "each country in one branch only");
        seenCountries.set(c, b.name);
      }
      if ("country" in (b.fields ?? {})) ctx.report(at(ba, "fields", "country"), "a field `country`", "`countries` on the branch (the generator adds `country` from it)", true);
      const country: Field = {
        pos: positionOf(file, [...ba.path, "countries"]), seed: b.seed, type: "string", required: "yes", nullable: false,
        values: set, deprecated: false, secret: false, when: [], messages: {}, requirements: false, unknownShape: false, openKeys: false,
        description: set && set.values.length === 1 ? `\`${set.values[0]}\`` : b.countries === "iso3" ? "3-letter ISO code (ISO 3166-1 alpha-3)." : `One of the countries of the group ${b.countries}.`,
      };
      const fields = { country, ...fieldMapFromBranch(ba, b) };
      return { name: b.name, seed: b.seed, countries: set ?? { name: b.countries, values: [] }, fields };
    });
    let stakeholders: EntityKind["stakeholders"];
    if (e.stakeholders) {
      const roleSet = roleSets[e.stakeholders.roleSet];
      if (!roleSet) ctx.report(at(a, "stakeholders", "roleSet"), `the role set ${JSON.stringify(e.stakeholders.roleSet)}`, `a role set of stakeholders.yaml: ${list(Object.keys(roleSets))}`);
      else stakeholders = { seed: e.stakeholders.seed, required: e.stakeholders.required, roleSet };
    }
    entityKinds.push({ kind: e.kind, seed: e.seed, interface: e.interface, title: e.title, description: e.description, unknown: e.unknown, branches, stakeholders, pos: positionOf(file, ["kind"]) });
  }
  function fieldMapFromBranch(ba: At, b: Raw): Record<string, Field> {
    const own = fieldMap(ba, undefined, "fields");
    const included = fieldMap(ba, b.include, undefined);
    for (const name of Object.keys(included)) {
      if (own[name]) ctx.report(at(ba, "fields", name), `the field ${name} both in the table and in an included field set`, "each field once", true);
    }
    return { ...own, ...included };
  }
  entityKinds.sort((x, y) => (x.kind < y.kind ? -1 : x.kind > y.kind ? 1 : 0));

  const olderFile = ctx.file("older.yaml");
  const older = raw({ file: olderFile, path: [] });
  const envelopeFields = fieldMap({ file: olderFile, path: ["envelope"] }, older.envelope.include, "fields");
  const entityRequests: EntityRequest[] = Object.entries(older.entityRequests as Record<string, Raw>).map(([id, r]) => {
    if (shapeSources[id]) ctx.report({ file: olderFile, path: ["entityRequests", id] }, `the id ${id} both as an entity request and as a shape`, "each schema id once", true);
    const own = fieldMap({ file: olderFile, path: ["entityRequests", id] }, undefined, r.fields ? "fields" : undefined);
    if (!entityKinds.some((k) => k.interface === r.interface)) ctx.report({ file: olderFile, path: ["entityRequests", id, "interface"] }, `the interface ${r.interface} with no entity kind`, "an interface that some entity kind declares");
    return { id, seed: r.seed, title: r.title, description: r.description, interface: r.interface, examples: r.examples ?? [], fields: { ...envelopeFields, ...own } };
  });
  const metadataVersion = envelopeFields.metadata_version?.const;

  const versions = raw({ file: ctx.file("versions.yaml"), path: [] });
  if (metadataVersion !== versions.olderInterface.metadataVersion) {
    ctx.report({ file: ctx.file("versions.yaml"), path: ["olderInterface", "metadataVersion"] }, `${describeValue(versions.olderInterface.metadataVersion)} while the envelope's metadata_version is ${describeValue(metadataVersion)}`, "the same version in both places");
  }

  const v5File = ctx.file("v5.yaml");
  const v5 = raw({ file: v5File, path: [] });
  const v5Requirements: V5Requirement[] = Object.entries(v5.requirements as Record<string, Raw>).map(([type, r]) => ({
    type, seed: r.seed, addresses: r.addresses ?? [], documents: r.documents ?? [],
    identifiersFor: Object.entries((r.identifiersFor ?? {}) as Record<string, string[]>).map(([groupName, identifiers]) => {
      const g = groups[groupName];
      if (!g) ctx.report({ file: v5File, path: ["requirements", type, "identifiersFor", groupName] }, `the country group ${JSON.stringify(groupName)}`, `a group of countries.yaml: ${list(Object.keys(groups))}`, true);
      return { countries: g ?? { name: groupName, values: [] }, identifiers };
    }),
  }));
  const requiredDocumentMessage = namedMessages[v5.requiredDocumentMessage];
  if (!requiredDocumentMessage) ctx.report({ file: v5File, path: ["requiredDocumentMessage"] }, `the message ${JSON.stringify(v5.requiredDocumentMessage)}`, "a message of errors.yaml");

  const limitsFile = ctx.file("limits.yaml");
  const limits: Record<string, Limit> = {};
  for (const [name, l] of Object.entries(raw({ file: limitsFile, path: ["limits"] }) as Record<string, Raw>)) {
    if (l.rule !== undefined && !rules[l.rule]) ctx.report({ file: limitsFile, path: ["limits", name, "rule"] }, `the rule ${JSON.stringify(l.rule)}`, `a rule of rules.yaml: ${list(Object.keys(rules))}`);
    const numbers = Object.fromEntries(Object.entries(l).filter(([, v]) => typeof v === "number")) as Record<string, number>;
    limits[name] = { name, seed: l.seed, value: l.value, appliesTo: l.appliesTo, rule: l.rule, numbers };
  }

  const webhooksFile = ctx.file("webhooks.yaml");
  const wh = raw({ file: webhooksFile, path: [] });
  const signatures: SignatureScheme[] = Object.entries(wh.signatures as Record<string, Raw>).map(([version, s]) => ({
    version, seed: s.seed, description: s.description,
    headers: Object.entries(s.headers as Record<string, Raw>).map(([name, h]) => ({ name, ...h })),
    receiverMust: s.receiverMust ?? [], bodyVariant: s.bodyVariant,
  }));
  const toleranceName: string | undefined = wh.signatures?.["2"]?.toleranceLimit;
  const tolerance = toleranceName ? limits[toleranceName]?.numbers.ms : undefined;
  if (tolerance === undefined) ctx.report({ file: webhooksFile, path: ["signatures", "2", "toleranceLimit"] }, describeValue(toleranceName), "the name of a limit of limits.yaml with `ms`");
  const webhookPayloads = Object.entries(wh.payloads as Record<string, Raw>).map(([name, p]) => {
    if (!shapeSources[p.schema]) ctx.report({ file: webhooksFile, path: ["payloads", name, "schema"] }, `the shape ${JSON.stringify(p.schema)}`, "a defined shape");
    if (!wh.signatures[p.signatureVersion]) ctx.report({ file: webhooksFile, path: ["payloads", name, "signatureVersion"] }, describeValue(p.signatureVersion), `a signature version of \`signatures\`: ${list(Object.keys(wh.signatures))}`);
    return { name, seed: p.seed, schema: p.schema, signatureVersion: p.signatureVersion, operationId: p.operationId, summary: p.summary };
  });

  const endpointsFile = ctx.file("endpoints.yaml");
  const ep = raw({ file: endpointsFile, path: [] });
  const endpoints: Endpoint[] = Object.entries(ep.endpoints as Record<string, Raw>).map(([operationId, e]) => {
    const a: At = { file: endpointsFile, path: ["endpoints", operationId] };
    const knownSchema = (id: string) => Boolean(shapeSources[id]) || entityRequests.some((r) => r.id === id);
    if (e.request && !knownSchema(e.request)) ctx.report(at(a, "request"), `the schema ${JSON.stringify(e.request)}`, "a shape or an entity request");
    for (const [status, id] of Object.entries(e.responses as Record<string, string>)) {
      if (!knownSchema(id)) ctx.report(at(a, "responses", status), `the schema ${JSON.stringify(id)}`, "a defined shape");
    }
    if (!knownSchema(e.errorBody)) ctx.report(at(a, "errorBody"), `the schema ${JSON.stringify(e.errorBody)}`, "a defined shape");
    (e.errors ?? []).forEach((t: string, i: number) => {
      if (!errorTypes.some((x) => x.type === t)) ctx.report(at(a, "errors", i), `the error type ${JSON.stringify(t)}`, `an error type of errors.yaml: ${list(errorTypes.map((x) => x.type))}`);
    });
    (e.limits ?? []).forEach((l: string, i: number) => {
      if (!limits[l]) ctx.report(at(a, "limits", i), `the limit ${JSON.stringify(l)}`, `a limit of limits.yaml`);
    });
    if (!ep.auth[e.auth]) ctx.report(at(a, "auth"), describeValue(e.auth), `an auth scheme of \`auth\`: ${list(Object.keys(ep.auth))}`);
    const templateParams = [...String(e.path ?? "").matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const declared = Object.keys(e.pathParams ?? {});
    if (templateParams.join() !== declared.join()) ctx.report(at(a, e.pathParams ? "pathParams" : "path"), `path parameters [${declared.join(", ")}] for the path ${e.path}`, `exactly the parameters of the path: [${templateParams.join(", ")}]`);
    return {
      operationId, seed: e.seed, method: e.method, path: e.path, auth: e.auth, client: e.client, summary: e.summary,
      description: e.description, unknown: e.unknown, request: e.request,
      pathParams: Object.fromEntries(declared.map((n) => [n, toField(at(a, "pathParams", n), "yes")])),
      responses: e.responses, errors: e.errors ?? [], errorBody: e.errorBody, limits: e.limits ?? [],
    };
  });
  const clientNames = new Map<string, string>();
  for (const e of endpoints) {
    const other = clientNames.get(e.client);
    if (other) ctx.report({ file: endpointsFile, path: ["endpoints", e.operationId, "client"] }, `the client name ${e.client} also used by ${other}`, "a client name used once");
    clientNames.set(e.client, e.operationId);
  }

  return {
    countries: { iso3, groups, usStates },
    unicodeVersion: letters.unicodeVersion,
    rules,
    patternNote: raw({ file: rulesFile, path: [] }).patternNote,
    valueSets: Object.values(valueSets),
    messages: {
      codes: [...codes],
      observed: Object.entries(vm.observed as Record<string, Raw>).map(([id, m]) => ({ ...observed[id]!, seed: m.seed, paths: m.paths ?? [] })),
      defaults, verispec: verispecMessages,
    },
    errorTypes,
    limits,
    verificationStatuses,
    olderVerificationStatuses: valueSets.olderVerificationStatuses!.values,
    submissionStatuses,
    outcomes: statuses.outcomes,
    transitions: (statuses.transitions as Raw[]).map((t) => ({ seed: t.seed, from: t.from, trigger: t.trigger, condition: t.condition, to: [...t.to], alsoHappens: t.alsoHappens, unknown: t.unknown })),
    attempts: statuses.attempts,
    versions: {
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
    requiredDocumentMessage: requiredDocumentMessage ?? { id: "", code: "custom", message: "", origin: "observed" },
    servers: ep.servers,
    auth: ep.auth,
    endpoints,
    delivery: { seed: wh.delivery.seed, rules: wh.delivery.rules },
    signatures,
    webhookToleranceMs: tolerance ?? 0,
    webhookPayloads,
    unknowns: collectUnknowns(ctx.spec),
  };
}

/** A code point range "0041-005A" as regex class text: BMP as \uXXXX, astral code points literally. */
function renderRange(range: string): string {
  const [from, to] = range.split("-").map((h) => parseInt(h, 16)) as [number, number | undefined];
  const one = (cp: number) => (cp > 0xffff ? String.fromCodePoint(cp) : `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`);
  return to === undefined ? one(from) : `${one(from)}-${one(to)}`;
}

/** Every `unknown:` of every file, with the nearest seed section above it. */
function collectUnknowns(spec: LoadedSpec): Unknown[] {
  const out: Unknown[] = [];
  for (const file of spec.files) {
    const walk = (v: unknown, path: PathSegment[], seed: string | undefined) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i], seed));
      else if (v && typeof v === "object") {
        const o = v as Raw;
        const here = typeof o.seed === "string" ? o.seed : seed;
        if (typeof o.unknown === "string") out.push({ seed: here ?? "", text: o.unknown, pos: positionOf(file, [...path, "unknown"]) });
        for (const [k, x] of Object.entries(o)) if (k !== "unknown") walk(x, [...path, k], here);
      }
    };
    walk(file.data, [], undefined);
  }
  return out;
}
