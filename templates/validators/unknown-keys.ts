// Unknown keys of request objects, reported only on request (`unknownKeys: "report"`). The service
// accepts keys its tables do not list and does not use them (the v5 body is an open object, section 2.11 of the service's specification),
// so the validators accept them by default, as it does; the option flags them as the `unrecognized_keys`
// issue Zod gives a strict object, to catch a misspelt key before it is silently ignored.
import { fill, stringifyPrimitive } from "./messages.js";
import type { KeyLink, KeyShapes, MessageTemplates, ValidationIssue } from "./types.js";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** One issue per object with unknown keys, in document order, after the schema's own issues. */
export function unknownKeyIssues(data: unknown, root: KeyLink, shapes: KeyShapes, messages: MessageTemplates): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const visitShape = (value: unknown, id: string, path: readonly (string | number)[]): void => {
    const shape = shapes[id];
    if (shape === undefined || !isObject(value)) return;
    if (shape.keys !== null) {
      const unknown = Object.keys(value).filter((k) => !shape.keys!.includes(k));
      if (unknown.length) {
        // errors.yaml defaults: the meta-schema requires both templates.
        const m = messages[unknown.length === 1 ? "additionalProperties" : "additionalProperties:plural"]!;
        out.push({ code: m.code, message: fill(m.message, { keys: unknown.map(stringifyPrimitive).join(", ") }), path });
      }
    }
    for (const [key, link] of Object.entries(shape.props)) if (key in value) visitLink(value[key], link, [...path, key]);
  };
  const visitLink = (value: unknown, link: KeyLink, path: readonly (string | number)[]): void => {
    if ("shape" in link) visitShape(value, link.shape, path);
    else if ("items" in link) {
      if (Array.isArray(value)) value.forEach((v, i) => visitLink(v, link.items, [...path, i]));
    } else if (isObject(value)) visitShape(value, link.select.field in value ? link.select.then : link.select.else, path);
  };
  visitLink(data, root, []);
  return out;
}
