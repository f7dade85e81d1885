// Model: fields, wherever they stand (field sets, shapes, entity branches, requests, path parameters): a
// field's rule, value set, conditional properties and messages resolved, included field sets expanded.
import { positionOf } from "../load/load-spec.js";
import { at, rawAt as raw, SHAPE_FILES, type At, type Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { MessageBook } from "./messages.js";
import type { Condition, Field, Rule, Shape } from "./types.js";
import type { ValueSets } from "./value-sets.js";

export class FieldBuilder {
  private readonly fieldSetsFile;
  private readonly fieldSets: Record<string, Raw>;

  constructor(
    ctx: ModelContext,
    private readonly rules: Readonly<Record<string, Rule>>,
    private readonly values: ValueSets,
    private readonly messages: MessageBook,
  ) {
    this.fieldSetsFile = ctx.file("fieldsets.yaml");
    this.fieldSets = raw({ file: this.fieldSetsFile, path: ["fieldSets"] }) as Record<string, Raw>;
  }

  field(a: At, defaultRequired: Field["required"] = "no"): Field {
    const r = raw(a);
    const rule: Rule | undefined = r.rule !== undefined ? this.rules[r.rule]! : undefined;
    const properties = r.properties || r.include ? this.fieldMap(a, r.include, r.properties ? "properties" : undefined) : undefined;
    const type = r.type ?? (rule ? "string" : r.values ? "string" : undefined);
    return {
      pos: positionOf(a.file, a.path, true),
      source: r.source,
      title: r.title,
      description: r.description ?? rule?.description,
      unknown: r.unknown,
      type,
      required: r.required === true ? "yes" : r.required === "ifPresent" ? "ifPresent" : r.required === false ? "no" : defaultRequired,
      nullable: r.nullable === true,
      rule,
      enum: r.enum,
      const: r.const,
      values: r.values !== undefined ? this.values.resolve(r.values) : undefined,
      format: r.format,
      deprecated: r.deprecated === true,
      secret: r.secret === true,
      examples: r.examples ?? (rule?.examples.length ? rule.examples : undefined),
      minimum: r.minimum,
      maximum: r.maximum,
      properties,
      additionalProperties: typeof r.additionalProperties === "object" ? this.field(at(a, "additionalProperties")) : r.additionalProperties,
      items: r.items ? this.field(at(a, "items")) : undefined,
      ref: r.ref,
      when: this.conditions(a, r),
      exactlyOneOf: r.exactlyOneOf,
      oneOf: r.oneOf ? (r.oneOf as Raw[]).map((_, i) => this.field(at(a, "oneOf", i))) : undefined,
      discriminator: r.discriminator,
      selectBy: r.selectBy,
      messages: this.messages.resolve(r.messages),
      requirements: r.requirements === true,
      unknownShape: r.unknownShape === true,
      openKeys: r.openKeys === true,
      onlyIn: r.onlyIn,
      presence: r.presence,
    };
  }

  /** A field's `when:` list: the properties that apply while another field has one of some values. */
  private conditions(a: At, r: Raw): Condition[] {
    return (r.when ?? []).map((w: Raw, i: number) => {
      const values = w.values !== undefined ? this.values.resolve(w.values).values : w.equals !== undefined ? [w.equals] : [];
      return { field: w.field, values, source: w.source, properties: this.fieldMap(at(a, "when", i), undefined, "properties") };
    });
  }

  /** Included field sets first, then the map's own fields (which may refine an included one). */
  fieldMap(a: At, include: string[] | undefined, ownKey?: "fields" | "properties"): Record<string, Field> {
    const out: Record<string, Field> = {};
    for (const setName of include ?? []) {
      const set = this.fieldSets[setName]!;
      for (const name of Object.keys(set.fields)) out[name] = this.field({ file: this.fieldSetsFile, path: ["fieldSets", setName, "fields", name] });
    }
    for (const name of Object.keys(ownKey ? (raw(a)[ownKey] ?? {}) : {})) out[name] = this.field(at(a, ownKey!, name));
    return out;
  }
}

/** The shapes of stakeholders.yaml, older.yaml, webhooks.yaml and v5.yaml by id, in the files' order. */
export function buildShapes(ctx: ModelContext, fields: FieldBuilder): Record<string, Shape> {
  const sources: Record<string, At> = {};
  for (const name of SHAPE_FILES) {
    const file = ctx.file(name);
    for (const id of Object.keys((file.data as Raw).shapes ?? {})) sources[id] = { file, path: ["shapes", id] };
  }
  const shapes: Record<string, Shape> = {};
  for (const [id, a] of Object.entries(sources)) shapes[id] = { id, ...fields.field(a) };
  return shapes;
}
