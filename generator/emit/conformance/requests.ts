// generated/conformance/requests.json: for every request body of an endpoint, cases built from the spec's
// rules: valid minimal and complete payloads per kind and country, then single changes to a valid payload
// (mutations.ts), each with its verdict and the exact service issues `{ message, code, path }`.
import type { EntityKind, Field, Model } from "../../model/types.js";
import { mutateObject, mutateValue, REMOVE, type Mutation } from "./mutations.js";
import { validObject, validValue, type Mode } from "./payloads.js";
import { discriminatorIssue, notAllowedIssue, requiredIssue, resolve, type Issue, type Json, type Path } from "./values.js";

export interface RequestCase {
  readonly id: string;
  readonly schema: string;
  readonly operation: string;
  readonly source: string;
  readonly title: string;
  readonly payload: Json;
  readonly valid: boolean;
  readonly errors: readonly Issue[];
  /** Where the payload differs from a valid one (absent for valid base payloads). */
  readonly changed?: Path;
}

type Obj = { [key: string]: Json };
const clone = <T extends Json>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The payload with one change applied. */
export function applyMutation(base: Json, mutation: Pick<Mutation, "at" | "value">): Json {
  const out = clone(base);
  if (mutation.at.length === 0) return mutation.value === REMOVE ? {} : (mutation.value as Json);
  let node = out as Record<string | number, Json>;
  for (const k of mutation.at.slice(0, -1)) node = node[k] as Record<string | number, Json>;
  const last = mutation.at.at(-1)!;
  if (mutation.value === REMOVE) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = clone(mutation.value as Json);
  return out;
}

/** Sorts issues by path then code then message: the service's order is not specified, so cases compare as sets. */
export const canonicalIssues = (issues: readonly Issue[]): Issue[] => {
  const key = (i: Issue) => `${JSON.stringify(i.path)}\u0000${i.code}\u0000${i.message}`;
  const seen = new Map<string, Issue>();
  for (const i of issues) seen.set(`${JSON.stringify(i.path)}\u0000${i.code}`, seen.get(`${JSON.stringify(i.path)}\u0000${i.code}`) ?? i);
  return [...seen.values()].map((i) => ({ message: i.message, code: i.code, path: i.path })).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
};

interface Target {
  readonly schema: string;
  readonly operation: string;
  readonly source: string;
}

function caseOf(target: Target, id: string, title: string, payload: Json, errors: readonly Issue[], changed?: Path): RequestCase {
  const issues = canonicalIssues(errors);
  return {
    id: `${target.schema}/${id}`,
    schema: target.schema,
    operation: target.operation,
    source: target.source,
    title,
    payload,
    valid: issues.length === 0,
    errors: issues,
    ...(changed ? { changed } : {}),
  };
}

function mutationCases(target: Target, prefix: string, base: Json, mutations: readonly Mutation[]): RequestCase[] {
  return mutations.map((m) => caseOf(target, `${prefix}${m.name}`, m.title, applyMutation(base, m), m.errors, m.at));
}

/** Countries to build payloads for: every country of a small group; of a large one (any ISO3), a few. */
function countriesOf(values: readonly string[]): readonly string[] {
  if (values.length <= 16) return values;
  return [...new Set([values.includes("AUS") ? "AUS" : values[0]!, values.includes("USA") ? "USA" : values[1]!])];
}

// ---- v5 ---------------------------------------------------------------------------------------------

/** What the v5 cases share: the kinds and countries tried, and builders of valid payloads. */
interface V5 {
  readonly model: Model;
  readonly t: Target;
  readonly shape: Field;
  readonly types: readonly string[];
  readonly countries: readonly string[];
  readonly requirementFor: (type: string) => Model["v5Requirements"][number] | undefined;
  readonly documentFor: (kind: string) => Obj;
  /** The payload with what the type's requirements ask for in the country added. */
  readonly satisfy: (payload: Obj, type: string, country: string) => Obj;
  readonly build: (mode: Mode, type: string, country: string) => Obj;
}

function v5Builder(model: Model, target: Target): V5 {
  const shape = model.shapes[target.schema]!;
  const requirementFor = (type: string) => model.v5Requirements.find((r) => r.type === type);
  const types = [...new Set([...model.v5Requirements.map((r) => r.type), ...((model.shapes["v5.EntityType"]?.examples ?? []) as string[])])];
  const groupCountries = [...new Set(model.v5Requirements.flatMap((r) => r.identifiersFor.flatMap((g) => g.countries.values)))];
  const countries = [...groupCountries, ...["USA", "NZL"].filter((c) => !groupCountries.includes(c))];
  const documentFor = (kind: string): Obj => ({
    ...(validObject(model, resolve(model, { ...shape.properties!["documents"]!.items! }), "minimal") as Obj),
    kind,
    source: "base64",
    mimeType: "application/pdf",
    data: "data:application/pdf;base64,JVBERi0xLjQK",
  });
  const satisfy = (payload: Obj, type: string, country: string): Obj => {
    const r = requirementFor(type);
    if (!r) return payload;
    const addresses = { ...((payload["addresses"] as Obj | undefined) ?? {}) };
    for (const a of r.addresses) addresses[a] = addresses[a] ?? "1 Example Street, Sydney NSW 2000";
    if (r.addresses.length) payload["addresses"] = addresses;
    if (r.documents.length) payload["documents"] = [...r.documents.map(documentFor)];
    for (const g of r.identifiersFor) {
      if (!g.countries.values.includes(country)) continue;
      const identifiers = { ...((payload["identifiers"] as Obj | undefined) ?? {}) };
      for (const id of g.identifiers)
        identifiers[id] = identifiers[id] ?? validValue(model, resolve(model, model.shapes["v5.Identifiers"]!).properties![id]!, "minimal");
      payload["identifiers"] = identifiers;
    }
    return payload;
  };
  const build = (mode: Mode, type: string, country: string): Obj => {
    const p = validObject(model, shape, mode);
    p["type"] = type;
    p["country"] = country;
    if (mode === "complete" && !requirementFor(type)) delete p["documents"];
    return satisfy(p, type, country);
  };
  return { model, t: target, shape, types, countries, requirementFor, documentFor, satisfy, build };
}

function v5Cases(model: Model, target: Target): RequestCase[] {
  const builder = v5Builder(model, target);
  return [
    ...v5ValidCases(builder),
    ...v5FieldRuleCases(builder),
    ...model.v5Requirements.flatMap((r) => builder.countries.flatMap((country) => v5RequirementCases(builder, r, country))),
  ];
}

/** A minimal and a complete payload of every type in every country, and the required fields alone. */
function v5ValidCases(builder: V5): RequestCase[] {
  const out: RequestCase[] = [];
  for (const type of builder.types) {
    for (const country of builder.countries) {
      for (const mode of ["minimal", "complete"] as const) {
        out.push(caseOf(builder.t, `valid/${mode}/${type}/${country}`, `a ${mode} ${type} of ${country}`, builder.build(mode, type, country), []));
      }
    }
  }
  out.push(caseOf(builder.t, "valid/required-only", "only the required fields", validObject(builder.model, builder.shape, "minimal"), []));
  return out;
}

/** Single changes to the fields of a valid payload, then to its documents. */
function v5FieldRuleCases(builder: V5): RequestCase[] {
  const { model, t: target, shape, types, countries } = builder;
  // Field rules, on a complete trust of the first country (its document list is not empty).
  const base = builder.build("complete", model.v5Requirements.find((r) => r.documents.length)?.type ?? types[0]!, countries[0]!);
  const fieldCases = mutationCases(target, "", base, mutateObject(model, shape, base, [], new Set(["documents"])));
  // Document rules on a type that requires none (a broken document does not also break a requirement).
  const free = types.find((x) => !builder.requirementFor(x)) ?? types[0]!;
  const withDocument = { ...builder.build("complete", free, countries[0]!), documents: [builder.documentFor("trustDeed")] };
  const documentCases = mutationCases(
    target,
    "",
    withDocument,
    mutateValue(model, shape.properties!["documents"]!, withDocument["documents"]!, ["documents"]).filter((m) => !m.name.endsWith("/type")),
  );
  return [...fieldCases, ...documentCases];
}

/** The per-type requirements of 2.11, on both sides, for one type in one country. */
function v5RequirementCases(builder: V5, r: Model["v5Requirements"][number], country: string): RequestCase[] {
  const ok = builder.build("minimal", r.type, country);
  return [
    ...r.addresses.map((a) => missingAddressCase(builder, r.type, country, ok, a)),
    ...r.documents.flatMap((kind) => missingDocumentCases(builder, r.type, country, ok, kind)),
    ...r.identifiersFor.flatMap((g) => g.identifiers.map((id) => identifierCase(builder, r, g, country, ok, id))),
  ];
}

function missingAddressCase(builder: V5, type: string, country: string, ok: Obj, a: string): RequestCase {
  const at = ["addresses", a];
  const serviceMessage =
    builder.model.messages.observed.find((o) => o.paths.some((p) => p.join(".") === at.join("."))) ??
    requiredIssue(builder.model, { type: "string" } as Field, at);
  return caseOf(
    builder.t,
    `requirement/${type}/${country}/addresses.${a}/missing`,
    `a ${type} needs addresses.${a}`,
    applyMutation(ok, { at, value: REMOVE }),
    [{ code: serviceMessage.code, message: serviceMessage.message, path: at }],
    at,
  );
}

/** A required document left out, and given only by URL. */
function missingDocumentCases(builder: V5, type: string, country: string, ok: Obj, kind: string): RequestCase[] {
  const serviceMessage = builder.model.requiredDocumentMessage;
  const errors = [{ code: serviceMessage.code, message: serviceMessage.message, path: ["documents"] }];
  const documents = ok["documents"] as Obj[];
  const without = applyMutation(ok, { at: ["documents"], value: documents.filter((d) => d["kind"] !== kind) });
  const byUrl = applyMutation(ok, {
    at: ["documents"],
    value: documents.map((d) => (d["kind"] === kind ? { ...d, source: "url", data: "https://www.example.com/files/deed.pdf" } : d)),
  });
  return [
    caseOf(builder.t, `requirement/${type}/${country}/documents.${kind}/missing`, `a ${type} needs a ${kind} document`, without, errors, ["documents"]),
    caseOf(builder.t, `requirement/${type}/${country}/documents.${kind}/url-only`, `a ${kind} given only by URL is not an uploaded file`, byUrl, errors, [
      "documents",
    ]),
  ];
}

/** An identifier left out: refused where its country group applies, accepted elsewhere. */
function identifierCase(
  builder: V5,
  r: Model["v5Requirements"][number],
  g: Model["v5Requirements"][number]["identifiersFor"][number],
  country: string,
  ok: Obj,
  id: string,
): RequestCase {
  const at = ["identifiers", id];
  const applies = g.countries.values.includes(country);
  const without = applyMutation(applies ? ok : builder.satisfy({ ...ok, identifiers: {} }, r.type, country), {
    at: ["identifiers"],
    value: {},
  });
  const errors = applies ? [requiredIssue(builder.model, { type: "string" } as Field, at)] : [];
  return caseOf(
    builder.t,
    `requirement/${r.type}/${country}/identifiers.${id}/${applies ? "missing" : "not-required"}`,
    applies ? `a ${r.type} of ${country} needs identifiers.${id}` : `a ${r.type} of ${country} needs no identifiers.${id}`,
    without,
    errors,
    at,
  );
}

// ---- older entity requests (`type` + `fields` + `stakeholders`) ------------------------------------

type EntityBuild = (kind: EntityKind, branch: number, country: string, mode: Mode) => Obj;

/** The envelope of an older entity request: its top-level fields as one object. */
function envelopeOf(request: Model["entityRequests"][number]): Field {
  return {
    properties: request.fields,
    required: "no",
    nullable: false,
    when: [],
    messages: {},
    deprecated: false,
    secret: false,
    requirements: false,
    unknownShape: false,
    openKeys: false,
    pos: undefined as never,
  };
}

/** A valid payload of a kind's branch in a country, with its stakeholders. */
function entityBuilder(model: Model, envelope: Field): EntityBuild {
  return (kind, branch, country, mode) => {
    const b = kind.branches[branch]!;
    const fieldsShape: Field = { ...envelope, properties: b.fields };
    const p: Obj = {
      ...validObject(model, envelope, mode),
      type: kind.kind,
      fields: { ...validObject(model, fieldsShape, mode, { country }) },
    };
    if (kind.stakeholders) {
      const roles = kind.stakeholders.roleSet.roles.filter((r) => mode === "complete" || r.required);
      if (roles.length || kind.stakeholders.required || mode === "complete")
        p["stakeholders"] = roles.map((r) => stakeholder(model, r.types[0]!, r.name, mode));
    }
    return p;
  };
}

function entityCases(model: Model, target: Target, request: Model["entityRequests"][number]): RequestCase[] {
  const kinds = model.entityKinds.filter((k) => k.interface === request.interface);
  const envelope = envelopeOf(request);
  const build = entityBuilder(model, envelope);
  return [...kinds.flatMap((kind) => entityKindCases(model, target, envelope, build, kind)), ...entityEnvelopeCases(model, target, envelope, build, kinds)];
}

/** One kind: valid payloads and field rules per branch, the country that chooses the branch, its stakeholders. */
function entityKindCases(model: Model, target: Target, envelope: Field, build: EntityBuild, kind: EntityKind): RequestCase[] {
  const out: RequestCase[] = [];
  kind.branches.forEach((b, i) => {
    for (const country of countriesOf(b.countries.values)) {
      for (const mode of ["minimal", "complete"] as const)
        out.push(caseOf(target, `valid/${mode}/${kind.kind}/${country}`, `a ${mode} ${kind.kind} of ${country}`, build(kind, i, country, mode), []));
    }
    // Field rules, on a complete payload of the branch's first country.
    const base = build(kind, i, b.countries.values[0]!, "complete");
    const fieldsShape: Field = { ...envelope, properties: b.fields };
    out.push(
      ...mutationCases(
        target,
        `${kind.kind}/${b.countries.values[0]}/`,
        base,
        mutateObject(model, fieldsShape, base["fields"] as Obj, ["fields"], new Set(["country"])),
      ),
    );
  });
  // `fields.country` chooses the branch (a discriminator when there are several).
  const countries = kind.branches.flatMap((b) => b.countries.values);
  const base = build(kind, 0, kind.branches[0]!.countries.values[0]!, "minimal");
  if (countries.length < 200) {
    const at = ["fields", "country"];
    const issue = kind.branches.length > 1 ? discriminatorIssue(model, countries, at) : notAllowedIssue(model, kind.branches[0]!.fields["country"]!, at);
    out.push(
      caseOf(
        target,
        `${kind.kind}/fields.country/not-allowed`,
        `${kind.kind}: a country without a table`,
        applyMutation(base, { at, value: "ATA" === countries[0] ? "ZZZ" : "ATA" }),
        [issue],
        at,
      ),
    );
  }
  if (kind.stakeholders) out.push(...stakeholderCases(model, target, kind, base));
  return out;
}

/** The envelope and the kind discriminator, on the first kind. */
function entityEnvelopeCases(model: Model, target: Target, envelope: Field, build: EntityBuild, kinds: readonly EntityKind[]): RequestCase[] {
  const first = kinds[0]!;
  const base = build(first, 0, first.branches[0]!.countries.values[0]!, "complete");
  const kindIssue = discriminatorIssue(
    model,
    kinds.map((k) => k.kind),
    ["type"],
  );
  return [
    ...mutationCases(target, "", base, mutateObject(model, envelope, base, [])),
    caseOf(target, "type/missing", "the entity kind is missing", applyMutation(base, { at: ["type"], value: REMOVE }), [kindIssue], ["type"]),
    caseOf(
      target,
      "type/not-allowed",
      "an entity kind of another interface or none",
      applyMutation(base, { at: ["type"], value: "NOT_A_KIND" }),
      [kindIssue],
      ["type"],
    ),
  ];
}

function stakeholder(model: Model, type: string, role: string, mode: Mode): Obj {
  const st = model.stakeholderTypes.find((s) => s.name === type)!;
  const fields = mode === "complete" ? validObject(model, model.shapes[st.fields]!, "minimal", { country: "AUS" }) : {};
  return { type, role, fields };
}

function stakeholderCases(model: Model, target: Target, kind: EntityKind, base: Obj): RequestCase[] {
  const out: RequestCase[] = [];
  const set = kind.stakeholders!.roleSet;
  const at: Path = ["stakeholders"];
  const withRoles = { ...base, stakeholders: set.roles.map((r) => stakeholder(model, r.types[0]!, r.name, "minimal")) };
  if (kind.stakeholders!.required)
    out.push(
      caseOf(
        target,
        `${kind.kind}/stakeholders/missing`,
        `${kind.kind}: stakeholders are required`,
        applyMutation(base, { at, value: REMOVE }),
        [requiredIssue(model, { type: "array" } as Field, at)],
        at,
      ),
    );
  const roleAt = ["stakeholders", 0, "role"];
  const roleField = { enum: set.roles.map((r) => r.name), messages: {} } as unknown as Field;
  // The first stakeholder's role replaced: when that role is required and held by no one else, it is missing too.
  const first = set.roles[0]!;
  const lost = first.required ? [requiredRoleIssue(model, first.name)] : [];
  out.push(
    caseOf(
      target,
      `${kind.kind}/stakeholders.0.role/not-allowed`,
      `${kind.kind}: a role the table does not list`,
      applyMutation(withRoles, { at: roleAt, value: "NOT_A_ROLE" }),
      [notAllowedIssue(model, roleField, roleAt), ...lost],
      roleAt,
    ),
  );
  set.roles.forEach((r, i) => {
    const typeAt = ["stakeholders", i, "type"];
    for (const type of r.types)
      out.push(
        caseOf(
          target,
          `${kind.kind}/stakeholders.${r.name}/type-${type}`,
          `${kind.kind}: a ${type} may hold the role ${r.name}`,
          applyMutation(withRoles, { at: ["stakeholders", i], value: stakeholder(model, type, r.name, "minimal") }),
          [],
          typeAt,
        ),
      );
    const other = model.stakeholderTypes.find((s) => !r.types.includes(s.name));
    if (other) {
      const serviceMessage = model.messages.verispec["roleTypeNotAllowed"];
      const issue =
        r.types.length === 1 || !serviceMessage
          ? notAllowedIssue(model, { enum: r.types, messages: {} } as unknown as Field, typeAt)
          : { code: serviceMessage.code, message: serviceMessage.message.replace("{options}", r.types.map((x) => `"${x}"`).join("|")), path: typeAt };
      out.push(
        caseOf(
          target,
          `${kind.kind}/stakeholders.${r.name}/type-${other.name}`,
          `${kind.kind}: a ${other.name} may not hold the role ${r.name}`,
          applyMutation(withRoles, { at: ["stakeholders", i], value: stakeholder(model, other.name, r.name, "minimal") }),
          [issue],
          typeAt,
        ),
      );
    }
    if (r.required) {
      const without = applyMutation(withRoles, { at: ["stakeholders"], value: (withRoles.stakeholders as Obj[]).filter((s) => s["role"] !== r.name) });
      out.push(
        caseOf(
          target,
          `${kind.kind}/stakeholders.${r.name}/missing`,
          `${kind.kind}: the role ${r.name} is required`,
          without,
          [requiredRoleIssue(model, r.name)],
          ["stakeholders"],
        ),
      );
    }
  });
  return out;
}

function requiredRoleIssue(model: Model, role: string): Issue {
  const serviceMessage = model.messages.verispec["requiredRole"]!;
  return { message: serviceMessage.message.replace("{role}", role), code: serviceMessage.code, path: ["stakeholders"] };
}

// ---- other request shapes (one object each) -------------------------------------------------------

function shapeCases(model: Model, target: Target): RequestCase[] {
  const shape = resolve(model, model.shapes[target.schema]!);
  const out: RequestCase[] = [];
  const minimal = validObject(model, shape, "minimal");
  const complete = validObject(model, shape, "complete");
  out.push(caseOf(target, "valid/minimal", "only the required fields", minimal, []));
  out.push(caseOf(target, "valid/complete", "every listed field", complete, []));
  if (shape.exactlyOneOf?.length) {
    const serviceMessage = shape.messages["oneOf"] ?? model.messages.defaults["oneOf"]!;
    const issue = { code: serviceMessage.code, message: serviceMessage.message, path: [] };
    for (const key of shape.exactlyOneOf) {
      const only = { ...minimal };
      for (const k of shape.exactlyOneOf) delete only[k];
      only[key] = validValue(model, shape.properties![key]!, "minimal");
      out.push(caseOf(target, `lookup/${key}`, `${key} alone`, only, []));
    }
    const none = { ...minimal };
    for (const k of shape.exactlyOneOf) delete none[k];
    out.push(caseOf(target, "lookup/none", "no lookup key", none, [issue]));
    const all = { ...minimal };
    for (const k of shape.exactlyOneOf) all[k] = validValue(model, shape.properties![k]!, "minimal");
    out.push(caseOf(target, "lookup/all", "every lookup key at once", all, [issue]));
  }
  out.push(...mutationCases(target, "", complete, mutateObject(model, shape, complete, [], new Set(shape.exactlyOneOf ?? []))));
  // Arrays of discriminated unions: each branch valid, each branch's own rules, an unknown tag.
  for (const [key, prop] of Object.entries(shape.properties ?? {})) {
    const item = prop.items ? resolve(model, prop.items) : undefined;
    if (!item?.oneOf || !item.discriminator) continue;
    const tags: string[] = [];
    for (const branch of item.oneOf) {
      const b = resolve(model, branch);
      const value = validObject(model, b, "complete", { country: "USA" });
      const tag = String(value[item.discriminator]);
      tags.push(tag);
      const base = { ...complete, [key]: [value] };
      out.push(caseOf(target, `${key}.${tag}/valid`, `a ${tag} item`, base, []));
      out.push(...mutationCases(target, `${tag}/`, base, mutateObject(model, b, value, [key, 0], new Set([item.discriminator]))));
    }
    const at = [key, 0, item.discriminator];
    out.push(
      caseOf(
        target,
        `${key}.0.${item.discriminator}/not-allowed`,
        "an item of no listed kind",
        { ...complete, [key]: [{ [item.discriminator]: "NOT_A_KIND" }] },
        [discriminatorIssue(model, tags, at)],
        at,
      ),
    );
  }
  return out;
}

export function requestCases(model: Model): RequestCase[] {
  const out: RequestCase[] = [];
  for (const e of model.endpoints) {
    if (!e.request) continue;
    const target: Target = { schema: e.request, operation: e.operationId, source: e.source };
    const entity = model.entityRequests.find((r) => r.id === e.request);
    if (entity) out.push(...entityCases(model, target, entity));
    else if (model.shapes[e.request]?.requirements) out.push(...v5Cases(model, target));
    else out.push(...shapeCases(model, target));
  }
  const seen = new Set<string>();
  return out.filter((c) => (seen.has(c.id) ? false : (seen.add(c.id), true)));
}
