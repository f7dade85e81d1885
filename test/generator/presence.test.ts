// Issue 36: which fields an answer always carries is stated once in spec/ (`presence:` and `required: true`)
// and reaches every output the same way: JSON Schema and OpenAPI `required` hold the always-present
// fields, `x-presence-not-shown` (sorted) the listed fields whose presence the specification leaves open.
// `verispec conform` reads exactly these two keys.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatDiagnostic, SpecError } from "../../generator/diagnostics.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { scratchSpec, type ScratchSpec } from "./helpers.js";

const root = new URL("../../", import.meta.url).pathname;
type Schema = { [k: string]: unknown };
const schema = (id: string): Schema => JSON.parse(readFileSync(join(root, "generated/schemas", `${id}.json`), "utf8"));
const ENVELOPE = ["timestamp", "serviceUid", "trace", "path", "pathParams", "statusCode", "message", "help", "status", "data", "error"];

/** Every object schema (with `properties`) inside a schema, with its pointer. */
function objects(s: unknown, pointer = "", out: [string, Schema][] = []): [string, Schema][] {
  if (Array.isArray(s)) s.forEach((x, i) => objects(x, `${pointer}/${i}`, out));
  else if (s && typeof s === "object") {
    const o = s as Schema;
    if (o.properties && typeof o.properties === "object") out.push([pointer, o]);
    for (const [k, v] of Object.entries(o)) if (k !== "examples" && k !== "properties") objects(v, `${pointer}/${k}`, out);
    for (const [k, v] of Object.entries((o.properties as Schema | undefined) ?? {})) objects(v, `${pointer}/properties/${k}`, out);
  }
  return out;
}

describe("the presence contract in the generated schemas", () => {
  it("the v5 envelope's fields are always present (2.11), in every v5 answer", () => {
    for (const id of ["v5.Envelope", "v5.SuccessEnvelope", "v5.ErrorEnvelope", "v5.VerificationCreateResponse", "v5.VerificationGetResponse"]) {
      expect(schema(id).required, id).toEqual(expect.arrayContaining(ENVELOPE));
      expect(schema(id)["x-presence-not-shown"], id).toBeUndefined();
    }
  });

  it("the webhook v5 payload: version, tags and attempt present (6.2); every other listed field in x-presence-not-shown, sorted", () => {
    const s = schema("v5.WebhookPayload");
    expect(s.required).toEqual(["version", "tags", "attempt"]);
    const open = s["x-presence-not-shown"] as string[];
    expect(open).toEqual([...open].sort());
    expect(new Set([...open, ...(s.required as string[])])).toEqual(new Set(Object.keys(s.properties as Schema)));
  });

  it("the verification detail and the older answers keep every field optional and say so", () => {
    expect(schema("v5.VerificationDetail").required).toBeUndefined();
    expect(schema("v5.VerificationDetail")["x-presence-not-shown"]).toContain("verificationStatus");
    expect(schema("v4.GetVerificationStatusResponse")["x-presence-not-shown"]).toEqual([
      "entityType",
      "idvRiskScore",
      "name",
      "signature",
      "submissionId",
      "submissionStatus",
      "timestamp",
      "trace",
      "userId",
      "verificationStatus",
    ]);
    expect(schema("v4.IdFormResponse").required).toEqual(["source", "serviceLink", "verificationUuid", "status"]);
  });

  it("in every answer schema and in openapi.json, each object of an answer splits its fields into required and x-presence-not-shown", () => {
    const answers = [
      "v4.VerifyResponse",
      "v4.IdFormResponse",
      "v4.GetVerificationStatusResponse",
      "v4.WebhookPayload",
      "v5.WebhookPayload",
      "v5.Envelope",
      "v5.VerificationCreateResponse",
      "v5.VerificationGetResponse",
      "v5.ErrorEnvelope",
    ];
    let checked = 0;
    for (const id of answers) {
      for (const [pointer, o] of objects(schema(id))) {
        if (
          pointer.includes("/allOf/") ||
          pointer.includes("/if") ||
          pointer.includes("/then") ||
          pointer.includes("/else") ||
          (pointer.includes("/oneOf/") && !o.title)
        )
          continue;
        const props = Object.keys(o.properties as Schema);
        const required = (o.required as string[] | undefined) ?? [];
        const open = (o["x-presence-not-shown"] as string[] | undefined) ?? [];
        expect(
          required.filter((k) => open.includes(k)),
          `${id}#${pointer}`,
        ).toEqual([]);
        expect(new Set([...required, ...open]), `${id}#${pointer}`).toEqual(new Set(props));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
    const openapi = JSON.parse(readFileSync(join(root, "generated/openapi.json"), "utf8")) as { components: { schemas: Record<string, Schema> } };
    for (const id of ["v5.WebhookPayload", "v5.VerificationDetail", "v4.WebhookPayload"]) {
      expect(openapi.components.schemas[id]!["x-presence-not-shown"], id).toEqual(schema(id)["x-presence-not-shown"]);
      expect(openapi.components.schemas[id]!.required, id).toEqual(schema(id).required);
    }
    expect(readdirSync(join(root, "generated/schemas")).length).toBeGreaterThan(40);
  });
});

let scratch: ScratchSpec | undefined;
afterEach(() => {
  scratch?.remove();
  scratch = undefined;
});

function diagnosticsOf(edits: readonly [file: string, from: string, to: string][]): string[] {
  scratch = scratchSpec();
  for (const [file, from, to] of edits) scratch.edit(file, from, to);
  try {
    modelFromSpec(scratch.spec);
    return [];
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    return e.diagnostics.map(formatDiagnostic);
  }
}

describe("presence is stated on every object the service sends (VS437, VS438)", () => {
  it("an answer's object without `presence` is reported where it stands", () => {
    expect(diagnosticsOf([["older.yaml", '    presence: { source: "2.9" }\n', ""]])).toEqual([
      expect.stringMatching(/^spec\/older\.yaml:\d+:\d+: error VS437: found an object the service sends without `presence`; expected /),
    ]);
  });

  it("fields left optional without the sentence that says their presence is not shown", () => {
    const found = diagnosticsOf([
      [
        "webhooks.yaml",
        '      unknown: "Which fields other than `version`, `tags` and `attempt` are always present: not shown, so the others are optional."\n',
        "",
      ],
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^spec\/webhooks\.yaml:\d+:\d+: error VS438: found fields whose presence is not shown \(userId, onBehalfUid, trace, .*\) and no `presence.unknown`/,
    );
  });
});
