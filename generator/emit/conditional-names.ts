// Names for the cases of a conditional schema (`if`/`then`/`else`) and for the unnamed alternatives of a
// `oneOf` in the OpenAPI document. Redoc shows a conditional as a choice of two cases and labels each by
// the `title` of its `if` and its `else`, else "case 1" and "case 2"; an alternative without a title or a
// `$ref` is "object", then "object (2)". Neither says what the case is. The names come from the condition itself (the spec's data:
// `type individual`, `country AUS, type association`), so a reader sees which case a branch is. A
// `title` is an annotation: no payload is judged differently, and an added `else` holding only a
// title accepts everything, as an absent one does.
import type { JsonSchema } from "./schema-builder.js";

/** Values that are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(["examples", "example", "enum", "const", "default", "x-verispec-errors"]);

interface ConditionPart {
  readonly name: string;
  /** `individual`, `AUS or NZL`; undefined when the condition is only that the property is given. */
  readonly value: string | undefined;
  readonly single: boolean;
}

function conditionParts(condition: JsonSchema): ConditionPart[] {
  const properties = (condition.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, p]) => {
    if (p.const !== undefined) return { name, value: String(p.const), single: true };
    if (Array.isArray(p.enum)) return { name, value: p.enum.map(String).join(" or "), single: p.enum.length === 1 };
    return { name, value: undefined, single: true };
  });
}

/** The names of a condition's two cases, or undefined when the condition names no property. */
export function conditionalCaseNames(condition: JsonSchema): { readonly then: string; readonly else: string } | undefined {
  const parts = conditionParts(condition);
  if (parts.length === 0) return undefined;
  const then = parts.map((p) => (p.value === undefined ? `${p.name} given` : `${p.name} ${p.value}`)).join(", ");
  const [only] = parts;
  if (parts.length > 1 || !only) return { then, else: `not ${then}` };
  if (only.value === undefined) return { then, else: `no ${only.name}` };
  return { then, else: `${only.name} other than ${only.value}` };
}

/** `with trace`: an unnamed alternative by the properties it requires; undefined when it requires none. */
export function alternativeName(member: JsonSchema): string | undefined {
  const required = Array.isArray(member.required) ? (member.required as string[]) : [];
  return required.length > 0 ? `with ${required.join(" and ")}` : undefined;
}

function withNamedAlternatives(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.oneOf)) return schema;
  const oneOf = (schema.oneOf as JsonSchema[]).map((m) => {
    const name = m && typeof m === "object" && m.title === undefined && m.$ref === undefined ? alternativeName(m) : undefined;
    return name === undefined ? m : { title: name, ...m };
  });
  return { ...schema, oneOf };
}

/** Every conditional and unnamed alternative of the schemas with its two cases named (see above). */
export function withNamedConditionalCases(schemas: Readonly<Record<string, JsonSchema>>): Record<string, JsonSchema> {
  const walk = (v: unknown, key?: string): unknown => {
    if (DATA_KEYWORDS.has(key ?? "")) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (!v || typeof v !== "object") return v;
    const out = withNamedAlternatives(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)])) as JsonSchema);
    const condition = out.if as JsonSchema | undefined;
    const names = condition && typeof condition === "object" && condition.title === undefined ? conditionalCaseNames(condition) : undefined;
    if (names) {
      out.if = { title: names.then, ...condition };
      const otherwise = (out.else ?? {}) as JsonSchema;
      if (typeof otherwise === "object" && otherwise.title === undefined) out.else = { title: names.else, ...otherwise };
    }
    return out;
  };
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, walk(schema) as JsonSchema]));
}
