// Check: every field definition of the spec's small schema language, wherever it stands (field sets,
// shapes, entity branches, the older envelope and entity requests, path parameters), and every field
// nested in one: rules, shape references, included field sets, value sets, conditions, messages.
import { nameList } from "../diagnostics.js";
import { groupNames } from "./countries.js";
import { at, rawAt, type At, type Raw, SHAPE_FILES } from "../load/spec-access.js";
import type { Checks } from "./context.js";
import { checkMessageTable } from "./messages.js";
import { shapeSources } from "./shapes.js";

/** Calls `visit` on every top-level field definition of the spec (nested ones are the checker's). */
function eachFieldRoot(c: Checks, visit: (a: At) => void): void {
  const sets = c.root("fieldsets.yaml");
  for (const [set, def] of Object.entries(rawAt(sets).fieldSets as Record<string, Raw>)) {
    for (const name of Object.keys(def.fields ?? {})) visit(at(sets, "fieldSets", set, "fields", name));
  }
  for (const file of SHAPE_FILES) {
    const root = c.root(file);
    for (const id of Object.keys(rawAt(root).shapes ?? {})) visit(at(root, "shapes", id));
  }
  for (const file of c.spec.files.filter((f) => f.name.startsWith("entities/"))) {
    ((file.data as Raw).branches as Raw[]).forEach((b, i) => {
      for (const name of Object.keys(b.fields ?? {})) visit({ file, path: ["branches", i, "fields", name] });
    });
  }
  const older = c.root("older.yaml");
  const o = rawAt(older);
  for (const name of Object.keys(o.envelope.fields ?? {})) visit(at(older, "envelope", "fields", name));
  for (const [id, r] of Object.entries(o.entityRequests as Record<string, Raw>)) {
    for (const name of Object.keys(r.fields ?? {})) visit(at(older, "entityRequests", id, "fields", name));
  }
  const endpoints = c.root("endpoints.yaml");
  for (const [op, e] of Object.entries(rawAt(endpoints).endpoints as Record<string, Raw>)) {
    for (const name of Object.keys(e.pathParams ?? {})) visit(at(endpoints, "endpoints", op, "pathParams", name));
  }
}

/** `include:` lists (of a field, a branch, the envelope): each names a field set. */
export function checkIncludes(c: Checks, a: At, include: readonly string[] | undefined): void {
  const sets = Object.keys(rawAt(c.root("fieldsets.yaml")).fieldSets);
  (include ?? []).forEach((name, i) => {
    if (!sets.includes(name)) c.report("VS305", at(a, "include", i), { value: JSON.stringify(name), choices: nameList(sets) });
  });
}

/** The field names of an object field: its own properties and those of its included field sets. */
function fieldNames(c: Checks, r: Raw): string[] {
  const sets = rawAt(c.root("fieldsets.yaml")).fieldSets as Record<string, Raw>;
  return [...Object.keys(r.properties ?? {}), ...((r.include ?? []) as string[]).flatMap((s) => Object.keys(sets[s]?.fields ?? {}))];
}

/** Each variant of a `oneOf` with a discriminator names itself: a required discriminator field with a `const` (the validators select the variant by it). */
function checkDiscriminatedVariants(c: Checks, a: At, r: Raw, shapes: ReadonlyMap<string, At>): void {
  const field = r.discriminator as string;
  (r.oneOf as Raw[]).forEach((item, i) => {
    const source = typeof item?.ref === "string" ? shapes.get(item.ref) : undefined;
    if (item?.ref !== undefined && source === undefined) return; // an unknown ref: VS304
    const variant = source ? rawAt(source) : item;
    const property = variant?.properties?.[field] as Raw | undefined;
    if (property?.required !== true || property.const === undefined)
      c.report("VS444", at(a, "oneOf", i), { variant: typeof item?.ref === "string" ? item.ref : `oneOf[${i}]`, field });
  });
}

export function checkFields(c: Checks): void {
  const shapes = shapeSources(c);
  const rules = Object.keys(rawAt(c.root("rules.yaml")).rules);
  const groups = groupNames(c);
  const isShape = (id: unknown) => typeof id === "string" && shapes.has(id);
  const shapeRef = (a: At, id: unknown) => {
    if (!isShape(id)) c.report("VS304", a, { value: JSON.stringify(id) });
  };
  const valueSet = (a: At, name: string) => {
    if (name.startsWith("group:") && !groups.includes(name.slice(6)))
      c.report("VS309", a, { value: JSON.stringify(name.slice(6)), allowed: "", choices: nameList(groups) });
  };

  const check = (a: At): void => {
    const r = rawAt(a);
    if (r === null || typeof r !== "object") return;
    if (r.rule !== undefined && !rules.includes(r.rule)) c.report("VS303", at(a, "rule"), { value: JSON.stringify(r.rule), choices: nameList(rules) });
    if (r.ref !== undefined) shapeRef(at(a, "ref"), r.ref);
    if (r.selectBy) for (const k of ["then", "else"] as const) shapeRef(at(a, "selectBy", k), r.selectBy[k]);
    checkIncludes(c, a, r.include);
    if (r.values !== undefined) valueSet(at(a, "values"), r.values);
    const names = fieldNames(c, r);
    for (const name of r.exactlyOneOf ?? []) {
      if (!names.includes(name)) c.report("VS313", at(a, "exactlyOneOf"), { value: JSON.stringify(name), choices: nameList(names) });
    }
    if (r.discriminator !== undefined && !r.oneOf) c.report("VS405", at(a, "discriminator"));
    if (typeof r.discriminator === "string" && Array.isArray(r.oneOf)) checkDiscriminatedVariants(c, a, r, shapes);
    ((r.when ?? []) as Raw[]).forEach((w, i) => {
      const wa = at(a, "when", i);
      if (!names.includes(w.field)) c.report("VS313", at(wa, "field"), { value: JSON.stringify(w.field), choices: nameList(names) });
      if (w.values !== undefined) valueSet(at(wa, "values"), w.values);
      else if (w.equals === undefined) c.report("VS406", wa);
      for (const name of Object.keys(w.properties ?? {})) check(at(wa, "properties", name));
    });
    checkMessageTable(c, at(a, "messages"), r.messages);
    for (const name of Object.keys(r.properties ?? {})) check(at(a, "properties", name));
    if (typeof r.additionalProperties === "object") check(at(a, "additionalProperties"));
    if (r.items) check(at(a, "items"));
    ((r.oneOf ?? []) as Raw[]).forEach((_, i) => check(at(a, "oneOf", i)));
  };
  eachFieldRoot(c, check);
}
