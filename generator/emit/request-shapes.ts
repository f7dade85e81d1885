// Which shapes are (part of) a request body: what the caller writes, as opposed to what it reads.
import type { Field, Model } from "../model/types.js";

/** Shape ids reachable from an endpoint's request schema, through `ref`s at any depth. */
export function requestShapeIds(model: Model): Set<string> {
  const out = new Set<string>();
  const visitShape = (id: string) => {
    const shape = model.shapes[id];
    if (!shape || out.has(id)) return;
    out.add(id);
    visit(shape);
  };
  const visit = (f: Field): void => {
    if (f.ref) visitShape(f.ref);
    for (const p of Object.values(f.properties ?? {})) visit(p);
    if (f.items) visit(f.items);
    if (typeof f.additionalProperties === "object") visit(f.additionalProperties);
    for (const o of f.oneOf ?? []) visit(o);
    for (const c of f.when) for (const p of Object.values(c.properties)) visit(p);
    if (f.selectBy) [f.selectBy.then, f.selectBy.else].forEach(visitShape);
  };
  for (const e of model.endpoints) if (e.request) visitShape(e.request);
  return out;
}

type KeyLink = { shape: string } | { items: KeyLink } | { select: { field: string; then: string; else: string } };
type KeyShapes = Record<string, { keys: readonly string[] | null; props: Record<string, KeyLink> }>;

/**
 * For `unknownKeys: "report"`: the keys each request object declares where it accepts others without
 * checking them (the service's behaviour; `null` where the schema refuses them already or the key list
 * is open, `openKeys`), and how to reach the request objects below it. Roots: the schema ids with one.
 */
export function requestKeyShapes(model: Model): { shapes: KeyShapes; roots: Map<string, KeyLink> } {
  const ids = requestShapeIds(model);
  const linkOf = (f: Field): KeyLink | undefined => {
    if (f.items) {
      const inner = linkOf(f.items);
      return inner && { items: inner };
    }
    if (!f.ref || !ids.has(f.ref)) return undefined;
    const target = model.shapes[f.ref]!;
    if (target.selectBy) return { select: { ...target.selectBy } };
    return target.properties ? { shape: f.ref } : undefined;
  };
  const shapes: KeyShapes = {};
  const roots = new Map<string, KeyLink>();
  for (const id of [...ids].sort()) {
    const shape = model.shapes[id]!;
    if (shape.selectBy) roots.set(id, { select: { ...shape.selectBy } });
    if (!shape.properties) continue;
    const props: Record<string, KeyLink> = {};
    for (const [k, f] of Object.entries(shape.properties)) {
      const link = linkOf(f);
      if (link) props[k] = link;
    }
    const keys = shape.additionalProperties === true && !shape.openKeys ? Object.keys(shape.properties) : null;
    if (keys === null && !Object.keys(props).length) continue;
    shapes[id] = { keys, props };
    roots.set(id, { shape: id });
  }
  return { shapes, roots };
}
