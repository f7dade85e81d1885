/**
 * Validators (issues 3 and 14): the generated validator beside Ajv compiling the published schema at
 * run time, Zod 4, TypeBox's compiled checker and a hand-written checker, on a valid and an invalid
 * older USA individual (seed: 2.2) and a v5 trust with stakeholders and documents (seed: 2.11).
 * Invalid payloads: every peer collects all its errors (the generated one maps each to the service's
 * `{ message, code, path }`); a hand-written checker that stops at the first error is a different job
 * and labelled so. Also: cold import of the validators, in fresh plain `node` processes.
 *
 * Measured by bench/lib/harness.ts (each pair in a fresh process): npm run bench -- validators
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Type, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { z } from "zod";
import type { Batch, ImportSuite, ThroughputSuite } from "./lib/suite.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const STATES = [
  "AL",
  "AK",
  "AZ",
  "AR",
  "CA",
  "CO",
  "CT",
  "DE",
  "FL",
  "GA",
  "HI",
  "ID",
  "IL",
  "IN",
  "IA",
  "KS",
  "KY",
  "LA",
  "ME",
  "MD",
  "MA",
  "MI",
  "MN",
  "MS",
  "MO",
  "MT",
  "NE",
  "NV",
  "NH",
  "NJ",
  "NM",
  "NY",
  "NC",
  "ND",
  "OH",
  "OK",
  "OR",
  "PA",
  "RI",
  "SC",
  "SD",
  "TN",
  "TX",
  "UT",
  "VT",
  "VA",
  "WA",
  "WV",
  "WI",
  "WY",
] as const;
const NAME = /^[\p{L}'\u2019 -]+$/u;
const DATE =
  /^(?:(?:(?:0[1-9]|1[0-9]|2[0-8])\/(?:0[1-9]|1[0-2])|(?:29|30)\/(?:0[13-9]|1[0-2])|31\/(?:0[13578]|1[02]))\/[0-9]{4}|29\/02\/(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00))$/;
const DATA_URI =
  /^data:[a-z]+\/[A-Za-z0-9.+-]+;base64,(?:(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/;
const PDF = "data:application/pdf;base64,JVBERi0xLjQK";

const usaValid = {
  metadata_version: "4",
  metadata_serviceUid: "svc",
  metadata_secretKey: "key",
  metadata_userId: "u-1",
  type: "individual",
  fields: {
    country: "USA",
    firstName: "José",
    middleName: "Anne-Marie",
    lastName: "O'Brien",
    dateOfBirth: "15/07/1985",
    unitNumber: null,
    streetNumber: "12",
    streetName: "Main",
    streetType: "St",
    suburb: "Springfield",
    postcode: "62701",
    state: "IL",
    socialSecurityNumber: "123-45-6789",
    gender: "female",
    phone: "+1 555 0100",
    email: "jo@example.com",
  },
};
const usaInvalid = {
  ...usaValid,
  fields: { ...usaValid.fields, firstName: "a".repeat(80), dateOfBirth: "31/02/1990", postcode: "1234", state: "DC", gender: "x" },
};
export const trustValid = {
  userId: "customer-42",
  country: "AUS",
  type: "trust",
  subType: "discretionaryTrust",
  name: "Example Family Trust",
  website: "https://www.example.com",
  identifiers: { abn: "51824753556" },
  addresses: { registeredAddress: "1 Example Street, Sydney NSW 2000" },
  documents: [{ kind: "trustDeed", mimeType: "application/pdf", source: "base64", data: PDF, fileName: "trust-deed.pdf" }],
  stakeholders: [
    { type: "individual", name: "Jane Citizen", country: "AUS", roles: ["trustee"] },
    { type: "individual", name: "John Citizen", country: "AUS", roles: ["beneficiary"] },
  ],
  tags: ["segment:retail"],
};
const trustInvalid = {
  ...trustValid,
  name: "n".repeat(200),
  website: "",
  identifiers: { abn: "123" },
  documents: [{ ...trustValid.documents[0]!, source: "url", data: "https://x.example/d.pdf" }],
};

// ---- Zod 4 -------------------------------------------------------------------------------------------
const zUsa = z.strictObject({
  metadata_version: z.literal("4"),
  metadata_serviceUid: z.string(),
  metadata_secretKey: z.string(),
  metadata_userId: z.string().optional(),
  metadata_tags: z.array(z.string()).optional(),
  type: z.literal("individual"),
  fields: z.strictObject({
    country: z.literal("USA"),
    firstName: z.string().min(1).max(79).regex(NAME),
    middleName: z.string().min(1).max(79).regex(NAME).optional(),
    lastName: z.string().min(1).max(79).regex(NAME),
    dateOfBirth: z.string().regex(DATE),
    unitNumber: z.string().min(1).nullable().optional(),
    streetNumber: z.string().min(1),
    streetName: z.string().min(1),
    streetType: z.string().min(1).nullable().optional(),
    suburb: z.string().min(1),
    postcode: z.string().regex(/^[0-9]{5}$/),
    state: z.enum(STATES),
    socialSecurityNumber: z
      .string()
      .regex(/^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$/)
      .optional(),
    gender: z.enum(["male", "female", "other", "preferNotToSay"]).optional(),
    phone: z.string().optional(),
    email: z.string().optional(),
  }),
});
const zDoc = z
  .object({
    kind: z.string(),
    mimeType: z.string(),
    source: z.enum(["url", "base64"]),
    data: z.string(),
    fileName: z.string().optional(),
    description: z.string().optional(),
  })
  .superRefine((d, ctx) => {
    if (d.source === "base64" && !DATA_URI.test(d.data)) ctx.addIssue({ code: "custom", message: "Invalid data", path: ["data"] });
  });
const zStakeholder = z
  .object({
    type: z.string().optional(),
    name: z.string().optional(),
    country: z.string().optional(),
    roles: z.array(z.string()).optional(),
    role: z.string().optional(),
    entity: z.object({}).loose().optional(),
  })
  .loose();
const zTrust = z
  .object({
    userId: z.string().optional(),
    country: z.string().optional(),
    type: z.string().optional(),
    subType: z.string().optional(),
    name: z.string().max(199, "Name must be less than 200 characters.").optional(),
    website: z.string().min(1, "Website is required."),
    identifiers: z
      .object({
        abn: z
          .string()
          .regex(/^[0-9]{11}$/, "ABN must be exactly 11 digits.")
          .optional(),
      })
      .loose()
      .optional(),
    addresses: z.record(z.string(), z.string().max(200)).optional(),
    documents: z.array(zDoc).optional(),
    stakeholders: z.array(zStakeholder).optional(),
    tags: z.array(z.string()).optional(),
  })
  .loose()
  .superRefine((v, ctx) => {
    if (v.type === "trust" && !(v.documents ?? []).some((d) => d.kind === "trustDeed" && d.source === "base64"))
      ctx.addIssue({ code: "custom", message: "All required document types must have at least one document with file upload", path: ["documents"] });
  });

// ---- Hand-written TypeScript ----------------------------------------------------------------------------
type Issue = { path: string; message: string };
const isStr = (v: unknown): v is string => typeof v === "string";
const STATE_SET = new Set<string>(STATES);
const GENDERS = new Set(["male", "female", "other", "preferNotToSay"]);
const USA_KEYS = new Set([
  "country",
  "firstName",
  "middleName",
  "lastName",
  "dateOfBirth",
  "unitNumber",
  "streetNumber",
  "streetName",
  "streetType",
  "suburb",
  "postcode",
  "state",
  "socialSecurityNumber",
  "gender",
  "phone",
  "email",
]);
const ENV_KEYS = new Set(["metadata_version", "metadata_serviceUid", "metadata_secretKey", "metadata_userId", "metadata_tags", "type", "fields"]);
const name = (v: unknown) => isStr(v) && v.length >= 1 && v.length <= 79 && NAME.test(v);
/** Records an issue; true when the checker should stop (the first-error variant). */
const add = (out: Issue[], issue: Issue, stop: boolean) => (out.push(issue), stop);
// biome-ignore lint/suspicious/noExplicitAny: a hand-written checker of unknown JSON, written as its users write one
function handUsa(d: any, stop: boolean): Issue[] {
  const out: Issue[] = [];
  if (!d || typeof d !== "object" || Array.isArray(d)) return [{ path: "", message: "object" }];
  for (const k in d) if (!ENV_KEYS.has(k) && add(out, { path: k, message: "unknown" }, stop)) return out;
  if (d.metadata_version !== "4" && add(out, { path: "metadata_version", message: "4" }, stop)) return out;
  if (!isStr(d.metadata_serviceUid) && add(out, { path: "metadata_serviceUid", message: "string" }, stop)) return out;
  if (!isStr(d.metadata_secretKey) && add(out, { path: "metadata_secretKey", message: "string" }, stop)) return out;
  if (d.type !== "individual" && add(out, { path: "type", message: "individual" }, stop)) return out;
  const f = d.fields;
  if (!f || typeof f !== "object" || Array.isArray(f)) return [...out, { path: "fields", message: "object" }];
  for (const k in f) if (!USA_KEYS.has(k) && add(out, { path: `fields.${k}`, message: "unknown" }, stop)) return out;
  if (f.country !== "USA" && add(out, { path: "fields.country", message: "USA" }, stop)) return out;
  if (!name(f.firstName) && add(out, { path: "fields.firstName", message: "name" }, stop)) return out;
  if (f.middleName !== undefined && !name(f.middleName) && add(out, { path: "fields.middleName", message: "name" }, stop)) return out;
  if (!name(f.lastName) && add(out, { path: "fields.lastName", message: "name" }, stop)) return out;
  if ((!isStr(f.dateOfBirth) || !DATE.test(f.dateOfBirth)) && add(out, { path: "fields.dateOfBirth", message: "date" }, stop)) return out;
  for (const k of ["unitNumber", "streetType"])
    if (f[k] !== undefined && f[k] !== null && !(isStr(f[k]) && f[k].length >= 1) && add(out, { path: `fields.${k}`, message: "nonEmpty" }, stop)) return out;
  for (const k of ["streetNumber", "streetName", "suburb"])
    if (!(isStr(f[k]) && f[k].length >= 1) && add(out, { path: `fields.${k}`, message: "nonEmpty" }, stop)) return out;
  if ((!isStr(f.postcode) || !/^[0-9]{5}$/.test(f.postcode)) && add(out, { path: "fields.postcode", message: "postcode" }, stop)) return out;
  if (!STATE_SET.has(f.state) && add(out, { path: "fields.state", message: "state" }, stop)) return out;
  if (
    f.socialSecurityNumber !== undefined &&
    !(isStr(f.socialSecurityNumber) && /^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$/.test(f.socialSecurityNumber)) &&
    add(out, { path: "fields.socialSecurityNumber", message: "ssn" }, stop)
  )
    return out;
  if (f.gender !== undefined && !GENDERS.has(f.gender) && add(out, { path: "fields.gender", message: "gender" }, stop)) return out;
  for (const k of ["phone", "email"]) if (f[k] !== undefined && !isStr(f[k]) && add(out, { path: `fields.${k}`, message: "string" }, stop)) return out;
  return out;
}
// biome-ignore lint/suspicious/noExplicitAny: a hand-written checker of unknown JSON, written as its users write one
function handTrust(d: any, stop: boolean): Issue[] {
  const out: Issue[] = [];
  if (!d || typeof d !== "object" || Array.isArray(d)) return [{ path: "", message: "object" }];
  if (d.name !== undefined && !(isStr(d.name) && d.name.length < 200) && add(out, { path: "name", message: "name" }, stop)) return out;
  if (!isStr(d.website) || d.website.length === 0) {
    if (add(out, { path: "website", message: isStr(d.website) ? "Website is required." : "required" }, stop)) return out;
  }
  const ids = d.identifiers;
  if (
    ids !== undefined &&
    ids.abn !== undefined &&
    !(isStr(ids.abn) && /^[0-9]{11}$/.test(ids.abn)) &&
    add(out, { path: "identifiers.abn", message: "abn" }, stop)
  )
    return out;
  if (d.addresses !== undefined)
    for (const k in d.addresses)
      if (!(isStr(d.addresses[k]) && d.addresses[k].length <= 200) && add(out, { path: `addresses.${k}`, message: "address" }, stop)) return out;
  const docs = Array.isArray(d.documents) ? d.documents : [];
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i];
    for (const k of ["kind", "mimeType", "data"]) if (!isStr(doc?.[k]) && add(out, { path: `documents.${i}.${k}`, message: "string" }, stop)) return out;
    if (doc?.source !== "url" && doc?.source !== "base64" && add(out, { path: `documents.${i}.source`, message: "source" }, stop)) return out;
    if (doc?.source === "base64" && !(isStr(doc.data) && DATA_URI.test(doc.data)) && add(out, { path: `documents.${i}.data`, message: "dataUri" }, stop))
      return out;
  }
  const holders = Array.isArray(d.stakeholders) ? d.stakeholders : [];
  for (let i = 0; i < holders.length; i++) {
    if (holders[i]?.role === undefined && !Array.isArray(holders[i]?.roles) && add(out, { path: `stakeholders.${i}.roles`, message: "roles" }, stop))
      return out;
  }
  if (
    d.type === "trust" &&
    !docs.some((x: { kind?: unknown; source?: unknown } | null) => x?.kind === "trustDeed" && x?.source === "base64") &&
    add(out, { path: "documents", message: "required document" }, stop)
  )
    return out;
  return out;
}

// ---- TypeBox ----------------------------------------------------------------------------------------------
// Its fast path: patterns that need the `u` flag (the name's `\p{L}`) as Type.RegExp, which keeps the
// flags; a `pattern` string is compiled without them and rejects every valid name.
const tName = Type.RegExp(NAME, { minLength: 1, maxLength: 79 });
const tUsa = Type.Object(
  {
    metadata_version: Type.Literal("4"),
    metadata_serviceUid: Type.String(),
    metadata_secretKey: Type.String(),
    metadata_userId: Type.Optional(Type.String()),
    metadata_tags: Type.Optional(Type.Array(Type.String())),
    type: Type.Literal("individual"),
    fields: Type.Object(
      {
        country: Type.Literal("USA"),
        firstName: tName,
        middleName: Type.Optional(tName),
        lastName: tName,
        dateOfBirth: Type.String({ pattern: DATE.source }),
        unitNumber: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
        streetNumber: Type.String({ minLength: 1 }),
        streetName: Type.String({ minLength: 1 }),
        streetType: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
        suburb: Type.String({ minLength: 1 }),
        postcode: Type.String({ pattern: "^[0-9]{5}$" }),
        state: Type.Union(STATES.map((s) => Type.Literal(s))),
        socialSecurityNumber: Type.Optional(Type.String({ pattern: "^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$" })),
        gender: Type.Optional(Type.Union(["male", "female", "other", "preferNotToSay"].map((g) => Type.Literal(g)))),
        phone: Type.Optional(Type.String()),
        email: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
// The same document rules verispec checks: a base64 document's data is a Data URI; a stakeholder has
// `roles`, or `role` with `entity`.
const tDocFields = { kind: Type.String(), mimeType: Type.String(), fileName: Type.Optional(Type.String()), description: Type.Optional(Type.String()) };
const tDoc = Type.Union([
  Type.Object({ ...tDocFields, source: Type.Literal("url"), data: Type.String() }),
  Type.Object({ ...tDocFields, source: Type.Literal("base64"), data: Type.RegExp(DATA_URI) }),
]);
const tEntityFields = {
  type: Type.Optional(Type.String()),
  subType: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
};
const tStakeholder = Type.Union([
  Type.Object({ ...tEntityFields, roles: Type.Array(Type.String()) }),
  Type.Object({ role: Type.String(), entity: Type.Object(tEntityFields) }),
]);
export const tTrust = Type.Object({
  userId: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  subType: Type.Optional(Type.String()),
  name: Type.Optional(Type.String({ maxLength: 199 })),
  website: Type.String({ minLength: 1 }),
  identifiers: Type.Optional(Type.Object({ abn: Type.Optional(Type.String({ pattern: "^[0-9]{11}$" })) })),
  addresses: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 200 }))),
  documents: Type.Optional(Type.Array(tDoc)),
  stakeholders: Type.Optional(Type.Array(tStakeholder)),
  tags: Type.Optional(Type.Array(Type.String())),
});
export const typebox = (schema: TSchema) => {
  const c = TypeCompiler.Compile(schema);
  return (d: unknown) => (c.Check(d) ? 0 : [...c.Errors(d)].length);
};

// ---- The suites -----------------------------------------------------------------------------------------
type Check = (d: unknown) => unknown;
const PAYLOADS: Readonly<Record<string, { readonly label: string; readonly data: unknown; readonly schema: "usa" | "trust" }>> = {
  "usa-valid": { label: "USA individual, valid", data: usaValid, schema: "usa" },
  "usa-invalid": { label: "USA individual, invalid (5 errors)", data: usaInvalid, schema: "usa" },
  "trust-valid": { label: "v5 trust, valid", data: trustValid, schema: "trust" },
  "trust-invalid": { label: "v5 trust, invalid (4 errors)", data: trustInvalid, schema: "trust" },
};
const IMPLS = [
  { id: "verispec", label: "verispec (generated)" },
  { id: "ajv", label: "Ajv, compiled at run time (raw errors)" },
  { id: "verispec-raw", label: "verispec's generated Ajv code alone (raw errors, unmapped: the bound)" },
  { id: "zod", label: "Zod 4" },
  { id: "typebox", label: "TypeBox compiled" },
  { id: "hand", label: "hand-written, every error" },
  { id: "hand-first", label: "hand-written, first error only (a different job)" },
] as const;

/** Built in the child process, for one pair only. */
async function checker(schema: "usa" | "trust", impl: string): Promise<Check> {
  const usa = schema === "usa";
  switch (impl) {
    case "verispec": {
      // What an integrator imports: the one validator's module.
      if (usa) return (await import("../generated/validators/v4.VerifyRequest.js")).validateV4VerifyRequest;
      return (await import("../generated/validators/v5.VerificationCreateRequest.js")).validateV5VerificationCreateRequest;
    }
    case "verispec-raw": {
      // The same compiled checks without the wrapper and the mapping: what the mapping costs is the difference.
      const raw = await import("../generated/validators/ajv.js");
      const fn = usa ? raw.rawV4VerifyRequest : raw.rawV5VerificationCreateRequest;
      return (d) => (fn.call(undefined, d) ? 0 : fn.errors!.length);
    }
    case "ajv": {
      const { publishedSchema, runtimeAjv } = await import("../test/validators/helpers.js");
      const fn = runtimeAjv().compile(publishedSchema(usa ? "v4.VerifyRequest" : "v5.VerificationCreateRequest"));
      return (d) => (fn(d) ? 0 : fn.errors!.length);
    }
    case "zod": {
      const zs = usa ? zUsa : zTrust;
      return (d) => zs.safeParse(d);
    }
    case "typebox":
      return typebox(usa ? tUsa : tTrust);
    case "hand":
      return usa ? (d) => handUsa(d, false) : (d) => handTrust(d, false);
    case "hand-first":
      return usa ? (d) => handUsa(d, true) : (d) => handTrust(d, true);
    default:
      throw new Error(`unknown implementation ${impl}`);
  }
}

function saysValid(impl: string, result: unknown): boolean {
  if (impl === "verispec") return (result as { valid: boolean }).valid;
  if (impl === "zod") return (result as { success: boolean }).success;
  if (impl.startsWith("hand")) return (result as Issue[]).length === 0;
  return result === 0; // Ajv (run time and generated) and TypeBox: the error count
}

export const throughput: ThroughputSuite = {
  kind: "throughput",
  id: "validators",
  title: "Validators",
  notes: [
    "Invalid payloads: every implementation collects all its errors (verispec maps each to the service's `{ message, code, path }`),",
    "except the first-error row. Ajv and verispec check the full published schema; the Zod, TypeBox and hand-written peers check",
    "the rules of these payloads (names, dates, enums, the Data URI of a base64 document, the stakeholder shapes), not every rule of the schema.",
  ],
  payloads: Object.entries(PAYLOADS).map(([id, p]) => ({ id, label: p.label })),
  impls: IMPLS,
  ours: "verispec",
  targets: [
    { peer: "ajv", min: 1.0 },
    { peer: "typebox", payloads: ["trust-valid"], min: 1.0 },
    { peer: "zod", payloads: ["usa-invalid", "trust-invalid"], min: 10 },
    // Issue 41: within 1.5x of the hand-written checker collecting every error, and the mapping to the
    // service's errors at most 1.3x the generated code's own time (speed ratios: 1 / 1.5 and 1 / 1.3).
    { peer: "hand", payloads: ["usa-invalid"], min: 1 / 1.5 },
    { peer: "verispec-raw", payloads: ["usa-invalid", "trust-invalid"], min: 1 / 1.3 },
  ],
  async load(payload, impl): Promise<Batch> {
    const p = PAYLOADS[payload];
    if (!p) throw new Error(`unknown payload ${payload}`);
    const check = await checker(p.schema, impl);
    const data = p.data;
    // Every implementation must give the expected verdict, or its figure measures another path.
    if (saysValid(impl, check(data)) !== payload.endsWith("-valid")) throw new Error(`${impl} gives the wrong verdict on ${payload}`);
    return (n) => {
      let sink = 0;
      for (let i = 0; i < n; i++) sink += check(data) ? 1 : 0;
      return sink;
    };
  },
};

const moduleUrl = (...parts: string[]) => pathToFileURL(join(ROOT, ...parts)).href;

export const imports: ImportSuite = {
  kind: "import",
  id: "validators-import",
  title: "Validators: cold import",
  notes: [
    "Each sample a fresh plain `node` process timing one `await import(...)`; per round the fastest of 3 samples of each module, minus the empty module's.",
    "Ajv alone: its package entry (`ajv`, what compiling schemas at run time needs before compiling any); the ratio is per round, both over the empty module.",
  ],
  modules: [
    { id: "empty", label: "an empty module", url: moduleUrl("bench", "lib", "empty.js") },
    { id: "all", label: "all validators (`generated/validators/index.js`)", url: moduleUrl("generated", "validators", "index.js") },
    {
      id: "one-v5",
      label: "one validator (`generated/validators/v5.VerificationCreateRequest.js`)",
      url: moduleUrl("generated", "validators", "v5.VerificationCreateRequest.js"),
    },
    { id: "one-v4", label: "one validator (`generated/validators/v4.VerifyRequest.js`)", url: moduleUrl("generated", "validators", "v4.VerifyRequest.js") },
    { id: "ajv", label: 'Ajv alone (`import "ajv"`)', url: pathToFileURL(require.resolve("ajv")).href },
  ],
  baseline: "empty",
  samplesPerRound: 3,
  targets: { all: 15, "one-v5": 3 },
  ratioTargets: [{ module: "all", peer: "ajv", max: 0.25 }],
};

export const suites = [throughput, imports];
