// Single changes to a valid payload, each with the service's issues it must cause (or none): a required
// field removed, a value of the wrong type, a value outside a closed list, each length and digit-count
// rule at, just inside and just outside its bound, each pattern broken, each conditional rule on both
// sides, an unknown key where the object is closed. Derived from the model's fields and messages only.
import type { Field, Model } from "../../model/types.js";
import { effectiveField, validValue } from "./payloads.js";
import {
  allowed,
  digitBounds,
  fieldType,
  notAllowedIssue,
  patternViolations,
  requiredIssue,
  resolve,
  ruleIssues,
  stringOfLength,
  typeIssue,
  type Issue,
  type Json,
  type Path,
} from "./values.js";

export const REMOVE = Symbol("remove");

export interface Mutation {
  /** Appended to the case id: the changed path and what was done. */
  readonly name: string;
  readonly title: string;
  readonly at: Path;
  readonly value: Json | typeof REMOVE;
  readonly errors: readonly Issue[];
}

/** Keys a caller handles itself (a discriminator such as `type` or `country`, whose errors differ). */
export type Skip = ReadonlySet<string>;

const dotted = (path: Path) => path.map(String).join(".");

export function mutateObject(model: Model, raw: Field, value: Readonly<Record<string, Json>>, path: Path, skip: Skip = new Set()): Mutation[] {
  const f = resolve(model, raw);
  const out: Mutation[] = [];
  for (const key of Object.keys(f.properties ?? {})) {
    if (skip.has(key)) continue;
    const prop = effectiveField(f, key, value);
    const at = [...path, key];
    if (prop.required === "yes")
      out.push({
        name: `${dotted(at)}/missing`,
        title: `${dotted(at)} is required and missing`,
        at,
        value: REMOVE,
        errors: [requiredIssue(model, resolve(model, prop), at)],
      });
    if (!(key in value)) continue;
    out.push(...mutateValue(model, prop, value[key]!, at));
  }
  out.push(...conditionalCases(model, f, value, path));
  if (f.additionalProperties === false) {
    const m = model.messages.defaults["additionalProperties"]!;
    out.push({
      name: `${dotted(path) || "(root)"}/unknown-key`,
      title: `an unknown key in a closed object`,
      at: [...path, "unlistedKey"],
      value: "x",
      errors: [{ code: m.code, message: m.message.replace("{keys}", '"unlistedKey"'), path }],
    });
  }
  return out;
}

export function mutateValue(model: Model, raw: Field, current: Json, at: Path): Mutation[] {
  const f = resolve(model, raw);
  const out: Mutation[] = [];
  const name = dotted(at);
  const type = fieldType(f);
  if (f.type !== undefined && type === "string")
    out.push({ name: `${name}/type`, title: `${name} is a number, not a string`, at, value: 12345, errors: [typeIssue(model, f, "number", at)] });
  if (f.type !== undefined && (type === "object" || type === "array"))
    out.push({
      name: `${name}/type`,
      title: `${name} is a string, not ${type === "object" ? "an object" : "an array"}`,
      at,
      value: "x",
      errors: [typeIssue(model, f, "string", at)],
    });
  if (f.nullable) out.push({ name: `${name}/null`, title: `${name} may be null`, at, value: null, errors: [] });
  const closed = allowed(f);
  if (closed && typeof closed[0] === "string") {
    out.push({
      name: `${name}/not-allowed`,
      title: `${name} is outside its list of values`,
      at,
      value: "NOT_A_LISTED_VALUE",
      errors: [notAllowedIssue(model, f, at)],
    });
    if (closed.length > 1) out.push({ name: `${name}/last-allowed`, title: `${name} takes the last value of its list`, at, value: closed.at(-1)!, errors: [] });
  }
  if (f.rule) out.push(...ruleCases(model, f, at));
  if (f.properties && current !== null && typeof current === "object" && !Array.isArray(current)) out.push(...mutateObject(model, f, current, at));
  if (f.items && Array.isArray(current) && current.length > 0) {
    const item = resolve(model, f.items);
    const first = current[0]!;
    if (item.properties && first !== null && typeof first === "object" && !Array.isArray(first)) out.push(...mutateObject(model, item, first, [...at, 0]));
    else if (item.oneOf?.length && !item.discriminator && first !== null && typeof first === "object" && !Array.isArray(first))
      out.push(...mutateObject(model, item.oneOf[0]!, first, [...at, 0]));
    else out.push(...mutateValue(model, item, first, [...at, 0]).filter((m) => m.name.endsWith("/type")));
  }
  return out;
}

/** Each length bound at, inside and outside; a digit count at, inside and outside; each pattern broken. */
export function ruleCases(model: Model, f: Field, at: Path): Mutation[] {
  const rule = f.rule!;
  const name = dotted(at);
  const out: Mutation[] = [];
  const lengthCase = (length: number, label: string) => {
    const value = stringOfLength(rule, length);
    if (value === undefined) return;
    out.push({ name: `${name}/${label}`, title: `${name} of ${length} characters (${rule.name})`, at, value, errors: ruleIssues(model, f, value, at) });
  };
  if (rule.minLength !== undefined) {
    lengthCase(rule.minLength, "min-length");
    if (rule.minLength > 0) {
      const value = "";
      out.push({ name: `${name}/below-min-length`, title: `${name} is empty (${rule.name})`, at, value, errors: ruleIssues(model, f, value, at) });
    }
  }
  if (rule.maxLength !== undefined) {
    lengthCase(rule.maxLength - 1, "inside-max-length");
    lengthCase(rule.maxLength, "max-length");
    lengthCase(rule.maxLength + 1, "over-max-length");
  }
  const digits = digitBounds(rule);
  if (digits) {
    const d = (n: number) => "1234567890".repeat(3).slice(0, n);
    const cases: [number, string][] = [
      [digits.min - 1, "digits-below-min"],
      [digits.min, "digits-min"],
      [digits.max, "digits-max"],
      [digits.max + 1, "digits-over-max"],
    ];
    if (digits.max > digits.min) cases.splice(2, 0, [digits.min + 1, "digits-inside"]);
    for (const [n, label] of cases) {
      if (n < 0 || (label === "digits-max" && digits.max === digits.min)) continue;
      const value = d(n);
      out.push({ name: `${name}/${label}`, title: `${name} of ${n} digits (${rule.name})`, at, value, errors: ruleIssues(model, f, value, at) });
    }
  }
  for (const v of patternViolations(rule)) {
    out.push({
      name: `${name}/pattern-${v.name.replace(/[^a-z]+/g, "-")}`,
      title: `${name}: ${v.name} (${rule.name})`,
      at,
      value: v.value,
      errors: ruleIssues(model, f, v.value, at),
    });
  }
  return out;
}

/**
 * Each conditional rule on both sides: the governed value valid under its condition, the value valid
 * only under another condition (refused), and the condition not holding.
 */
export function conditionalCases(model: Model, f: Field, value: Readonly<Record<string, Json>>, path: Path): Mutation[] {
  const out: Mutation[] = [];
  for (const [i, c] of f.when.entries()) {
    for (const key of Object.keys(c.properties)) {
      if (!(key in value)) continue;
      const under = effectiveField(f, key, { ...value, [c.field]: c.values[0]! });
      const good = validValue(model, under, "complete");
      for (const [j, other] of f.when.entries()) {
        if (j === i || !other.properties[key]) continue;
        const otherValue = validValue(model, effectiveField(f, key, { ...value, [other.field]: other.values[0]! }), "complete");
        if (typeof otherValue !== "string" || typeof good !== "string") continue;
        const at = [...path, key];
        const name = `${dotted(at)}/when-${c.field}-${c.values[0]}`;
        out.push({
          name: `${name}/holds`,
          title: `${c.field} is ${c.values[0]}: ${key} follows its rule`,
          at: path,
          value: { ...value, [c.field]: c.values[0]!, [key]: good } as Json,
          errors: [],
        });
        out.push({
          name: `${name}/broken`,
          title: `${c.field} is ${c.values[0]}: ${key} of the other condition is refused`,
          at: path,
          value: { ...value, [c.field]: c.values[0]!, [key]: otherValue } as Json,
          errors: ruleIssues(model, under, otherValue, at),
        });
      }
    }
  }
  return out;
}
