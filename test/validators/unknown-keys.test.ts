// `unknownKeys`: the service accepts keys its tables do not list (seed 2.11), so do the validators by
// default; `unknownKeys: "report"` flags them as Zod's `unrecognized_keys` issue (issue 13).
import { describe, expect, it } from "vitest";
import { validate, validateV5Stakeholder, validateV5VerificationCreateRequest } from "../../generated/validators/index.js";

const body = {
  website: "https://www.example.com",
  identifers: { abn: "51824753556" },
  identifiers: { abn: "51824753556", lei: "5493001KJTIIGC8Y1R12" },
  addresses: { registeredAddress: "1 Example Street", postalAddress: "PO Box 1" },
  documents: [
    { kind: "other", mimeType: "application/pdf", source: "url", data: "https://x.test/a.pdf" },
    { kind: "other", mimeType: "application/pdf", source: "url", data: "https://x.test/b.pdf", fileNmae: "b.pdf", size: 3 },
  ],
  stakeholders: [
    { role: "director", entity: { name: "Jane", nmae: "x" } },
    { name: "Joe", roles: ["partner"], rol: "x" },
  ],
};

describe("unknownKeys", () => {
  it('accepts unknown keys by default and with "accept", as the service does', () => {
    expect(validateV5VerificationCreateRequest(body)).toEqual({ valid: true });
    expect(validate("v5.VerificationCreateRequest", body, { unknownKeys: "accept" })).toEqual({ valid: true });
  });

  it("reports each object's unknown keys at its path, through documents, both stakeholder shapes and addresses", () => {
    const r = validate("v5.VerificationCreateRequest", body, { unknownKeys: "report" });
    expect(r).toEqual({
      valid: false,
      errors: [
        { code: "unrecognized_keys", message: 'Unrecognized key: "identifers"', path: [] },
        { code: "unrecognized_keys", message: 'Unrecognized key: "postalAddress"', path: ["addresses"] },
        { code: "unrecognized_keys", message: 'Unrecognized keys: "fileNmae", "size"', path: ["documents", 1] },
        { code: "unrecognized_keys", message: 'Unrecognized key: "nmae"', path: ["stakeholders", 0, "entity"] },
        { code: "unrecognized_keys", message: 'Unrecognized key: "rol"', path: ["stakeholders", 1] },
      ],
    });
  });

  it('leaves identifier schemes alone: their list is open (2.11 "e.g. abn, acn")', () => {
    const r = validate("v5.VerificationCreateRequest", { website: "https://www.example.com", identifiers: { lei: "x" } }, { unknownKeys: "report" });
    expect(r).toEqual({ valid: true });
  });

  it("adds the unknown keys after the schema's own issues", () => {
    const r = validateV5VerificationCreateRequest({ website: "", websit: "x" }, { unknownKeys: "report" });
    expect(r.valid).toBe(false);
    expect(!r.valid && r.errors.map((e) => e.code)).toEqual(["too_small", "unrecognized_keys"]);
  });

  it("applies from a stakeholder's own validator, choosing the shape by `role`", () => {
    expect(validateV5Stakeholder({ role: "director", entity: {}, extra: 1 }, { unknownKeys: "report" })).toEqual({
      valid: false,
      errors: [{ code: "unrecognized_keys", message: 'Unrecognized key: "extra"', path: [] }],
    });
  });

  it("changes nothing for the older bodies, whose objects are closed by the schema already", () => {
    const older = { metadata_version: "4", metadata_serviceUid: "u", metadata_secretKey: "s", trace: "t", extra: 1 };
    expect(validate("v4.GetVerificationStatusRequest", older, { unknownKeys: "report" })).toEqual(validate("v4.GetVerificationStatusRequest", older));
  });
});
