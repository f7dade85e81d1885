// Who reads each shape: request senders (reachable from a request body or an entity kind) and/or
// response and webhook readers (reachable from a response, an error body or a webhook payload), and the
// first operation or webhook that reaches it (for the finding's location).
import type { Field, Model } from "../model/types.js";
import type { Direction } from "./compare-schemas.js";

export interface Use {
  readonly direction: Direction;
  readonly operation?: string;
  readonly webhook?: string;
}

function refsOf(field: Field, out: string[]): string[] {
  if (field.ref) out.push(field.ref);
  for (const p of Object.values(field.properties ?? {})) refsOf(p, out);
  if (typeof field.additionalProperties === "object") refsOf(field.additionalProperties, out);
  if (field.items) refsOf(field.items, out);
  for (const b of field.oneOf ?? []) refsOf(b, out);
  for (const c of field.when) for (const p of Object.values(c.properties)) refsOf(p, out);
  if (field.selectBy) out.push(field.selectBy.then, field.selectBy.else);
  return out;
}

/** Shape id -> its uses, at most one per direction (the first root in spec order that reaches it). */
export function shapeUses(model: Model): Map<string, Use[]> {
  const uses = new Map<string, Use[]>();
  const visit = (id: string, use: Use) => {
    const list = uses.get(id) ?? [];
    if (list.some((u) => u.direction === use.direction)) return;
    uses.set(id, [...list, use]);
    const shape = model.shapes[id];
    if (shape) for (const r of refsOf(shape, [])) visit(r, use);
  };
  const visitFields = (fields: Readonly<Record<string, Field>>, use: Use) => {
    for (const f of Object.values(fields)) for (const r of refsOf(f, [])) visit(r, use);
  };
  // Webhooks first: a payload shape that a response also carries is located at its webhook.
  for (const w of model.webhookPayloads) visit(w.schema, { direction: "response", webhook: w.name });
  for (const e of model.endpoints) {
    if (e.request) {
      visit(e.request, { direction: "request", operation: e.operationId });
      const entityRequest = model.entityRequests.find((r) => r.id === e.request);
      if (entityRequest) {
        visitFields(entityRequest.fields, { direction: "request", operation: e.operationId });
        for (const k of model.entityKinds.filter((x) => x.interface === entityRequest.interface)) {
          for (const b of k.branches) visitFields(b.fields, { direction: "request", operation: e.operationId });
        }
      }
    }
    for (const s of Object.values(e.responses)) visit(s, { direction: "response", operation: e.operationId });
    visit(e.errorBody, { direction: "response", operation: e.operationId });
    for (const f of Object.values(e.pathParams)) for (const r of refsOf(f, [])) visit(r, { direction: "request", operation: e.operationId });
  }
  for (const t of model.stakeholderTypes) visit(t.fields, { direction: "request", ...operationOfInterface(model, "verify") });
  return uses;
}

/** The operation whose request body carries the entity kinds of an interface. */
export function operationOfInterface(model: Model, iface: string): { operation?: string } {
  const entityRequest = model.entityRequests.find((x) => x.interface === iface);
  const endpoint = entityRequest ? model.endpoints.find((x) => x.request === entityRequest.id) : undefined;
  return endpoint ? { operation: endpoint.operationId } : {};
}
