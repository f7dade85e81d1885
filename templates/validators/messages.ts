// The service's message texts from their templates (the service's specification, section 7): Zod 4's
// names for types and literals, and `{name}` placeholders filled in.
import type { Message, MessageTemplates } from "./types.js";

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

/** Zod 4's name for the type of a value ("received ..."). */
export function parsedType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

/** Zod 4's rendering of a literal in a message: strings quoted, everything else as text. */
export function stringifyPrimitive(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : `${value}`;
}

/** Fills `{name}` placeholders; unknown placeholders stay as written. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (hasOwn(values, name) ? values[name]! : whole));
}

/** The template of a keyword, else the `custom` one (errors.yaml defaults: the meta-schema requires it). */
export function template(messages: MessageTemplates, key: string): Message {
  return messages[key] ?? messages.custom!;
}
