// Type fixture, checked by tsc (npm run typecheck, and test/types/types.test.ts): every
// `@ts-expect-error` must meet an error, so a type that stops rejecting a wrong literal fails the build.
import { expectTypeOf } from "vitest";
import type { createClient, UsState, v4, v5, VerificationStatus } from "../../generated/index.js";
import { isValid } from "../../generated/validators/index.js";
import type { WebhookPayload } from "../../generated/webhooks.js";

declare const req: v4.VerifyBody;
declare const client: ReturnType<typeof createClient>;

// seed 2.2: after narrowing on type and country, `state` is a USA state code.
if (req.type === "individual" && req.fields.country === "USA") {
  expectTypeOf(req.fields.state).toEqualTypeOf<UsState>();
  expectTypeOf(req.fields.postcode).toEqualTypeOf<string>();
  // @ts-expect-error `address` belongs to the European table (2.3), not the USA one.
  void req.fields.address;
}
if (req.type === "individual" && req.fields.country !== "USA") {
  expectTypeOf(req.fields.country).toEqualTypeOf<"AUT" | "BEL" | "CHE" | "DEU" | "FRA" | "GBR" | "NLD" | "NOR">();
  expectTypeOf(req.fields.locality).toEqualTypeOf<string>();
}
if (req.type === "governmentBody" && req.fields.country === "NZL") {
  // seed 2.5: the NZL column's legislation types.
  expectTypeOf(req.fields.legislationType).toEqualTypeOf<"national" | "local" | "other" | undefined>();
}
if (req.type === "trust") {
  const s = req.stakeholders[0]!;
  if (s.role === "beneficiaries") expectTypeOf(s.type).toEqualTypeOf<"individual">();
  if (s.type === "privateCompany") expectTypeOf(s.role).toEqualTypeOf<"trustee">();
}

const usa = {
  type: "individual",
  fields: {
    country: "USA",
    firstName: "Jane",
    lastName: "Citizen",
    dateOfBirth: "15/07/1985",
    streetNumber: "12",
    streetName: "Main",
    suburb: "Springfield",
    postcode: "62704",
    state: "IL",
  },
} as const satisfies v4.VerifyBody;
expectTypeOf(usa.fields.state).toEqualTypeOf<"IL">();

// @ts-expect-error DC is not one of the 50 state codes of seed 2.2.
const dc: v4.VerifyBody = { ...usa, fields: { ...usa.fields, state: "DC" } };

// @ts-expect-error `state` is not a field of the European individual table (2.3).
const euState: v4.entities.IndividualEuropeFields = { country: "DEU", firstName: "A", lastName: "B", dateOfBirth: "01/01/1990", address: "x", locality: "y", postcode: "1", state: "IL" };

// @ts-expect-error seed 2.4: an association has roles publicOfficer and shareholders, not trustee.
const badRole: v4.entities.AssociationStakeholder = { type: "individual", role: "trustee", fields: {} };

// @ts-expect-error seed 2.7: beneficiaries are individuals only; only a trustee may be a company.
const badType: v4.entities.TrustStakeholder = { type: "privateCompany", role: "beneficiaries", fields: {} };

const trustee: v4.entities.TrustStakeholder = { type: "privateCompany", role: "trustee", fields: { name: "Trustee Pty Ltd" } };

// @ts-expect-error `company` is not an entity kind of the older interface.
const badKind: v4.VerifyBody = { type: "company", fields: { country: "USA" } };

// @ts-expect-error an idform kind (2.9) is not a /verify kind.
const formKindOnVerify: v4.VerifyBody = { type: "soleTrader", fields: { country: "AUS" } };

// Stakeholder individual fields: `state` is a state code only when `country` is USA (seed 2.1, 2.2).
// @ts-expect-error DC with country USA.
const stakeDc: v4.StakeholderIndividualFields = { country: "USA", state: "DC" };
const stakeOther: v4.StakeholderIndividualFields = { country: "CAN", state: "ON" };

// The client bodies omit the credentials: the client adds them (seed: 5).
// @ts-expect-error metadata_secretKey is not part of a body the caller writes.
const withSecret: v4.GetVerificationStatusBody = { trace: "t", metadata_secretKey: "x" };
// @ts-expect-error exactly one lookup key (seed 4.3).
const bothKeys: v4.GetVerificationStatusBody = { trace: "t", userId: "u" };
// @ts-expect-error one lookup key is required.
const noKey: v4.GetVerificationStatusBody = {};
// The wire request carries them.
expectTypeOf<v4.GetVerificationStatusRequest["metadata_version"]>().toEqualTypeOf<"4">();

// Enums are string-literal unions.
expectTypeOf<v5.WebhookPayload["verificationStatus"]>().toEqualTypeOf<VerificationStatus | undefined>();
// @ts-expect-error "approved" is not a verification status (seed 3).
const badStatus: VerificationStatus = "approved";

// v5 documents narrow on `source`.
declare const doc: v5.Document;
if (doc.source === "base64") expectTypeOf(doc.data).toEqualTypeOf<string>();
// @ts-expect-error source is url or base64 (seed 2.11).
const badDoc: v5.Document = { kind: "trustDeed", mimeType: "application/pdf", source: "file", data: "x" };
// @ts-expect-error website is required (seed 2.11).
const noWebsite: v5.VerificationCreateRequest = { country: "AUS" };

// Client methods: typed bodies and results.
expectTypeOf(client.verify).parameter(0).toEqualTypeOf<v4.VerifyBody>();
expectTypeOf(client.v5.getVerification).returns.resolves.toEqualTypeOf<v5.VerificationGetResponse>();
expectTypeOf(client.idForm).returns.resolves.toEqualTypeOf<v4.IdFormResponse>();
// @ts-expect-error the follow-up request needs the path the seed does not show (4.4).
void client.submitRequestedActions({ verificationUuid: "v", requestedActions: [] });
// @ts-expect-error credentials in a body are refused at compile time.
void client.verify({ ...usa, metadata_secretKey: "x" });

// ---- Mistakes integrators make (issue 13) ----
// Request bodies are closed: a misspelt key does not compile (the validators still accept unknown keys,
// as the service does, unless `unknownKeys: "report"`).
const v5Body = { website: "https://www.example.com", identifiers: { abn: "51824753556" } } satisfies v5.VerificationCreateRequest;
// @ts-expect-error `identifers` is a typo of `identifiers`.
const typo: v5.VerificationCreateRequest = { website: "https://www.example.com", identifers: { abn: "51824753556" } };
// @ts-expect-error `fileNmae` is not a document field (2.11).
const docTypo: v5.Document = { kind: "trustDeed", mimeType: "application/pdf", source: "url", data: "https://x.test/d.pdf", fileNmae: "d.pdf" };
// @ts-expect-error `registredAddress` is not one of the three address keys (2.11).
const addressTypo: v5.Addresses = { registredAddress: "1 Example Street" };
// Identifier schemes are an open list (2.11: "e.g. abn, acn"): another scheme compiles.
const otherScheme: v5.Identifiers = { abn: "51824753556", lei: "5493001KJTIIGC8Y1R12" };
// Responses stay open: the service may send more than the table shows.
expectTypeOf<v5.VerificationDetail>().toHaveProperty("anything");

// Open value sets suggest the known values and accept others.
expectTypeOf<"trust">().toMatchTypeOf<v5.EntityType>();
expectTypeOf<"selfManagedSuperFund">().toMatchTypeOf<v5.EntityType>();
expectTypeOf<Extract<v5.EntitySubType, "discretionaryTrust">>().toEqualTypeOf<"discretionaryTrust">();
// @ts-expect-error a number is still not a type.
const numericType: v5.EntityType = 5;

// Webhook payloads narrow on `version`, and stakeholder payloads on `parentTrace`.
declare const payload: WebhookPayload;
if (payload.version === "v5") {
  expectTypeOf(payload.attempt).toEqualTypeOf<number>();
  if (payload.parentTrace !== undefined) expectTypeOf(payload.roles).toEqualTypeOf<string[] | undefined>();
  // @ts-expect-error an entity's own webhook carries no roles.
  else void payload.roles.length;
} else {
  expectTypeOf(payload.version).toEqualTypeOf<undefined>();
  // @ts-expect-error the older payload has no `attempt` typed as number: it is an unknown extra key.
  const _attempt: number = payload.attempt;
}

// isValid is a type guard.
declare const received: unknown;
if (isValid("v5.VerificationCreateRequest", received)) expectTypeOf(received.website).toEqualTypeOf<string>();
if (isValid("v4.Gender", received)) expectTypeOf(received).toEqualTypeOf<v4.Gender>();
// @ts-expect-error an unknown schema id.
void isValid("v5.Nothing", received);
// @ts-expect-error without the guard, `unknown` has no properties.
void received.website;

// Issue 36: fields the specification always sends are typed present (no `!` under strict), the rest optional.
declare const created: Awaited<ReturnType<typeof client.v5.createVerification>>;
expectTypeOf(created.trace).toEqualTypeOf<string>();
expectTypeOf(created.data).toEqualTypeOf<null>();
declare const got: Awaited<ReturnType<typeof client.v5.getVerification>>;
expectTypeOf(got.data).toEqualTypeOf<v5.VerificationDetail>();
expectTypeOf(got.data.trace).toEqualTypeOf<string | undefined>();
// @ts-expect-error which detail fields are always present is not shown (2.11, 4.6): `verificationStatus` may be missing.
const detailStatus: VerificationStatus = got.data.verificationStatus;
// The v5 envelope is a union on `status` (2.11): success and error narrow.
declare const answer: v5.Envelope;
let errorType: string = "";
if (answer.status === "success") {
  expectTypeOf(answer.error).toEqualTypeOf<null>();
  expectTypeOf(answer.data).toEqualTypeOf<Record<string, unknown> | null>();
} else {
  expectTypeOf(answer.data).toEqualTypeOf<null>();
  expectTypeOf(answer.error).toEqualTypeOf<v5.ErrorObject>();
  // @ts-expect-error which fields every error object carries is not shown (7): `type` may be missing.
  errorType = answer.error.type;
}
expectTypeOf(answer.serviceUid).toEqualTypeOf<string>();
expectTypeOf(answer.help).toEqualTypeOf<string | null>();

export const used = [detailStatus, errorType, v5Body, typo, docTypo, addressTypo, otherScheme, numericType, dc, euState, badRole, badType, trustee, badKind, formKindOnVerify, stakeDc, stakeOther, withSecret, bothKeys, noKey, badStatus, badDoc, noWebsite];
