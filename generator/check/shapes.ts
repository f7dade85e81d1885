// Check: shape ids (the `shapes:` of stakeholders.yaml, older.yaml, webhooks.yaml, v5.yaml) are defined
// once, and stakeholder types name a shape.
import { at, rawAt, SHAPE_FILES, type At } from "../load/spec-access.js";
import type { Checks } from "./context.js";

/** Every shape id and where its first definition stands. */
export function shapeSources(c: Checks): Map<string, At> {
  const out = new Map<string, At>();
  for (const name of SHAPE_FILES) {
    const root = c.root(name);
    for (const id of Object.keys(rawAt(root).shapes ?? {})) if (!out.has(id)) out.set(id, at(root, "shapes", id));
  }
  return out;
}

export function checkShapes(c: Checks): void {
  const first = new Map<string, At>();
  for (const name of SHAPE_FILES) {
    const root = c.root(name);
    for (const id of Object.keys(rawAt(root).shapes ?? {})) {
      const seen = first.get(id);
      if (seen) c.report("VS404", at(root, "shapes", id), { id, first: seen.file.displayPath }, true);
      else first.set(id, at(root, "shapes", id));
    }
  }
  const stakeholders = c.root("stakeholders.yaml");
  for (const [name, t] of Object.entries(rawAt(stakeholders).types as Record<string, { fields: string }>)) {
    if (!first.has(t.fields)) c.report("VS304", at(stakeholders, "types", name, "fields"), { value: JSON.stringify(t.fields) });
  }
}
