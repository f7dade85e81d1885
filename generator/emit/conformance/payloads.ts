// Valid payloads built from the model's fields: `minimal` holds only what is required, `complete` every
// field the spec lists. Conditional rules (`when`) are applied after the values they depend on are chosen.
import type { Field, Model } from "../../model/types.js";
import { allowed, fieldType, resolve, ruleExample, type Json } from "./values.js";

export type Mode = "minimal" | "complete";

/** Values a caller wants instead of the first allowed one (e.g. `country`), by property name. */
export type Picks = Readonly<Record<string, Json>>;

export function validValue(model: Model, raw: Field, mode: Mode, picks: Picks = {}, name?: string): Json {
  const f = resolve(model, raw);
  if (name !== undefined && Object.hasOwn(picks, name)) return picks[name]!;
  const closed = allowed(f);
  if (closed) return closed[0]!;
  if (f.rule) return ruleExample(f.rule);
  if (f.oneOf?.length) return validValue(model, f.oneOf[0]!, mode, picks);
  const type = fieldType(f);
  if (type === "object" || f.properties) return validObject(model, f, mode, picks);
  if (type === "array") return mode === "minimal" || !f.items ? [] : [validValue(model, f.items, mode, picks)];
  if (type === "number" || type === "integer") return f.minimum ?? 1;
  if (type === "boolean") return true;
  const example = f.examples?.find((e) => typeof e === "string");
  return (example as string | undefined) ?? "Example";
}

export function validObject(model: Model, f: Field, mode: Mode, picks: Picks = {}): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, prop] of Object.entries(f.properties ?? {})) {
    if (mode === "minimal" && prop.required !== "yes") continue;
    out[key] = validValue(model, prop, mode, picks, key);
  }
  if (f.exactlyOneOf?.length) {
    for (const key of f.exactlyOneOf.slice(1)) delete out[key];
    const first = f.exactlyOneOf[0]!;
    if (!(first in out)) out[first] = validValue(model, f.properties![first]!, mode, picks, first);
  }
  return applyConditions(model, f, out, mode, picks);
}

/** Re-chooses the values a condition of the object governs, under the condition that holds. */
export function applyConditions(model: Model, f: Field, out: { [key: string]: Json }, mode: Mode, picks: Picks = {}): { [key: string]: Json } {
  for (const c of f.when) {
    if (!c.values.includes(out[c.field] as string)) continue;
    for (const [key, prop] of Object.entries(c.properties)) {
      if (key in out || (mode === "complete" && f.properties?.[key]))
        out[key] = validValue(
          model,
          { ...(f.properties?.[key] ?? prop), ...stripUndefined(prop), required: f.properties?.[key]?.required ?? prop.required },
          mode,
          picks,
        );
    }
  }
  return out;
}

/** The field as it stands under the conditions that hold for `object` (conditional rules merged in). */
export function effectiveField(f: Field, key: string, object: Readonly<Record<string, Json>>): Field {
  let field = f.properties?.[key];
  for (const c of f.when) {
    const extra = c.properties[key];
    if (extra && c.values.includes(object[c.field] as string))
      field = { ...(field ?? extra), ...stripUndefined(extra), required: field?.required ?? extra.required };
  }
  return field!;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
