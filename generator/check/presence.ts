// Check: which fields an answer always carries is stated once, on every object the service sends (the
// answers of endpoints.yaml, the error bodies and the webhook payloads, and every object inside them):
// `presence:` marks it, its `required: true` fields are always present, and when any other field is
// listed, `presence.unknown` says that their presence is not shown (the service's specification,
// sections 2.11, 4.3, 4.5, 4.6, 6.2, 6.3, 7).
import { at, rawAt, type At, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";
import { shapeSources } from "./shapes.js";

/** The schema ids the service sends: every response, every error body, every webhook payload. */
function answerRoots(c: Checks): string[] {
  const endpoints = rawAt(c.root("endpoints.yaml")).endpoints as Record<string, Raw>;
  const payloads = rawAt(c.root("webhooks.yaml")).payloads as Record<string, Raw>;
  const ids = [
    ...Object.values(endpoints).flatMap((e) => [
      ...Object.values((e.responses ?? {}) as Record<string, string>),
      ...(e.errorBody ? [e.errorBody as string] : []),
    ]),
    ...Object.values(payloads).map((p) => p.schema as string),
  ];
  return [...new Set(ids)];
}

/** The fields of an object node: its included field sets' first, then its own (which refine them). */
function fieldsOf(c: Checks, a: At): [string, At][] {
  const node = rawAt(a);
  const sets = c.root("fieldsets.yaml");
  const out = new Map<string, At>();
  for (const name of (node.include ?? []) as string[]) {
    for (const field of Object.keys(rawAt(sets).fieldSets?.[name]?.fields ?? {})) out.set(field, at(sets, "fieldSets", name, "fields", field));
  }
  for (const field of Object.keys(node.properties ?? {})) out.set(field, at(a, "properties", field));
  return [...out];
}

export function checkPresence(c: Checks): void {
  const shapes = shapeSources(c);
  const seen = new Set<string>();
  const visit = (a: At | undefined): void => {
    if (!a) return;
    const id = `${a.file.displayPath}#${a.path.join("/")}`;
    if (seen.has(id)) return;
    seen.add(id);
    const node = rawAt(a);
    if (typeof node.ref === "string") visit(shapes.get(node.ref));
    ((node.oneOf ?? []) as unknown[]).forEach((_, i) => visit(at(a, "oneOf", i)));
    if (node.items) visit(at(a, "items"));
    if (node.additionalProperties && typeof node.additionalProperties === "object") visit(at(a, "additionalProperties"));
    const fields = fieldsOf(c, a);
    if (!fields.length) return;
    if (!node.presence) c.report("VS437", a, {}, true);
    else {
      const open = fields.filter(([, f]) => rawAt(f).required !== true).map(([name]) => name);
      if (open.length && !node.presence.unknown) c.report("VS438", at(a, "presence"), { fields: open.join(", ") }, true);
    }
    for (const [, f] of fields) visit(f);
  };
  for (const id of answerRoots(c)) visit(shapes.get(id));
}
