/**
 * Validators (issue 3, item 8): the generated validator beside Zod 4, Ajv compiling at run time, a
 * hand-written TypeScript check and TypeBox's compiled checker, in one run, on a valid and an invalid
 * older USA individual (seed: 2.2) and a v5 trust with stakeholders and documents (seed: 2.11).
 * Invalid payloads: every peer collects all its errors (the generated one maps them to the service's
 * `{ message, code, path }`). Also: the time to import all validators (a fresh node per sample).
 *
 * Run alone: npx tsx bench/validators.bench.ts
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Type, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Bench } from "tinybench";
import { z } from "zod";
import { validateV4VerifyRequest, validateV5VerificationCreateRequest } from "../generated/validators/index.js";
import { publishedSchema, runtimeAjv } from "../test/validators/helpers.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BATCH = 32;
const STATES = ["AL","AK","AZ","AR","CA","CO","CT","DE","FL","GA","HI","ID","IL","IN","IA","KS","KY","LA","ME","MD","MA","MI","MN","MS","MO","MT","NE","NV","NH","NJ","NM","NY","NC","ND","OH","OK","OR","PA","RI","SC","SD","TN","TX","UT","VT","VA","WA","WV","WI","WY"] as const;
const NAME = /^[\p{L}'\u2019 -]+$/u;
const DATE = /^(?:(?:(?:0[1-9]|1[0-9]|2[0-8])\/(?:0[1-9]|1[0-2])|(?:29|30)\/(?:0[13-9]|1[0-2])|31\/(?:0[13578]|1[02]))\/[0-9]{4}|29\/02\/(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00))$/;
const DATA_URI = /^data:[a-z]+\/[A-Za-z0-9.+-]+;base64,(?:(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/;
const PDF = "data:application/pdf;base64,JVBERi0xLjQK";

const usaValid = { metadata_version: "4", metadata_serviceUid: "svc", metadata_secretKey: "key", metadata_userId: "u-1", type: "individual", fields: { country: "USA", firstName: "José", middleName: "Anne-Marie", lastName: "O'Brien", dateOfBirth: "15/07/1985", unitNumber: null, streetNumber: "12", streetName: "Main", streetType: "St", suburb: "Springfield", postcode: "62701", state: "IL", socialSecurityNumber: "123-45-6789", gender: "female", phone: "+1 555 0100", email: "jo@example.com" } };
const usaInvalid = { ...usaValid, fields: { ...usaValid.fields, firstName: "a".repeat(80), dateOfBirth: "31/02/1990", postcode: "1234", state: "DC", gender: "x" } };
const trustValid = { userId: "customer-42", country: "AUS", type: "trust", subType: "discretionaryTrust", name: "Example Family Trust", website: "https://www.example.com", identifiers: { abn: "51824753556" }, addresses: { registeredAddress: "1 Example Street, Sydney NSW 2000" }, documents: [{ kind: "trustDeed", mimeType: "application/pdf", source: "base64", data: PDF, fileName: "trust-deed.pdf" }], stakeholders: [{ type: "individual", name: "Jane Citizen", country: "AUS", roles: ["trustee"] }, { type: "individual", name: "John Citizen", country: "AUS", roles: ["beneficiary"] }], tags: ["segment:retail"] };
const trustInvalid = { ...trustValid, name: "n".repeat(200), website: "", identifiers: { abn: "123" }, documents: [{ ...trustValid.documents[0]!, source: "url", data: "https://x.example/d.pdf" }] };

// ---- Zod 4 -------------------------------------------------------------------------------------------
const zUsa = z.strictObject({
  metadata_version: z.literal("4"), metadata_serviceUid: z.string(), metadata_secretKey: z.string(), metadata_userId: z.string().optional(), metadata_tags: z.array(z.string()).optional(),
  type: z.literal("individual"),
  fields: z.strictObject({
    country: z.literal("USA"), firstName: z.string().min(1).max(79).regex(NAME), middleName: z.string().min(1).max(79).regex(NAME).optional(), lastName: z.string().min(1).max(79).regex(NAME),
    dateOfBirth: z.string().regex(DATE), unitNumber: z.string().min(1).nullable().optional(), streetNumber: z.string().min(1), streetName: z.string().min(1), streetType: z.string().min(1).nullable().optional(),
    suburb: z.string().min(1), postcode: z.string().regex(/^[0-9]{5}$/), state: z.enum(STATES), socialSecurityNumber: z.string().regex(/^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$/).optional(),
    gender: z.enum(["male", "female", "other", "preferNotToSay"]).optional(), phone: z.string().optional(), email: z.string().optional(),
  }),
});
const zDoc = z.object({ kind: z.string(), mimeType: z.string(), source: z.enum(["url", "base64"]), data: z.string(), fileName: z.string().optional(), description: z.string().optional() }).superRefine((d, ctx) => {
  if (d.source === "base64" && !DATA_URI.test(d.data)) ctx.addIssue({ code: "custom", message: "Invalid data", path: ["data"] });
});
const zStakeholder = z.object({ type: z.string().optional(), name: z.string().optional(), country: z.string().optional(), roles: z.array(z.string()).optional(), role: z.string().optional(), entity: z.object({}).loose().optional() }).loose();
const zTrust = z.object({
  userId: z.string().optional(), country: z.string().optional(), type: z.string().optional(), subType: z.string().optional(),
  name: z.string().max(199, "Name must be less than 200 characters.").optional(), website: z.string().min(1, "Website is required."),
  identifiers: z.object({ abn: z.string().regex(/^[0-9]{11}$/, "ABN must be exactly 11 digits.").optional() }).loose().optional(),
  addresses: z.record(z.string(), z.string().max(200)).optional(), documents: z.array(zDoc).optional(), stakeholders: z.array(zStakeholder).optional(), tags: z.array(z.string()).optional(),
}).loose().superRefine((v, ctx) => {
  if (v.type === "trust" && !(v.documents ?? []).some((d) => d.kind === "trustDeed" && d.source === "base64")) ctx.addIssue({ code: "custom", message: "All required document types must have at least one document with file upload", path: ["documents"] });
});

// ---- Hand-written TypeScript ----------------------------------------------------------------------------
type Issue = { path: string; message: string };
const isStr = (v: unknown): v is string => typeof v === "string";
const STATE_SET = new Set<string>(STATES);
const GENDERS = new Set(["male", "female", "other", "preferNotToSay"]);
const USA_KEYS = new Set(["country", "firstName", "middleName", "lastName", "dateOfBirth", "unitNumber", "streetNumber", "streetName", "streetType", "suburb", "postcode", "state", "socialSecurityNumber", "gender", "phone", "email"]);
const ENV_KEYS = new Set(["metadata_version", "metadata_serviceUid", "metadata_secretKey", "metadata_userId", "metadata_tags", "type", "fields"]);
const name = (v: unknown) => isStr(v) && v.length >= 1 && v.length <= 79 && NAME.test(v);
function handUsa(d: any): Issue[] {
  const out: Issue[] = [];
  if (!d || typeof d !== "object" || Array.isArray(d)) return [{ path: "", message: "object" }];
  for (const k in d) if (!ENV_KEYS.has(k)) out.push({ path: k, message: "unknown" });
  if (d.metadata_version !== "4") out.push({ path: "metadata_version", message: "4" });
  if (!isStr(d.metadata_serviceUid)) out.push({ path: "metadata_serviceUid", message: "string" });
  if (!isStr(d.metadata_secretKey)) out.push({ path: "metadata_secretKey", message: "string" });
  if (d.type !== "individual") out.push({ path: "type", message: "individual" });
  const f = d.fields;
  if (!f || typeof f !== "object" || Array.isArray(f)) return [...out, { path: "fields", message: "object" }];
  for (const k in f) if (!USA_KEYS.has(k)) out.push({ path: `fields.${k}`, message: "unknown" });
  if (f.country !== "USA") out.push({ path: "fields.country", message: "USA" });
  if (!name(f.firstName)) out.push({ path: "fields.firstName", message: "name" });
  if (f.middleName !== undefined && !name(f.middleName)) out.push({ path: "fields.middleName", message: "name" });
  if (!name(f.lastName)) out.push({ path: "fields.lastName", message: "name" });
  if (!isStr(f.dateOfBirth) || !DATE.test(f.dateOfBirth)) out.push({ path: "fields.dateOfBirth", message: "date" });
  for (const k of ["unitNumber", "streetType"]) if (f[k] !== undefined && f[k] !== null && !(isStr(f[k]) && f[k].length >= 1)) out.push({ path: `fields.${k}`, message: "nonEmpty" });
  for (const k of ["streetNumber", "streetName", "suburb"]) if (!(isStr(f[k]) && f[k].length >= 1)) out.push({ path: `fields.${k}`, message: "nonEmpty" });
  if (!isStr(f.postcode) || !/^[0-9]{5}$/.test(f.postcode)) out.push({ path: "fields.postcode", message: "postcode" });
  if (!STATE_SET.has(f.state)) out.push({ path: "fields.state", message: "state" });
  if (f.socialSecurityNumber !== undefined && !(isStr(f.socialSecurityNumber) && /^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$/.test(f.socialSecurityNumber))) out.push({ path: "fields.socialSecurityNumber", message: "ssn" });
  if (f.gender !== undefined && !GENDERS.has(f.gender)) out.push({ path: "fields.gender", message: "gender" });
  for (const k of ["phone", "email"]) if (f[k] !== undefined && !isStr(f[k])) out.push({ path: `fields.${k}`, message: "string" });
  return out;
}
function handTrust(d: any): Issue[] {
  const out: Issue[] = [];
  if (!d || typeof d !== "object" || Array.isArray(d)) return [{ path: "", message: "object" }];
  if (d.name !== undefined && !(isStr(d.name) && d.name.length < 200)) out.push({ path: "name", message: "name" });
  if (!isStr(d.website)) out.push({ path: "website", message: "required" });
  else if (d.website.length === 0) out.push({ path: "website", message: "Website is required." });
  const ids = d.identifiers;
  if (ids !== undefined && ids.abn !== undefined && !(isStr(ids.abn) && /^[0-9]{11}$/.test(ids.abn))) out.push({ path: "identifiers.abn", message: "abn" });
  if (d.addresses !== undefined) for (const k in d.addresses) if (!(isStr(d.addresses[k]) && d.addresses[k].length <= 200)) out.push({ path: `addresses.${k}`, message: "address" });
  const docs = Array.isArray(d.documents) ? d.documents : [];
  docs.forEach((doc: any, i: number) => {
    for (const k of ["kind", "mimeType", "data"]) if (!isStr(doc?.[k])) out.push({ path: `documents.${i}.${k}`, message: "string" });
    if (doc?.source !== "url" && doc?.source !== "base64") out.push({ path: `documents.${i}.source`, message: "source" });
    if (doc?.source === "base64" && !(isStr(doc.data) && DATA_URI.test(doc.data))) out.push({ path: `documents.${i}.data`, message: "dataUri" });
  });
  (Array.isArray(d.stakeholders) ? d.stakeholders : []).forEach((s: any, i: number) => {
    if (s?.role === undefined && !Array.isArray(s?.roles)) out.push({ path: `stakeholders.${i}.roles`, message: "roles" });
  });
  if (d.type === "trust" && !docs.some((x: any) => x?.kind === "trustDeed" && x?.source === "base64")) out.push({ path: "documents", message: "required document" });
  return out;
}

// ---- TypeBox ----------------------------------------------------------------------------------------------
const tName = Type.String({ minLength: 1, maxLength: 79, pattern: NAME.source });
const tUsa = Type.Object({
  metadata_version: Type.Literal("4"), metadata_serviceUid: Type.String(), metadata_secretKey: Type.String(), metadata_userId: Type.Optional(Type.String()), metadata_tags: Type.Optional(Type.Array(Type.String())),
  type: Type.Literal("individual"),
  fields: Type.Object({
    country: Type.Literal("USA"), firstName: tName, middleName: Type.Optional(tName), lastName: tName, dateOfBirth: Type.String({ pattern: DATE.source }),
    unitNumber: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])), streetNumber: Type.String({ minLength: 1 }), streetName: Type.String({ minLength: 1 }), streetType: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    suburb: Type.String({ minLength: 1 }), postcode: Type.String({ pattern: "^[0-9]{5}$" }), state: Type.Union(STATES.map((s) => Type.Literal(s))),
    socialSecurityNumber: Type.Optional(Type.String({ pattern: "^(?:[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})$" })), gender: Type.Optional(Type.Union(["male", "female", "other", "preferNotToSay"].map((g) => Type.Literal(g)))),
    phone: Type.Optional(Type.String()), email: Type.Optional(Type.String()),
  }, { additionalProperties: false }),
}, { additionalProperties: false });
const tDoc = Type.Object({ kind: Type.String(), mimeType: Type.String(), source: Type.Union([Type.Literal("url"), Type.Literal("base64")]), data: Type.String(), fileName: Type.Optional(Type.String()), description: Type.Optional(Type.String()) });
const tTrust = Type.Object({
  userId: Type.Optional(Type.String()), country: Type.Optional(Type.String()), type: Type.Optional(Type.String()), subType: Type.Optional(Type.String()), name: Type.Optional(Type.String({ maxLength: 199 })), website: Type.String({ minLength: 1 }),
  identifiers: Type.Optional(Type.Object({ abn: Type.Optional(Type.String({ pattern: "^[0-9]{11}$" })) })), addresses: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 200 }))),
  documents: Type.Optional(Type.Array(tDoc)), stakeholders: Type.Optional(Type.Array(Type.Object({ roles: Type.Optional(Type.Array(Type.String())) }))), tags: Type.Optional(Type.Array(Type.String())),
});
const typebox = (schema: TSchema) => {
  const c = TypeCompiler.Compile(schema);
  return (d: unknown) => (c.Check(d) ? 0 : [...c.Errors(d)].length);
};

// ---- Run ----------------------------------------------------------------------------------------------
interface Case {
  readonly name: string;
  readonly data: unknown;
  readonly peers: Readonly<Record<string, (d: unknown) => unknown>>;
}

function cases(): Case[] {
  const ajv = runtimeAjv();
  const ajvUsa = ajv.compile(publishedSchema("v4.VerifyRequest"));
  const ajvTrust = ajv.compile(publishedSchema("v5.VerificationCreateRequest"));
  const usaPeers = {
    "verispec (generated)": (d: unknown) => validateV4VerifyRequest(d),
    "Ajv, compiled at run time": (d: unknown) => (ajvUsa(d) ? 0 : ajvUsa.errors!.length),
    "Zod 4": (d: unknown) => zUsa.safeParse(d),
    "TypeBox compiled": typebox(tUsa),
    "hand-written TS": (d: unknown) => handUsa(d),
  };
  const trustPeers = {
    "verispec (generated)": (d: unknown) => validateV5VerificationCreateRequest(d),
    "Ajv, compiled at run time": (d: unknown) => (ajvTrust(d) ? 0 : ajvTrust.errors!.length),
    "Zod 4": (d: unknown) => zTrust.safeParse(d),
    "TypeBox compiled": typebox(tTrust),
    "hand-written TS": (d: unknown) => handTrust(d),
  };
  return [
    { name: "USA individual, valid", data: usaValid, peers: usaPeers },
    { name: "USA individual, invalid (5 errors)", data: usaInvalid, peers: usaPeers },
    { name: "v5 trust, valid", data: trustValid, peers: trustPeers },
    { name: "v5 trust, invalid (4 errors)", data: trustInvalid, peers: trustPeers },
  ];
}

/** Median import time of generated/validators/index.js, each sample in a fresh node process. */
export function importTimeMs(samples = 7): number {
  const url = pathToFileURL(join(ROOT, "generated", "validators", "index.js")).href;
  const script = `const t = performance.now(); await import(${JSON.stringify(url)}); console.log(performance.now() - t);`;
  const times = Array.from({ length: samples }, () => Number(spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).stdout));
  return times.sort((a, b) => a - b)[Math.floor(samples / 2)]!;
}

export default async function run(): Promise<void> {
  const rows: Record<string, string>[] = [];
  let sink = 0;
  for (const c of cases()) {
    const bench = new Bench({ time: 700, warmupTime: 200 });
    for (const [peer, fn] of Object.entries(c.peers)) {
      bench.add(peer, () => {
        for (let i = 0; i < BATCH; i++) sink += fn(c.data) ? 1 : 0;
      });
    }
    await bench.run();
    const ops = Object.fromEntries(bench.tasks.map((t) => {
      if (t.result.state !== "completed") throw new Error(`${t.name}: ${t.result.state}`);
      return [t.name, t.result.throughput.mean * BATCH];
    }));
    const ours = ops["verispec (generated)"]!;
    for (const [peer, n] of Object.entries(ops)) {
      rows.push({ payload: c.name, peer, "ops/s": Math.round(n).toLocaleString("en-US"), "verispec vs peer": `${(ours / n).toFixed(2)}x` });
    }
  }
  if (sink === 0) throw new Error("unreachable: keeps the results alive");
  console.log(`validators (node ${process.version}; invalid payloads: every error collected)`);
  console.table(rows);
  console.log(`import of all validators (generated/validators/index.js, median of 7 fresh processes): ${importTimeMs().toFixed(1)} ms`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
