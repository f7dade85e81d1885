// Shapes as the types print them: request shapes closed (a misspelt key is a compile error), webhook
// payloads tagged so that a union of them narrows.
import type { Field, Model } from "../../model/types.js";
import { ABSENT } from "./printer.js";

/**
 * A request shape as a closed type: no index signature where the service accepts unknown keys without
 * using them, so that a misspelt key (`identifers`) is a compile error. The validators keep the service's
 * behaviour (unknown keys pass; `unknownKeys: "report"` flags them). Shapes with `openKeys` stay open.
 */
export function closed(f: Field): Field {
  const props = f.properties && Object.fromEntries(Object.entries(f.properties).map(([k, v]) => [k, closed(v)]));
  return {
    ...f,
    properties: props,
    additionalProperties: f.additionalProperties === true && f.properties && !f.openKeys ? undefined : f.additionalProperties,
    items: f.items && closed(f.items),
    oneOf: f.oneOf?.map(closed),
  };
}

/**
 * Webhook payloads narrow on their tag: a required `const` field one payload has (v5 `version`) is
 * declared absent (`?: never`) in the payloads without it (the older payload has no `version`,
 * specification section 6.3), so `payload.version === "v5"` narrows a `WebhookPayload` union.
 */
export function payloadTags(model: Model): Map<string, Record<string, Field>> {
  const shapes = model.webhookPayloads.map((p) => model.shapes[p.schema]).filter((s): s is NonNullable<typeof s> => !!s);
  const tagFields = shapes.flatMap((s) => Object.entries(s.properties ?? {}).filter(([, f]) => f.required === "yes" && f.const !== undefined));
  const out = new Map<string, Record<string, Field>>();
  for (const s of shapes) {
    const missing = tagFields.filter(([k]) => !s.properties?.[k]);
    if (missing.length)
      out.set(
        s.id,
        Object.fromEntries(
          missing.map(([k, f]) => [
            k,
            { ...f, required: "no", const: ABSENT, description: `Absent: only other payload formats carry \`${k}\`.`, source: undefined },
          ]),
        ),
      );
  }
  return out;
}
