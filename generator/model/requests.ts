// Model: older.yaml's entity requests (the older interface's envelope plus each request's own fields), and
// v5.yaml's requirements by entity type.
import type { Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { FieldBuilder } from "./fields.js";
import type { MessageBook } from "./messages.js";
import type { EntityRequest, Model, V5Requirement } from "./types.js";

export function buildEntityRequests(ctx: ModelContext, fields: FieldBuilder): EntityRequest[] {
  const file = ctx.file("older.yaml");
  const older = ctx.root("older.yaml");
  const envelopeFields = fields.fieldMap({ file, path: ["envelope"] }, older.envelope.include, "fields");
  return Object.entries(older.entityRequests as Record<string, Raw>).map(([id, r]) => {
    const own = fields.fieldMap({ file, path: ["entityRequests", id] }, undefined, r.fields ? "fields" : undefined);
    return {
      id,
      source: r.source,
      title: r.title,
      description: r.description,
      interface: r.interface,
      examples: r.examples ?? [],
      fields: { ...envelopeFields, ...own },
    };
  });
}

export function buildV5(ctx: ModelContext, countries: Model["countries"], messages: MessageBook): Pick<Model, "v5Requirements" | "requiredDocumentMessage"> {
  const v5 = ctx.root("v5.yaml");
  const v5Requirements: V5Requirement[] = Object.entries(v5.requirements as Record<string, Raw>).map(([type, r]) => ({
    type,
    source: r.source,
    addresses: r.addresses ?? [],
    documents: r.documents ?? [],
    identifiersFor: Object.entries((r.identifiersFor ?? {}) as Record<string, string[]>).map(([groupName, identifiers]) => ({
      countries: countries.groups[groupName]!,
      identifiers,
    })),
  }));
  return { v5Requirements, requiredDocumentMessage: messages.named[v5.requiredDocumentMessage]! };
}
