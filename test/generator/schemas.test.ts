// The published JSON Schemas: standalone, draft 2020-12, strict-mode clean, and their examples valid.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { VENDOR_KEYWORDS } from "../../generator/emit/schema-builder.js";
import { ROOT } from "./helpers.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const dir = join(ROOT, "generated", "schemas");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();

function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, discriminator: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const k of VENDOR_KEYWORDS) ajv.addKeyword(k);
  return ajv;
}

const REQUIRED_IDS = [
  "v4.VerifyRequest",
  "v4.IdFormRequest",
  "v4.GetVerificationStatusRequest",
  "v4.RequestedActionsRequest",
  "v5.VerificationCreateRequest",
  "v4.IdFormResponse",
  "v4.WebhookPayload",
  "v5.WebhookPayload",
  "v5.VerificationDetail",
  "v5.Envelope",
  "v4.entities.Individual",
  "v4.entities.Association",
  "v4.entities.GovernmentBody",
  "v4.entities.PrivateCompany",
  "v4.entities.UnRegulatedTrust",
  "v4.entities.Trust",
  "v4.entities.Partnership",
  "v4.entities.RegulatedTrust",
  "v4.entities.SoleTrader",
  "v4.entities.PublicCompany",
];

describe("generated/schemas", () => {
  it("has at least the ids the contract names", () => {
    expect(files.map((f) => f.replace(/\.json$/, ""))).toEqual(expect.arrayContaining(REQUIRED_IDS));
  });

  describe.each(files)("%s", (file) => {
    const schema = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>;

    it("is draft 2020-12 with $id, title and no external $ref", () => {
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.$id).toBe(`https://verispec.dev/schemas/${file}`);
      expect(typeof schema.title).toBe("string");
      const refs = JSON.stringify(schema).match(/"\$ref":"[^"]*"/g) ?? [];
      for (const r of refs) expect(r).toMatch(/^"\$ref":"#(\/\$defs\/[^"]+)?"$/);
    });

    it("compiles in Ajv strict mode", () => {
      expect(typeof strictAjv().compile(schema)).toBe("function");
    });

    const examples = (schema.examples as unknown[] | undefined) ?? [];
    if (examples.length > 0) {
      it(`accepts its ${examples.length} example(s)`, () => {
        const validate = strictAjv().compile(schema);
        for (const example of examples) expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
      });
    }
  });
});

describe("a few seed rules, straight from the schemas", () => {
  const compile = (id: string) => strictAjv().compile(JSON.parse(readFileSync(join(dir, `${id}.json`), "utf8")));
  const trustee = { type: "individual", role: "trustee", fields: { firstName: "Jane", lastName: "Citizen" } };
  const trust = (over: Record<string, unknown> = {}) => ({
    type: "trust",
    fields: {
      country: "DEU",
      name: "Familienstiftung",
      registeredOfficeRequired: "Hauptstr. 1, Berlin",
      trustDeed: "data:application/pdf;base64,JVBERi0xLjQK",
    },
    stakeholders: [trustee],
    ...over,
  });

  it("a DEU trust needs a trustee (seed 2.7)", () => {
    const v = compile("v4.entities.Trust");
    expect(v(trust())).toBe(true);
    expect(v(trust({ stakeholders: [{ ...trustee, role: "settlors" }] }))).toBe(false);
  });

  it("ARBN is allowed on a trust but not on a partnership (seed 2.10)", () => {
    expect(compile("v4.entities.Trust")(trust({ fields: { ...trust().fields, ARBN: "123456789" } }))).toBe(true);
    const partnership = {
      type: "partnership",
      fields: {
        country: "NZL",
        name: "P",
        nzbn: "9429041234567",
        principalPlaceOfBusinessRequired: "1 Queen St",
        partnershipAgreement: "data:image/png;base64,iVBORw0KGgo=",
        ARBN: "123456789",
      },
      stakeholders: [{ type: "individual", role: "partners", fields: {} }],
    };
    expect(compile("v4.entities.Partnership")(partnership)).toBe(false);
  });

  it("a role's allowed types are enforced: a settlor cannot be a company (seed 2.7)", () => {
    expect(compile("v4.entities.Trust")(trust({ stakeholders: [trustee, { type: "privateCompany", role: "settlors", fields: {} }] }))).toBe(false);
    expect(compile("v4.entities.Trust")(trust({ stakeholders: [{ type: "privateCompany", role: "trustee", fields: {} }] }))).toBe(true);
  });
});
