// Values for request vectors, read from the model's fields: a valid value of a field, a string at a given
// length that a rule's pattern still accepts, a value a pattern refuses, and the service's issue that a
// failing keyword reports (spec/errors.yaml: a rule's own message, else the Zod 4 default template).
// Pure; no validator is consulted, so the vectors check the validators rather than copy them.
import type { Field, Message, Model, Rule, Shape } from "../../model/types.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = readonly (string | number)[];

export interface Issue {
  readonly message: string;
  readonly code: string;
  readonly path: Path;
}

/** The shape a `ref` names, merged over the referring field (its own description and required-ness stay). */
export function resolve(model: Model, field: Field): Field {
  let f = field;
  const seen = new Set<string>();
  while (f.ref !== undefined && !seen.has(f.ref)) {
    seen.add(f.ref);
    const target: Shape | undefined = model.shapes[f.ref];
    if (!target) break;
    f = { ...target, required: f.required, nullable: f.nullable || target.nullable, ref: target.ref };
  }
  return f;
}

export const fieldType = (f: Field): string | undefined => {
  if (f.type !== undefined) return Array.isArray(f.type) ? (f.type as string[]).find((t) => t !== "null") : (f.type as string);
  if (f.rule || f.values) return "string";
  if (f.properties) return "object";
  if (f.items) return "array";
  if (typeof f.const === "string" || typeof f.enum?.[0] === "string") return "string";
  return undefined;
};

/** Zod's name of a JSON type in "expected ..." (integer is `int`). */
export const zodType = (t: string | undefined) => (t === "integer" ? "int" : (t ?? "unknown"));

/** The allowed values of a closed field (const, enum, or a named value set), or undefined. */
export function allowed(f: Field): readonly Json[] | undefined {
  if (f.const !== undefined) return [f.const as Json];
  if (f.enum) return f.enum as Json[];
  if (f.values) return f.values.values;
  return undefined;
}

const fill = (template: string, values: Readonly<Record<string, string>>) =>
  template.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => values[name] ?? whole);
const literal = (v: unknown) => (typeof v === "string" ? `"${v}"` : String(v));

/** The message a failing keyword reports for this field: the field's own, its rule's, else the default. */
export function messageFor(model: Model, f: Field, keyword: string): Message {
  return f.messages?.[keyword] ?? f.rule?.messages[keyword] ?? model.messages.defaults[keyword] ?? model.messages.defaults["custom"]!;
}

export function requiredIssue(model: Model, f: Field, path: Path): Issue {
  const m = f.messages?.["required"] ?? model.messages.defaults["required"]!;
  return { code: m.code, message: fill(m.message, { expected: zodType(fieldType(f)), received: "undefined" }), path };
}

export function typeIssue(model: Model, f: Field, received: string, path: Path): Issue {
  const m = model.messages.defaults["type"]!;
  return { code: m.code, message: fill(m.message, { expected: zodType(fieldType(f)), received }), path };
}

export function notAllowedIssue(model: Model, f: Field, path: Path): Issue {
  const values = allowed(f)!;
  if (values.length === 1) {
    const m = messageFor(model, f, "const");
    return { code: m.code, message: fill(m.message, { value: literal(values[0]) }), path };
  }
  const m = messageFor(model, f, "enum");
  return { code: m.code, message: fill(m.message, { options: values.map(literal).join("|") }), path };
}

export function lengthIssue(model: Model, f: Field, keyword: "minLength" | "maxLength", limit: number, path: Path): Issue {
  const m = messageFor(model, f, keyword);
  return { code: m.code, message: fill(m.message, { minimum: String(limit), maximum: String(limit) }), path };
}

export function patternIssue(model: Model, f: Field, pattern: string, path: Path): Issue {
  const m = messageFor(model, f, "pattern");
  return { code: m.code, message: fill(m.message, { pattern: `/${pattern}/u` }), path };
}

export function discriminatorIssue(model: Model, options: readonly string[], path: Path): Issue {
  const m = model.messages.defaults["discriminator"]!;
  return { code: m.code, message: fill(m.message, { options: options.map((o) => `'${o}'`).join(" | ") }), path };
}

/** The issues a string value gets from a rule (length and pattern), in no particular order. */
export function ruleIssues(model: Model, f: Field, value: string, path: Path): Issue[] {
  const rule = f.rule;
  if (!rule) return [];
  const out: Issue[] = [];
  const length = [...value].length;
  if (rule.minLength !== undefined && length < rule.minLength) out.push(lengthIssue(model, f, "minLength", rule.minLength, path));
  if (rule.maxLength !== undefined && length > rule.maxLength) out.push(lengthIssue(model, f, "maxLength", rule.maxLength, path));
  if (rule.pattern !== undefined && !matches(rule, value)) out.push(patternIssue(model, f, rule.pattern, path));
  return out;
}

export const matches = (rule: Rule, value: string) => rule.pattern === undefined || new RegExp(rule.pattern, "u").test(value);

/** A value the rule accepts, from its examples or a plain filler. */
export function ruleExample(rule: Rule): string {
  const candidates = [...rule.examples, "x", "Example", "https://www.example.com"];
  return candidates.find((c) => fitsLength(rule, c) && matches(rule, c)) ?? rule.examples[0] ?? "x";
}

const fitsLength = (rule: Rule, v: string) =>
  (rule.minLength === undefined || [...v].length >= rule.minLength) && (rule.maxLength === undefined || [...v].length <= rule.maxLength);

/**
 * A string of exactly `length` characters built from the rule's example (its last character repeated,
 * or cut), or undefined when no such string passes the pattern.
 */
export function stringOfLength(rule: Rule, length: number): string | undefined {
  const base = ruleExample(rule);
  const chars = [...base];
  const filler = /[A-Za-z0-9]/.test(chars.at(-1) ?? "") ? chars.at(-1)! : "a";
  const candidate = length <= chars.length ? chars.slice(0, length).join("") : base + filler.repeat(length - chars.length);
  return matches(rule, candidate) || rule.pattern === undefined ? candidate : undefined;
}

/** A pattern of digits with a count (`^[0-9]{11}$`, `^[0-9]{6,13}$`): its bounds, for boundary cases. */
export function digitBounds(rule: Rule): { min: number; max: number } | undefined {
  const m = /^\^\[0-9\]\{(\d+)(?:,(\d+))?\}\$$/.exec(rule.pattern ?? "");
  return m ? { min: Number(m[1]), max: Number(m[2] ?? m[1]) } : undefined;
}

/** Values the rule's pattern refuses (at most two), each with a short name; lengths kept within the rule. */
export function patternViolations(rule: Rule): { name: string; value: string }[] {
  if (rule.pattern === undefined) return [];
  const example = ruleExample(rule);
  const candidates = [
    { name: "a character the pattern refuses", value: `${example.slice(0, Math.max(0, example.length - 1))}!` },
    { name: "digits only", value: "1234" },
    { name: "letters only", value: "abcd" },
    { name: "a trailing space", value: `${example} ` },
  ];
  return candidates.filter((c) => !matches(rule, c.value) && fitsLength(rule, c.value)).slice(0, 2);
}
