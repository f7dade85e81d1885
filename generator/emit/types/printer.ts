// The types printer: a field of the model as TypeScript type text (unions that narrow on `when` and
// `exactlyOneOf`, variants of `onlyIn` fields, open value sets), and the JSDoc of a field.
import type { Field, ValueSet } from "../../model/types.js";
import { valueSetTypeName } from "../names.js";
import { jsdoc, lit, propertyKey as key, union } from "../print.js";

/** A property the type declares absent (`?: never`): a tag field another member of a union carries. */
export const ABSENT = Symbol("absent");

export const isGroup = (set: ValueSet) => set.countryGroup === true;

/** Type name of a schema id: the id itself, as a path through `v4`/`v5` namespaces. */
export const typeRef = (id: string) => id;

interface Notes {
  readonly title?: string;
  readonly description?: string;
  readonly unknown?: string;
  readonly source?: string;
}

/** The JSDoc lines of a field: its own description, its rule's, "not shown", the service's specification section, deprecation. */
export function fieldDoc(f: Field | Notes, extra: readonly string[] = []): string[] {
  const field = f as Partial<Field>;
  const lines: (string | undefined)[] = [f.title && f.description ? `${f.title}.` : f.title, f.description];
  if (field.rule && field.rule.description !== f.description) lines.push(field.rule.description);
  if (field.required === "ifPresent") lines.push("Required if present (the specification's wording): optional, but not empty when given.");
  lines.push(...extra);
  if (f.unknown) lines.push(`Not shown in the service's specification: ${f.unknown}`);
  if (field.presence?.unknown) lines.push(`Not shown in the service's specification: ${field.presence.unknown}`);
  const tags: string[] = [];
  if (f.source) tags.push(`@see The service's specification, section ${f.source}`);
  if (field.secret) tags.push("@remarks Secret: never logged; the client adds it.");
  if (field.deprecated) tags.push(`@deprecated ${f.description ?? "Deprecated (the service's specification, section 9)."}`);
  return [...(lines.filter(Boolean) as string[]), ...(tags.length ? [tags.join("\n")] : [])];
}

export class Printer {
  /** The TypeScript type of a field (without its optionality). */
  type(f: Field, indent: string): string {
    if (f.unknownShape) return "unknown";
    if (f.const === ABSENT) return "never";
    const nullable = (t: string) => (f.nullable ? `${t} | null` : t);
    if (f.ref) return nullable(typeRef(f.ref));
    if (f.oneOf) return nullable(union(f.oneOf.map((o) => this.type(o, indent))));
    if (f.const !== undefined) return nullable(lit(f.const));
    if (f.values) return nullable(this.values(f.values));
    if (f.enum) return nullable(union(f.enum.map(lit)));
    if (f.properties || f.additionalProperties !== undefined || f.type === "object") return nullable(this.object(f, indent));
    if (f.items || f.type === "array") return nullable(`Array<${f.items ? this.type(f.items, indent) : "unknown"}>`);
    if (f.rule) return nullable("string");
    const types = f.type === undefined ? [] : Array.isArray(f.type) ? f.type : [f.type];
    // An open value set (the service's list is not shown in full): the known values as suggestions that
    // editors complete, any other string still accepted.
    if (types.length === 1 && types[0] === "string" && !f.format && f.examples?.length && f.examples.every((e) => typeof e === "string")) {
      return nullable(`${union(f.examples.map(lit))} | (string & {})`);
    }
    if (!types.length) return nullable("unknown");
    return nullable(union(types.map((t) => (t === "integer" ? "number" : t === "object" ? "Record<string, unknown>" : t === "array" ? "unknown[]" : t))));
  }

  values(set: ValueSet): string {
    return isGroup(set) ? union(set.values.map(lit)) : valueSetTypeName(set);
  }

  /** Property lines of an object, each with its JSDoc. `override` replaces a property's type text. */
  members(props: Readonly<Record<string, Field>>, indent: string, override: Record<string, { type: string; optional: boolean }> = {}): string {
    let out = "";
    for (const [name, f] of Object.entries(props)) {
      const o = override[name];
      out += jsdoc(fieldDoc(f), indent);
      out += `${indent}${key(name)}${(o ? o.optional : f.required !== "yes") ? "?" : ""}: ${o ? o.type : this.type(f, indent)};\n`;
    }
    return out;
  }

  indexSignature(f: Field, indent: string): string {
    const a = f.additionalProperties;
    if (a === undefined || a === false) return "";
    return `${indent}[key: string]: ${a === true ? "unknown" : `${this.type(a, indent)} | undefined`};\n`;
  }

  /**
   * An object type. `when` conditions on one field become a union that narrows on that field
   * (section 2.2 of the service's specification: `state` is a USA state code only where `country` is USA); `exactlyOneOf` becomes a
   * union where each key excludes the others.
   */
  object(f: Field, indent: string): string {
    const props = f.properties ?? {};
    const inner = `${indent}  `;
    const obj = (override: Record<string, { type: string; optional: boolean }> = {}, extra: Readonly<Record<string, Field>> = {}) =>
      `{\n${this.members({ ...props, ...extra }, inner, override)}${this.indexSignature(f, inner)}${indent}}`;
    const fields = [...new Set(f.when.map((c) => c.field))];
    if (fields.length === 1 && props[fields[0]!]) {
      const on = fields[0]!;
      const base = props[on]!;
      // A condition narrows a property's type, not whether it is required: that stays the base's.
      const narrowed = (c: (typeof f.when)[number]) =>
        Object.fromEntries(Object.entries(c.properties).map(([k, v]) => [k, props[k] ? { ...v, required: props[k]!.required } : v]));
      const variants = f.when.map((c) => obj({ [on]: { type: union(c.values.map(lit)), optional: false } }, narrowed(c)));
      const taken = f.when.flatMap((c) => c.values);
      const all = base.values?.values ?? base.enum ?? (base.const !== undefined ? [base.const] : undefined);
      // The other values, where the field has a closed list; otherwise any value keeps the base shape.
      const rest = all ? all.filter((v) => !taken.includes(v as string)) : undefined;
      if (!rest) variants.push(obj());
      else if (rest.length) {
        const restType = base.values && !isGroup(base.values) ? `Exclude<${valueSetTypeName(base.values)}, ${union(taken.map(lit))}>` : union(rest.map(lit));
        variants.push(obj({ [on]: { type: restType, optional: base.required !== "yes" } }));
      }
      return variants.length === 1 ? variants[0]! : `(${variants.join(` | `)})`;
    }
    if (f.exactlyOneOf) {
      return `(${f.exactlyOneOf
        .map((name) =>
          obj(
            Object.fromEntries(
              f.exactlyOneOf!.map((other) => [
                other,
                other === name ? { type: this.type(props[other]!, inner), optional: false } : { type: "never", optional: true },
              ]),
            ),
          ),
        )
        .join(" | ")})`;
    }
    if (!Object.keys(props).length && f.additionalProperties === true) return "Record<string, unknown>";
    const variantFields = Object.entries(props).filter(([, x]) => x.onlyIn !== undefined);
    if (variantFields.length) return this.variants(f, indent, variantFields);
    return obj();
  }

  /**
   * Fields present only in one variant (`onlyIn`, the v5 stakeholder webhook's `parentTrace`): the
   * common members, then either none of those fields or the variant's, the first one present. Narrows
   * on `payload.parentTrace !== undefined`.
   */
  variants(f: Field, indent: string, only: [string, Field][]): string {
    const inner = `${indent}  `;
    const names = new Set(only.map(([k]) => k));
    const common = Object.fromEntries(Object.entries(f.properties!).filter(([k]) => !names.has(k)));
    const variant = only[0]![1].onlyIn!;
    if (only.some(([, x]) => x.onlyIn !== variant)) throw new Error("types: one `onlyIn` variant per shape");
    const absent = Object.fromEntries(only.map(([k]) => [k, { type: "never", optional: true }]));
    const present = Object.fromEntries(only.map(([k, x], i) => [k, { type: this.type(x, `${inner}  `), optional: i > 0 }]));
    const member = (o: Record<string, { type: string; optional: boolean }>) => `{\n${this.members(Object.fromEntries(only), `${inner}  `, o)}${inner}}`;
    return `{\n${this.members(common, inner)}${this.indexSignature(f, inner)}${indent}} & (\n${inner}| ${member(absent)}\n${inner}| ${member(present)}\n${indent})`;
  }
}
