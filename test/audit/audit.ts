// The audit: every row of the seed's tables (sections 2-8) against the spec (spec/*.yaml, found by the
// spec's own `source:` / `sourceTable:` references) and the generated JSON Schemas (probed with Ajv, with the
// formats the shipped validators use). The row -> spec mapping lives in the spec: a field row of section S
// is the field of that name under a node whose `source` or `sourceTable` is S; the generated schema it belongs
// to is the schema of the node marked `sourceTable: S` (or, for the entity kind tables, the kind's branch
// whose `source` is S).
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";
import { fullFormats } from "../../templates/validators/formats.js";
import { type Check, describeCheck, type FieldRow, fieldRows, formsRows, listRows, notesChecks, type SeedLists } from "./statements.js";
import { parseSeedTables, type SeedTable } from "./seed-tables.js";

type Schema = { [key: string]: unknown };

export interface Finding {
  readonly statement: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface RowResult {
  readonly section: string;
  readonly row: string;
  readonly line: number;
  readonly table: "field" | "list" | "status" | "transition" | "errorType" | "errorCode" | "limit";
  readonly findings: readonly Finding[];
  /** file:line of the spec definitions found. */
  readonly spec: readonly string[];
  /** schema file#pointer of the generated places found. */
  readonly schema: readonly string[];
}

export interface AuditReport {
  readonly rows: readonly RowResult[];
  readonly failures: readonly string[];
  readonly counts: {
    readonly rows: number;
    readonly checked: number;
    readonly enforced: number;
    readonly unknown: number;
    readonly statements: number;
    readonly bySection: Readonly<Record<string, number>>;
  };
}

// ---- The generated schemas ------------------------------------------------------------------------------

interface Place {
  readonly file: string;
  readonly pointer: string;
  readonly schema: Schema;
  /** The object schema whose `properties` hold the field (its `required` says required or not). */
  readonly parent: Schema;
}

class Schemas {
  readonly files = new Map<string, Schema>();
  readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, (v: unknown) => boolean>();

  constructor(dir: string) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, discriminator: true, allowUnionTypes: true, logger: false, unicode: false });
    this.ajv.addFormat("uri", fullFormats.uri);
    this.ajv.addFormat("uuid", fullFormats.uuid);
    this.ajv.addFormat("date-time", fullFormats["date-time"]);
    for (const k of ["x-spec-section", "x-not-shown", "x-verispec-errors"]) this.ajv.addKeyword(k);
    for (const f of readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      const schema = JSON.parse(readFileSync(join(dir, f), "utf8")) as Schema;
      this.files.set(basename(f, ".json"), schema);
      this.ajv.addSchema(schema);
    }
  }

  at(file: string, pointer: string): Schema {
    let node: unknown = this.files.get(file);
    for (const raw of pointer.split("/").slice(1)) node = (node as Schema)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
    return node as Schema;
  }

  /** A local `$ref` followed to its target, with the target's pointer. */
  deref(file: string, pointer: string, schema: Schema): { pointer: string; schema: Schema } {
    let p = pointer;
    let s = schema;
    for (let i = 0; i < 10 && typeof s.$ref === "string" && s.$ref.startsWith("#/"); i++) {
      p = s.$ref.slice(1);
      s = this.at(file, p);
    }
    return { pointer: p, schema: s };
  }

  validator(file: string, pointer: string): (v: unknown) => boolean {
    const key = `${file}#${pointer}`;
    let v = this.compiled.get(key);
    if (!v) {
      const id = (this.files.get(file)!.$id as string) ?? file;
      const validate = this.ajv.compile({ $ref: `${id}#${pointer.replace(/%/g, "%25").replace(/ /g, "%20")}` });
      this.compiled.set(key, (v = (x: unknown) => validate(x) === true));
    }
    return v;
  }

  /** Every place reachable from (file, pointer) where an object's `properties` hold `name`. */
  findProperty(file: string, pointer: string, name: string, items = false): Place[] {
    const out: Place[] = [];
    const seen = new Set<string>();
    const visit = (p: string, s: Schema) => {
      if (seen.has(p) || typeof s !== "object" || s === null) return;
      seen.add(p);
      if (typeof s.$ref === "string" && s.$ref.startsWith("#/")) visit(s.$ref.slice(1), this.at(file, s.$ref.slice(1)));
      if (items && s.items && typeof s.items === "object") {
        visit(`${p}/items`, s.items as Schema);
        return;
      }
      const props = s.properties as Record<string, Schema> | undefined;
      // A bare `true` is a marker of a condition (exactly one of two keys), not the field's definition.
      const own = props && Object.hasOwn(props, name) && typeof props[name] === "object";
      if (own) out.push({ file, pointer: `${p}/properties/${esc(name)}`, schema: props[name]!, parent: s });
      // Where an object defines the field itself, its alternatives only narrow it (the v5 envelope's
      // `status`: success in one branch, error in the other), so the object's own definition is the row's.
      for (const k of own ? ["allOf"] : ["allOf", "oneOf", "anyOf"]) {
        const list = s[k] as Schema[] | undefined;
        list?.forEach((sub, i) => visit(`${p}/${k}/${i}`, sub));
      }
    };
    visit(pointer, this.at(file, pointer));
    return out;
  }

  /** Subschemas of a file carrying x-spec-section `section` and holding `properties` (the entity kind branches). */
  seeded(file: string, seed: string): { pointer: string; schema: Schema }[] {
    const out: { pointer: string; schema: Schema }[] = [];
    const walk = (p: string, s: unknown) => {
      if (Array.isArray(s)) return s.forEach((x, i) => walk(`${p}/${i}`, x));
      if (typeof s !== "object" || s === null) return;
      const o = s as Schema;
      if (o["x-spec-section"] === seed && o.properties && typeof o.title === "string" && / fields \(/.test(o.title)) out.push({ pointer: p, schema: o });
      for (const [k, v] of Object.entries(o)) if (k !== "examples" && k !== "$defs") walk(`${p}/${esc(k)}`, v);
    };
    walk("", this.files.get(file));
    return out;
  }

  /** The file defining `$defs[name]` (value sets and rules are copied into each file that uses them). */
  defining(def: string): { file: string; pointer: string } | undefined {
    for (const [file, s] of this.files) if ((s.$defs as Schema | undefined)?.[def]) return { file, pointer: `/$defs/${esc(def)}` };
    return undefined;
  }
}

const esc = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");

// ---- The spec: where each field is defined, by seed ---------------------------------------------------------

interface SpecEntry {
  readonly seeds: readonly string[];
  readonly name: string;
  readonly where: string;
}

interface SpecIndex {
  readonly entries: readonly SpecEntry[];
  /** sourceTable marks: section -> shape ids (JSON Schema files). */
  readonly tableHomes: ReadonlyMap<string, readonly string[]>;
  /** sourceList marks: "2.11 Document" -> shape ids. */
  readonly listHomes: ReadonlyMap<string, readonly string[]>;
  /** Field names a shape gets from the field sets it includes. */
  readonly included: ReadonlyMap<string, readonly string[]>;
  /** Entity kinds: kind -> { file, branch seeds }. */
  readonly kinds: ReadonlyMap<string, { readonly where: string; readonly seeds: readonly string[] }>;
  readonly raw: Readonly<Record<string, unknown>>;
}

function specFiles(specDir: string): string[] {
  const top = readdirSync(specDir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => join(specDir, f));
  const entities = readdirSync(join(specDir, "entities"))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => join(specDir, "entities", f));
  return [...top, ...entities].sort();
}

function indexSpec(repoRoot: string): SpecIndex {
  const entries: SpecEntry[] = [];
  const tableHomes = new Map<string, string[]>();
  const listHomes = new Map<string, string[]>();
  const included = new Map<string, string[]>();
  const kinds = new Map<string, { where: string; seeds: string[] }>();
  const raw: Record<string, unknown> = {};
  for (const file of specFiles(join(repoRoot, "spec"))) {
    const rel = relative(repoRoot, file);
    const lc = new LineCounter();
    const doc = parseDocument(readFileSync(file, "utf8"), { lineCounter: lc });
    raw[rel] = doc.toJS();
    const where = (n: { range?: [number, number, number] | null } | null | undefined) => `${rel}:${n?.range ? lc.linePos(n.range[0]).line : 0}`;
    const walk = (node: unknown, seeds: string[], underFields: boolean, shapeId?: string) => {
      if (isSeq(node)) return node.items.forEach((n) => walk(n, seeds, false));
      if (!isMap(node)) return;
      const own = (key: string) => {
        const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
        return pair && isScalar(pair.value) ? String(pair.value.value) : undefined;
      };
      const listed = ((node.toJSON() as { sourceList?: string[] }).sourceList ?? []).map((l) => l.split(" ")[0]!);
      const here = [own("source"), own("sourceTable"), ...listed].filter((s): s is string => s !== undefined);
      const effective = here.length ? here : seeds;
      const table = own("sourceTable");
      if (table && shapeId) tableHomes.set(table, [...(tableHomes.get(table) ?? []), shapeId]);
      if (shapeId) {
        const js = node.toJSON() as { sourceList?: string[]; include?: string[] };
        for (const label of js.sourceList ?? []) listHomes.set(label, [...(listHomes.get(label) ?? []), shapeId]);
        if (js.include) included.set(shapeId, js.include);
      }
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        if (underFields) entries.push({ seeds: effective, name: key, where: where(pair.key as YamlNode) });
        if (!underFields && key === "countries") entries.push({ seeds: effective, name: "country", where: where(pair.key as YamlNode) });
        if (!underFields && key === "stakeholders" && rel.startsWith("spec/entities/"))
          entries.push({ seeds: effective, name: "stakeholders", where: where(pair.key as YamlNode) });
        const childShape = !underFields && (key.startsWith("v4.") || key.startsWith("v5.")) ? key : undefined;
        walk(pair.value, effective, !underFields && (key === "fields" || key === "properties"), childShape);
      }
    };
    walk(doc.contents, [], false);
    const js = raw[rel] as Record<string, unknown>;
    if (rel.startsWith("spec/entities/") && typeof js.kind === "string") {
      const branches = (js.branches as { source: string }[]) ?? [];
      kinds.set(js.kind, { where: `${rel}:1`, seeds: [String(js.source), ...branches.map((b) => String(b.source))] });
      // The older envelope's `type`, `fields` and `stakeholders` (2.1) come from the entity kinds (older.yaml).
      entries.push({ seeds: ["2.1"], name: "type", where: `${rel}:1` }, { seeds: ["2.1"], name: "fields", where: `${rel}:1` });
      if (js.stakeholders) entries.push({ seeds: ["2.1"], name: "stakeholders", where: `${rel}:1` });
    }
  }
  // A shape's included field sets: their field names count as the shape's own.
  const sets = (raw["spec/fieldsets.yaml"] as { fieldSets: Record<string, { fields: Record<string, unknown> }> }).fieldSets;
  const names = new Map([...included].map(([id, list]) => [id, list.flatMap((set) => Object.keys(sets[set]?.fields ?? {}))]));
  return { entries, tableHomes, listHomes, kinds, raw, included: names };
}

// ---- Probes ---------------------------------------------------------------------------------------------

interface Probe {
  readonly value: unknown;
  readonly valid: boolean;
}

const ok = (value: unknown): Probe => ({ value, valid: true });
const bad = (value: unknown): Probe => ({ value, valid: false });

/** Values that must be accepted and rejected for a check to hold (the readings of spec/rules.yaml). */
export function probesFor(c: Check): Probe[] | undefined {
  switch (c.kind) {
    case "type": {
      const wrong = c.type === "string" ? 12345 : c.type === "number" ? "1" : c.type === "array" ? { a: 1 } : ["a"];
      return [bad(wrong), c.nullable ? ok(null) : bad(null)];
    }
    case "nonEmpty":
      return [bad("")];
    case "format":
      switch (c.format) {
        case "url":
          return [ok("https://www.example.com/path?q=1#top"), ok("http://example.com"), bad("www.example.com"), bad("not a url"), bad("https://")];
        case "date-time":
          return [ok("2026-01-01T00:00:00.000Z"), ok("2026-01-01T10:00:00+02:00"), bad("2026-01-01"), bad("01/01/2026 00:00"), bad("2026-02-30T00:00:00Z")];
        case "unix-ms":
          return [ok(1767225600000), bad(1767225600), bad(1767225600000.5), bad("2026-01-01T00:00:00Z")];
        case "seconds-or-ms":
          return [ok(1767225600), ok(1767225600000), bad("1767225600")];
        case "uuid":
          return [ok("7f0c2a9e-3b8d-4c55-9d1e-2f4b6a8c0d12"), bad("not-a-uuid"), bad("7f0c2a9e3b8d4c559d1e2f4b6a8c0d12")];
        case "iso3":
          return [ok("AUS"), ok("NZL"), bad("AU"), bad("Australia")];
        case "data-uri": {
          const base = [ok("data:application/pdf;base64,JVBERi0xLjQK"), bad("JVBERi0xLjQK"), bad("data:application/pdf;base64,%%%")];
          return c.mimes
            ? [...base, ok("data:image/png;base64,iVBORw0KGgo="), ok("data:image/jpeg;base64,/9j/4AAQ"), bad("data:image/gif;base64,R0lGODlh")]
            : base;
        }
        case "ddmmyyyy":
          return [ok("15/07/1985"), bad("1985-07-15"), bad("31/02/1990")];
        case "us-state":
          return [ok("CA"), ok("WY"), bad("XX"), bad("California")];
      }
      return undefined;
    case "enum":
      return [...c.values.map(ok), bad("notAListedValue")];
    case "const":
      return [ok(c.value), bad(`${c.value}x`)];
    case "open":
      return [...c.examples.map(ok), ok("someOtherValue")];
    case "accepts":
      return c.values.map(ok);
    case "digits": {
      const d = (n: number) => "4".repeat(n);
      return [ok(d(c.min)), ok(d(c.max)), bad(d(c.max + 1)), ...(c.min > 1 ? [bad(d(c.min - 1))] : []), bad(`${d(c.min - 1)}a`)];
    }
    case "masks":
      return [...c.masks.map((m) => ok(m.replace(/X/g, "4"))), bad(c.masks[0]!.replace(/X/g, "4").slice(1))];
    case "maxLength":
      return [ok("a".repeat(c.max)), bad("a".repeat(c.max + 1))];
    case "minimum":
      return [ok(c.min), bad(c.min - 1)];
    case "emptyArray":
      return [ok([])];
    case "letters":
      return [ok("O'Brien"), ok("Anne-Marie"), ok("José"), bad("Jane1"), bad("J@ne")];
    default:
      return undefined;
  }
}

const notShownText = (s: Schema | undefined) => (s ? `${String(s["x-not-shown"] ?? "")} ${String(s.description ?? "")}` : "");

/** All string values a `role` property may take anywhere below a schema (enum / const). */
function roleValues(schemas: Schemas, file: string, pointer: string): Set<string> {
  const values = new Set<string>();
  const seen = new Set<string>();
  const walk = (p: string, s: unknown) => {
    if (typeof s !== "object" || s === null || seen.has(p)) return;
    seen.add(p);
    const o = s as Schema;
    if (typeof o.$ref === "string" && o.$ref.startsWith("#/")) walk(o.$ref.slice(1), schemas.at(file, o.$ref.slice(1)));
    const role = (o.properties as Record<string, Schema> | undefined)?.role;
    if (role) {
      for (const v of (role.enum as unknown[] | undefined) ?? []) values.add(String(v));
      if (role.const !== undefined) values.add(String(role.const));
    }
    for (const [k, v] of Object.entries(o))
      if (k !== "$defs" && k !== "examples" && k !== "properties")
        (Array.isArray(v) ? v : [v]).forEach((x, i) => walk(`${p}/${esc(k)}${Array.isArray(v) ? `/${i}` : ""}`, x));
    for (const [k, v] of Object.entries((o.properties as Record<string, unknown>) ?? {})) walk(`${p}/properties/${esc(k)}`, v);
  };
  walk(pointer, schemas.at(file, pointer));
  return values;
}

/** One check at one place: the findings (a failed probe names the value and what happened). */
function checkPlace(schemas: Schemas, place: Place, name: string, c: Check, home: Schema): Finding {
  const statement = describeCheck(c);
  const at = `${place.file}.json#${place.pointer}`;
  const required = ((place.parent.required as string[] | undefined) ?? []).includes(name);
  switch (c.kind) {
    case "required":
      return { statement, ok: required, detail: required ? undefined : `${name} is not in \`required\` at ${at}` };
    case "deprecated": {
      const target = schemas.deref(place.file, place.pointer, place.schema).schema;
      const yes = place.schema.deprecated === true || target.deprecated === true;
      return { statement, ok: yes, detail: yes ? undefined : `not marked deprecated at ${at}` };
    }
    case "optional":
      return { statement, ok: !required, detail: required ? `${name} is required at ${at}, the row says optional` : undefined };
    case "open":
    case "unknown": {
      if (c.kind === "open") {
        const validate = schemas.validator(place.file, place.pointer);
        const wrong = (probesFor(c) ?? []).filter((p) => validate(p.value) !== p.valid);
        if (wrong.length) return { statement, ok: false, detail: `${at}: ${wrong.map((p) => `${JSON.stringify(p.value)} should be accepted`).join("; ")}` };
      }
      const target = schemas.deref(place.file, place.pointer, place.schema).schema;
      const found = [place.schema, target, place.parent, home].some((s) => /not shown/i.test(notShownText(s)));
      return { statement, ok: found, detail: found ? undefined : `no explicit unknown (x-not-shown) at ${at} or its object` };
    }
    case "keys":
    case "itemRequires": {
      let { schema: s, pointer } = schemas.deref(place.file, place.pointer, place.schema);
      if ((c.kind === "itemRequires" || c.items) && s.items) ({ schema: s, pointer } = schemas.deref(place.file, `${pointer}/items`, s.items as Schema));
      if (c.kind === "itemRequires") {
        const has = ((s.required as string[] | undefined) ?? []).includes(c.name);
        return { statement, ok: has, detail: has ? undefined : `items at ${place.file}.json#${pointer} do not require ${c.name}` };
      }
      const missing = c.names.filter((k) => schemas.findProperty(place.file, pointer, k).length === 0 && !notShownText(s).includes(`"${k}"`));
      return {
        statement,
        ok: missing.length === 0,
        detail: missing.length ? `missing key(s) ${missing.join(", ")} at ${place.file}.json#${pointer} (and no explicit unknown naming them)` : undefined,
      };
    }
    case "roles": {
      const values = roleValues(schemas, place.file, place.pointer);
      const missing = c.names.filter((n) => !values.has(n));
      return { statement, ok: missing.length === 0, detail: missing.length ? `role(s) ${missing.join(", ")} not allowed at ${at}` : undefined };
    }
    default: {
      const probes = probesFor(c);
      if (!probes) return { statement, ok: false, detail: "no probe for this statement" };
      const validate = schemas.validator(place.file, place.pointer);
      const wrong = probes.filter((p) => validate(p.value) !== p.valid);
      return {
        statement,
        ok: wrong.length === 0,
        detail: wrong.length ? `${at}: ${wrong.map((p) => `${JSON.stringify(p.value)} should be ${p.valid ? "accepted" : "rejected"}`).join("; ")}` : undefined,
      };
    }
  }
}

// ---- Rows -> results -----------------------------------------------------------------------------------

interface Home {
  readonly file: string;
  readonly pointer: string;
}

function entityHomes(schemas: Schemas, kind: string, section: string, column?: string): Home[] | undefined {
  for (const [file, s] of schemas.files) {
    const type = (s.properties as Record<string, Schema> | undefined)?.type;
    if (!file.startsWith("v4.entities.") || type?.const !== kind) continue;
    const branches = schemas.seeded(file, section).filter((b) => !column || String(b.schema.title).endsWith(`(${column})`));
    return [...branches.map((b) => ({ file, pointer: b.pointer })), { file, pointer: "" }];
  }
  return undefined;
}

function fieldRowResult(schemas: Schemas, spec: SpecIndex, row: FieldRow, listHomes?: readonly string[]): RowResult {
  const findings: Finding[] = [];
  const specAt = new Set<string>();
  const schemaAt = new Set<string>();
  let homes: Home[] | undefined;
  let kind = row.kind;
  if (!kind && row.section.startsWith("2.") && !spec.tableHomes.has(row.section)) {
    const candidates = [...spec.kinds].filter(([, k]) => k.seeds.includes(row.section)).map(([name]) => name);
    kind = candidates[0];
  }
  if (listHomes) homes = listHomes.filter((id) => schemas.files.has(id)).map((file) => ({ file, pointer: "" }));
  else if (spec.tableHomes.has(row.section))
    homes = spec.tableHomes
      .get(row.section)!
      .filter((id) => schemas.files.has(id))
      .map((file) => ({ file, pointer: "" }));
  else if (kind) homes = entityHomes(schemas, kind, row.section === "2.9" ? "2.9" : row.section, row.column);
  if (!homes?.length) {
    findings.push({
      statement: "generated schema",
      ok: false,
      detail: `no schema home for section ${row.section}${kind ? ` (entity kind ${kind})` : ""}: mark it with sourceTable: "${row.section}" in the spec`,
    });
    return {
      section: row.section,
      row: row.label + (row.column ? ` [${row.column}]` : ""),
      line: row.line,
      table: listHomes ? "list" : "field",
      findings,
      spec: [],
      schema: [],
    };
  }
  for (const field of row.fields) {
    const name = field.path[field.path.length - 1]!;
    const label = field.path.join(".");
    const fromSets = (listHomes ?? []).some((id) => spec.included.get(id)?.includes(name));
    const specHits = spec.entries.filter((e) => e.name === name && (e.seeds.includes(row.section) || (fromSets && e.where.startsWith("spec/fieldsets.yaml"))));
    if (specHits.length === 0) findings.push({ statement: `${label} in the spec`, ok: false, detail: `no field ${name} under seed ${row.section} in spec/` });
    else specHits.forEach((h) => specAt.add(h.where));
    // Walk the path: each step's places are the next step's roots.
    let places: Place[] = homes.flatMap((h) => schemas.findProperty(h.file, h.pointer, field.path[0]!));
    for (const step of field.path.slice(1)) {
      places = places.flatMap((p) => {
        const target = schemas.deref(p.file, p.pointer, p.schema);
        return schemas.findProperty(p.file, target.pointer, step);
      });
    }
    if (places.length === 0) {
      findings.push({
        statement: `${label} in the generated schema`,
        ok: false,
        detail: `no property ${label} in ${homes.map((h) => `${h.file}.json#${h.pointer}`).join(", ")}`,
      });
      continue;
    }
    places.forEach((p) => schemaAt.add(`${p.file}.json#${p.pointer}`));
    findings.push({ statement: `${label}: present`, ok: true });
    for (const c of field.checks) {
      for (const place of places) {
        const f = checkPlace(schemas, place, name, c, schemas.at(place.file, ""));
        findings.push({ ...f, statement: `${label}: ${f.statement}` });
      }
    }
  }
  return {
    section: row.section,
    row: row.label + (row.column ? ` [${row.column}]` : ""),
    line: row.line,
    table: listHomes ? "list" : "field",
    findings,
    spec: [...specAt],
    schema: [...schemaAt],
  };
}

const norm = (s: string) => s.replace(/`/g, "").replace(/\s+/g, " ").trim().replace(/\.$/, "");

function enumAccepts(schemas: Schemas, def: string, value: string): Finding {
  const at = schemas.defining(def);
  if (!at) return { statement: `${def} in the generated schemas`, ok: false, detail: `no $defs ${def} in generated/schemas` };
  const accepted = schemas.validator(at.file, at.pointer)(value);
  return { statement: `${def} accepts ${value}`, ok: accepted, detail: accepted ? undefined : `${at.file}.json#${at.pointer} rejects ${value}` };
}

function statusRows(schemas: Schemas, spec: SpecIndex, table: SeedTable): RowResult[] {
  const statuses = (spec.raw["spec/statuses.yaml"] as { verificationStatuses: Record<string, { source: string; meaning?: string }> }).verificationStatuses;
  return table.rows.map((row) => {
    const [value, meaning] = row.cells as [string, string];
    const s = statuses[value];
    const findings: Finding[] = [
      { statement: `status ${value} in spec/statuses.yaml`, ok: !!s && s.source === "3", detail: s ? undefined : `no verificationStatuses.${value}` },
      {
        statement: "meaning as written",
        ok: !!s && norm(s.meaning ?? "") === norm(meaning),
        detail: s && norm(s.meaning ?? "") !== norm(meaning) ? `spec says "${s.meaning}", the table "${meaning}"` : undefined,
      },
      enumAccepts(schemas, "values.verificationStatuses", value),
    ];
    return {
      section: table.section,
      row: value,
      line: row.line,
      table: "status",
      findings,
      spec: s ? ["spec/statuses.yaml"] : [],
      schema: ["values.verificationStatuses"],
    };
  });
}

function transitionRows(spec: SpecIndex, table: SeedTable, statuses: readonly string[]): RowResult[] {
  const transitions = (spec.raw["spec/statuses.yaml"] as { transitions: { source: string; from: string | null; to: string[]; unknown?: string }[] })
    .transitions;
  return table.rows.map((row) => {
    const [fromCell, , , cell] = row.cells as [string, string, string, string];
    let toCell = cell;
    const from = fromCell === "(none)" ? [null] : fromCell === "any" ? ["any"] : statuses.includes(fromCell) ? [fromCell] : [null, "any"];
    const notStated = /not stated/.test(toCell);
    toCell = toCell.replace(/with submissionStatus `\w+`/, "");
    const to = /changed status/.test(toCell) ? ["any"] : statuses.filter((s) => new RegExp(`\\b${s}\\b`).test(toCell));
    const match = transitions.find(
      (t) => t.source === "3" && from.includes(t.from) && (notStated ? t.to.length === 0 && !!t.unknown : to.every((s) => t.to.includes(s)) && t.to.length > 0),
    );
    const statement = notStated ? `transition ${fromCell} -> (not stated) as an explicit unknown` : `transition ${fromCell} -> ${to.join(", ")}`;
    return {
      section: table.section,
      row: `${fromCell} -> ${cell}`,
      line: row.line,
      table: "transition",
      findings: [{ statement, ok: !!match, detail: match ? undefined : "no such transition in spec/statuses.yaml" }],
      spec: match ? ["spec/statuses.yaml"] : [],
      schema: [],
    };
  });
}

function errorRows(schemas: Schemas, spec: SpecIndex, table: SeedTable, repoRoot: string): RowResult[] {
  const errors = spec.raw["spec/errors.yaml"] as {
    errorTypes: Record<string, { httpStatus: number; message?: string }>;
    validationMessages: { observed: Record<string, { code: string; message: string; paths?: string[][] }> };
  };
  if (table.header[0] === "Error type") {
    return table.rows.map((row) => {
      const [type, status, condition] = row.cells as [string, string, string];
      const t = errors.errorTypes[type];
      const message = /`message` is `([^`]+)`/.exec(condition)?.[1];
      const findings: Finding[] = [
        {
          statement: `error type ${type} with HTTP ${status}`,
          ok: t?.httpStatus === Number(status),
          detail: t ? `spec says ${t.httpStatus}` : "not in spec/errors.yaml",
        },
        ...(message ? [{ statement: `message ${message}`, ok: t?.message === message, detail: `spec says ${t?.message}` }] : []),
        enumAccepts(schemas, "values.errorTypes", type),
      ];
      return { section: table.section, row: type, line: row.line, table: "errorType", findings, spec: ["spec/errors.yaml"], schema: ["values.errorTypes"] };
    });
  }
  const errorsJs = readFileSync(join(repoRoot, "generated", "validators", "errors.js"), "utf8");
  // The message itself, or a message template of the validators ("expected {expected}, received undefined").
  const templates = [...errorsJs.matchAll(/"message":\s*("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]!) as string);
  const reported = (message: string) =>
    templates.some((t) => t === message || new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[a-zA-Z]+\\?\}/g, ".+")}$`).test(message));
  return table.rows.map((row) => {
    const [code, message, pathCell] = row.cells as [string, string, string];
    const paths = pathCell.split(/,\s*or\s+/).map((p) => p.split(",").map((s) => s.trim()));
    const entry = Object.values(errors.validationMessages.observed).find((m) => m.code === code && m.message === message);
    const findings: Finding[] = [
      { statement: `observed message "${message}" with code ${code}`, ok: !!entry, detail: "not in spec/errors.yaml validationMessages.observed" },
      {
        statement: `paths ${paths.map((p) => p.join(".")).join(" | ")}`,
        ok: !!entry && paths.every((p) => (entry.paths ?? []).some((q) => q.join(".") === p.join("."))),
        detail: `spec paths: ${JSON.stringify(entry?.paths)}`,
      },
      enumAccepts(schemas, "values.validationCodes", code),
      {
        statement: "the generated validators report it",
        ok: reported(message),
        detail: "neither the message nor a template giving it in generated/validators/errors.js",
      },
    ];
    return {
      section: table.section,
      row: `${code}: ${message}`,
      line: row.line,
      table: "errorCode",
      findings,
      spec: ["spec/errors.yaml"],
      schema: ["generated/validators/errors.js"],
    };
  });
}

function limitRows(schemas: Schemas, spec: SpecIndex, table: SeedTable, lists: SeedLists): RowResult[] {
  const limits = (
    spec.raw["spec/limits.yaml"] as { limits: Record<string, { source: string; value: string; appliesTo: string; rule?: string; [k: string]: unknown }> }
  ).limits;
  return table.rows.map((row) => {
    const [label, value, appliesTo] = row.cells as [string, string, string];
    const entry = Object.entries(limits).find(
      ([, l]) => l.source === "8" && norm(l.value) === norm(value) && [norm(appliesTo), norm(`${label}, ${appliesTo}`)].includes(norm(l.appliesTo)),
    );
    const findings: Finding[] = [
      { statement: "limit in spec/limits.yaml, value and scope as written", ok: !!entry, detail: "no limits entry with this value and appliesTo" },
    ];
    const schema: string[] = [];
    if (entry) {
      const [, l] = entry;
      if (l.rule) {
        const def = schemas.defining(`rules.${l.rule}`);
        const checks = notesChecks(value, lists).filter((c) => c.kind === "digits" || c.kind === "maxLength");
        if (!def) findings.push({ statement: `rule ${l.rule} in the generated schemas`, ok: false, detail: `no $defs rules.${l.rule}` });
        else {
          schema.push(`${def.file}.json#${def.pointer}`);
          for (const c of checks)
            findings.push(checkPlace(schemas, { file: def.file, pointer: def.pointer, schema: schemas.at(def.file, def.pointer), parent: {} }, label, c, {}));
          if (checks.length === 0)
            findings.push({ statement: "a bound the rule can be probed with", ok: false, detail: `no digits or length bound read from "${value}"` });
        }
      } else {
        const numbers = [...value.matchAll(/\d+/g)].map((m) => Number(m[0]));
        const specNumbers = Object.values(l).filter((v): v is number => typeof v === "number");
        const missing = numbers.filter((n) => !specNumbers.some((v) => v === n || v === n * 60_000));
        findings.push({
          statement: `numbers ${numbers.join(", ")} as data`,
          ok: missing.length === 0,
          detail: `not in the entry's numbers: ${missing.join(", ")}`,
        });
      }
    }
    return { section: table.section, row: label, line: row.line, table: "limit", findings, spec: entry ? [`spec/limits.yaml (${entry[0]})`] : [], schema };
  });
}

/** Sections whose tables the audit covers, and the kinds of tables it reads. */
export const AUDITED = /^(2(\.\d+)?|3|4(\.\d+)?|6\.2|6\.3|7|8)$/;

function sourceLists(seed: string, tables: readonly SeedTable[]): SeedLists {
  const statusTable = tables.find((t) => t.section === "3" && t.header[0] === "Value");
  const line = /Submission status values \(`submissionStatus`\): (.*)/.exec(seed)?.[1] ?? "";
  return {
    verificationStatuses: statusTable?.rows.map((r) => r.cells[0]!) ?? [],
    submissionStatuses: [...line.matchAll(/`(\w+)`/g)].map((m) => m[1]!),
  };
}

export function runAudit(seedText: string, repoRoot: string): AuditReport {
  const tables = parseSeedTables(seedText).filter((t) => AUDITED.test(t.section));
  const lists = sourceLists(seedText, tables);
  const schemas = new Schemas(join(repoRoot, "generated", "schemas"));
  const spec = indexSpec(repoRoot);
  const headings = new Map([...seedText.matchAll(/^#{2,3} ([0-9.]+?)\.? (.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const rows: RowResult[] = [];
  const fieldRowsBySection = new Map<string, FieldRow[]>();
  const inherit = (section: string, name: string) =>
    fieldRowsBySection
      .get(section)
      ?.flatMap((r) => r.fields)
      .find((f) => f.path.length === 1 && f.path[0] === name)
      ?.checks.filter((c) => c.kind !== "unknown");
  for (const table of tables) {
    const h = table.header[0];
    if (h === "Field") {
      const parsed = fieldRows(table, lists, inherit, headings.get(table.section) ?? "");
      fieldRowsBySection.set(table.section, [...(fieldRowsBySection.get(table.section) ?? []), ...parsed]);
      rows.push(...parsed.map((r) => fieldRowResult(schemas, spec, r)));
    } else if (h === "type") rows.push(...formsRows(table, lists).map((r) => fieldRowResult(schemas, spec, r)));
    else if (h === "Value") rows.push(...statusRows(schemas, spec, table));
    else if (h === "From") rows.push(...transitionRows(spec, table, lists.verificationStatuses));
    else if (h === "Error type" || h === "code") rows.push(...errorRows(schemas, spec, table, repoRoot));
    else if (h === "Limit") rows.push(...limitRows(schemas, spec, table, lists));
    else
      rows.push({
        section: table.section,
        row: `table "${table.header.join(" | ")}"`,
        line: table.line,
        table: "field",
        findings: [{ statement: "a reader for this table", ok: false, detail: "the audit does not know this table's layout" }],
        spec: [],
        schema: [],
      });
  }
  // Field lists written as prose, where the spec marks a shape with `sourceList: "<section> <label>"`.
  for (const [mark, shapes] of [...spec.listHomes].sort(([a], [b]) => a.localeCompare(b))) {
    const [, section, label] = /^(\S+) (.*)$/.exec(mark)!;
    const found = listRows(seedText, section!, label!, lists);
    if (!found) {
      rows.push({
        section: section!,
        row: label!,
        line: 0,
        table: "list",
        findings: [
          { statement: `the list "${label}" in section ${section}`, ok: false, detail: `sourceList "${mark}" names a list the specification does not have` },
        ],
        spec: [],
        schema: [],
      });
      continue;
    }
    rows.push(...found.map((r) => fieldRowResult(schemas, spec, r, shapes)));
  }
  const failures = rows.flatMap((r) =>
    r.findings
      .filter((f) => !f.ok)
      .map((f) => `section ${r.section}, row "${r.row}" (line ${r.line} of the specification): ${f.statement}${f.detail ? ` -- ${f.detail}` : ""}`),
  );
  const passed = rows.filter((r) => r.findings.every((f) => f.ok));
  const unknownRow = (r: RowResult) => r.findings.some((f) => /explicit unknown|not stated|open list/.test(f.statement));
  const bySection: Record<string, number> = {};
  for (const r of rows) bySection[r.section] = (bySection[r.section] ?? 0) + 1;
  return {
    rows,
    failures,
    counts: {
      rows: rows.length,
      checked: passed.length,
      enforced: passed.filter((r) => !unknownRow(r)).length,
      unknown: passed.filter(unknownRow).length,
      statements: rows.reduce((n, r) => n + r.findings.length, 0),
      bySection,
    },
  };
}
