// What a row of the seed's field tables states, as checks: type, format, allowed values, lengths,
// required / optional / always present, constants, "not shown". Pure text reading, no schema here.
import type { SeedRow, SeedTable } from "./seed-tables.js";

export type Format = "url" | "date-time" | "unix-ms" | "uuid" | "iso3" | "data-uri" | "ddmmyyyy" | "seconds-or-ms" | "us-state";

export type Check =
  | { readonly kind: "type"; readonly type: "string" | "number" | "array" | "object"; readonly nullable: boolean }
  | { readonly kind: "required" }
  | { readonly kind: "optional" }
  | { readonly kind: "nonEmpty" }
  | { readonly kind: "format"; readonly format: Format; readonly mimes?: readonly string[] }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "const"; readonly value: string }
  | { readonly kind: "open"; readonly examples: readonly string[] }
  | { readonly kind: "accepts"; readonly values: readonly string[] }
  | { readonly kind: "digits"; readonly min: number; readonly max: number }
  | { readonly kind: "masks"; readonly masks: readonly string[] }
  | { readonly kind: "maxLength"; readonly max: number }
  | { readonly kind: "minimum"; readonly min: number }
  | { readonly kind: "emptyArray" }
  | { readonly kind: "deprecated" }
  | { readonly kind: "letters" }
  | { readonly kind: "unknown"; readonly text: string }
  | { readonly kind: "keys"; readonly names: readonly string[]; readonly items: boolean }
  | { readonly kind: "itemRequires"; readonly name: string }
  | { readonly kind: "roles"; readonly names: readonly string[] };

/** One field a row names, with the checks the row states for it. `path` descends (identifiers.abn). */
export interface FieldStatement {
  readonly path: readonly string[];
  readonly checks: readonly Check[];
}

export interface FieldRow {
  readonly section: string;
  /** The row as the seed writes it (first cell), for messages. */
  readonly label: string;
  readonly line: number;
  /** Which entity kind or column the row belongs to, when the table says (`type` = `x`, a USA column). */
  readonly kind?: string;
  readonly column?: string;
  readonly fields: readonly FieldStatement[];
}

/** Values the seed lists outside the tables that rows refer to ("Section 3"). */
export interface SeedLists {
  readonly verificationStatuses: readonly string[];
  readonly submissionStatuses: readonly string[];
}

const ticks = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((v) => !/^<.*>$/.test(v));

/** True when the text is nothing but a list of backticked values ("`a`, `b` / `c`, one of ..."). */
const pureList = (text: string) =>
  !/`\{/.test(text) &&
  text
    .replace(/`[^`]+`/g, "")
    .replace(/\bone of\b|\bor\b|[,/]/g, "")
    .trim() === "" &&
  ticks(text).length > 0;

function typeCheck(cell: string): Check | undefined {
  const m = /^(string|number|array|object)(?: of [a-z ]+)?( or null)?$/.exec(cell.trim());
  return m ? { kind: "type", type: m[1] as "string", nullable: m[2] !== undefined } : undefined;
}

/** Checks stated by a Rules / Notes text (and, for column tables, the column cell). */
export function notesChecks(text: string, lists: SeedLists): Check[] {
  const out: Check[] = [];
  const t = text.trim();
  if (!t) return out;
  if (/not shown/i.test(t)) out.push({ kind: "unknown", text: t });
  if (/\bURL\b/.test(t)) out.push({ kind: "format", format: "url" });
  if (/ISO 8601/.test(t)) out.push({ kind: "format", format: "date-time" });
  if (/Unix (?:ms|milliseconds)/.test(t)) out.push({ kind: "format", format: "unix-ms" });
  if (/examples show seconds and milliseconds/.test(t)) out.push({ kind: "format", format: "seconds-or-ms" });
  if (/\bUUID\b/.test(t)) out.push({ kind: "format", format: "uuid" });
  if (/ISO3|3-letter ISO/.test(t)) out.push({ kind: "format", format: "iso3" });
  if (/Data URI/.test(t))
    out.push({ kind: "format", format: "data-uri", mimes: /JPG\/PNG\/PDF/.test(t) ? ["image/jpeg", "image/png", "application/pdf"] : undefined });
  if (/`DD\/MM\/YYYY`/.test(t)) out.push({ kind: "format", format: "ddmmyyyy" });
  const state = /state code(?::\s*((?:[A-Z]{2}\s*)+))?/.exec(t);
  if (state) out.push(state[1] ? { kind: "enum", values: state[1].trim().split(/\s+/) } : { kind: "format", format: "us-state" });
  const range = /(\d+) to (\d+) digits/.exec(t);
  const digits = /(?:exactly )?(\d+)[ -]digits?\b/.exec(t);
  const masks = ticks(t).filter((v) => /^X[X-]+$/.test(v));
  if (masks.length) out.push({ kind: "masks", masks });
  else if (range) out.push({ kind: "digits", min: Number(range[1]), max: Number(range[2]) });
  else if (digits) out.push({ kind: "digits", min: Number(digits[1]), max: Number(digits[1]) });
  const fewer = /fewer than (\d+) characters/.exec(t);
  if (fewer) out.push({ kind: "maxLength", max: Number(fewer[1]) - 1 });
  const atMost = /at most (\d+) characters(?! each)/.exec(t);
  if (atMost) out.push({ kind: "maxLength", max: Number(atMost[1]) });
  if (/letters, apostrophes, spaces, hyphens/.test(t)) out.push({ kind: "letters" });
  if (/^optional\b|;\s*optional\b|^Optional\b|webhooks only|present where|present once|only with status/.test(t)) out.push({ kind: "optional" });
  const starts = /starts at (\d+)/.exec(t);
  if (starts) out.push({ kind: "minimum", min: Number(starts[1]) });
  if (/empty array if none/.test(t)) out.push({ kind: "emptyArray" });
  if (/^deprecated\b/.test(t)) out.push({ kind: "deprecated" });
  if (/always present|always populated|^always `/.test(t)) out.push({ kind: "required" });
  if (/(?:^|;\s*)required\b/.test(t)) out.push({ kind: "required" });
  if (/empty or missing is a validation error/.test(t)) out.push({ kind: "nonEmpty" });
  const constant = /^(?:always|[Vv]alue) `([^`]+)`|; value `([^`]+)`/.exec(t);
  if (constant) out.push({ kind: "const", value: constant[1] ?? constant[2]! });
  else if (/^Section 3\b/.test(t) && /verificationStatus|removed/.test(t)) out.push({ kind: "accepts", values: lists.verificationStatuses });
  else if (/^Section 3$/.test(t)) out.push({ kind: "enum", values: lists.submissionStatuses });
  else if (/\be\.g\.\s*`/.test(t) && !/e\.g\. pattern/.test(t)) out.push({ kind: "open", examples: ticks(t) });
  else if (!state && !masks.length && !out.some((c) => c.kind === "format") && pureList(t)) {
    out.push({ kind: "enum", values: ticks(t) });
  }
  return out;
}

/** Field names of a first cell: "firstName, middleName, lastName", "a / b", "country (required)". */
export function namesOf(cell: string): { names: string[]; required: boolean; requiredIfPresent: boolean } {
  const requiredIfPresent = /\(required if present\)/.test(cell);
  const required = /\(required\)/.test(cell);
  const bare = cell.replace(/\([^)]*\)/g, "").replace(/`/g, "");
  return {
    names: bare
      .split(/,|\s\/\s/)
      .map((s) => s.trim())
      .filter(Boolean),
    required,
    requiredIfPresent,
  };
}

/** Nested statements written inside braces: `{ status (clear or hits_found), totalHits (number), ... }`. */
function braceFields(text: string): FieldStatement[] | undefined {
  const m = /`(\w+)\.(\w+)` = `\{([^}]*)\}`/.exec(text);
  if (!m) return undefined;
  const parent = m[2]!;
  return m[3]!.split(",").map((part) => {
    const p = /^\s*(\w+)\s*\(([^)]*)\)\s*$/.exec(part);
    const name = p ? p[1]! : part.trim();
    const inner = p ? p[2]! : "";
    const checks: Check[] = [];
    const type = typeCheck(inner);
    if (type) checks.push(type);
    else if (/\bor\b/.test(inner) && !/[A-Z]/.test(inner)) checks.push({ kind: "enum", values: inner.split(/\s+or\s+/).map((s) => s.trim()) });
    else checks.push(...notesChecks(inner, { verificationStatuses: [], submissionStatuses: [] }));
    return { path: [parent, name], checks };
  });
}

/** The checks a Notes text states about keys one level down (identifiers, addresses, idvRiskScore, ...). */
function nestedStatements(text: string, lists: SeedLists): { own: Check[]; nested: FieldStatement[] } {
  const nested: FieldStatement[] = [];
  const own: Check[] = [];
  const braces = braceFields(text);
  if (braces) return { own: [], nested: braces };
  const described = /^`\{ (\w+) \}` with (.*)$/.exec(text);
  if (described) {
    nested.push({ path: [described[1]!], checks: [{ kind: "enum", values: ticks(described[2]!) }] });
    return { own, nested };
  }
  const keyed = /keyed by scheme, e\.g\. (.*)$/.exec(text);
  if (keyed) {
    for (const m of keyed[1]!.matchAll(/`(\w+)`(?:\s*\(([^)]*)\))?/g)) nested.push({ path: [m[1]!], checks: m[2] ? notesChecks(m[2], lists) : [] });
    return { own, nested };
  }
  const each = /at most (\d+) characters each: (.*)$/.exec(text);
  if (each) {
    for (const name of ticks(each[2]!))
      nested.push({
        path: [name],
        checks: [
          { kind: "type", type: "string", nullable: false },
          { kind: "maxLength", max: Number(each[1]) },
        ],
      });
    return { own, nested };
  }
  const keys = [...text.matchAll(/`\{([^}]*)\}`/g)].flatMap((m) => m[1]!.split(",").map((k) => k.split(":")[0]!.trim()));
  if (keys.length) own.push({ kind: "keys", names: [...new Set(keys)], items: /\bitems\b/.test(text) });
  const eachHas = /each has (.*)$/.exec(text);
  if (eachHas) own.push({ kind: "keys", names: eachHas[1]!.split(",").map((s) => s.trim()), items: true });
  const entries = /entries have (\w+) plus some of: (.*)$/.exec(text);
  if (entries) {
    own.push({ kind: "itemRequires", name: entries[1]! });
    own.push({ kind: "keys", names: [entries[1]!, ...entries[2]!.split(",").map((s) => s.trim())], items: true });
  }
  // Role names: every backticked word of a "role(s) `a` (...), `b` (...)" statement.
  if (/^roles? `/.test(text)) own.push({ kind: "roles", names: ticks(text.split(";")[0]!.replace(/\([^)]*\)/g, "")) });
  return { own, nested };
}

/** The rows of a field table (first header cell "Field"), as statements; `inherit` resolves "as in 2.2". */
export function fieldRows(table: SeedTable, lists: SeedLists, inherit: (section: string, name: string) => Check[] | undefined, heading: string): FieldRow[] {
  const kindOf = (text: string) => /`type` = `(\w+)`/.exec(text)?.[1];
  const kind = kindOf(table.rows[0]?.lead ?? "") ?? kindOf(heading);
  const marksRequired = table.rows.some((r) => /\(required/.test(r.cells[0] ?? ""));
  const columns = table.header.slice(1);
  const hasType = columns[0] === "Type";
  const rows: FieldRow[] = [];
  const earlier = (name: string) =>
    rows
      .flatMap((r) => r.fields)
      .find((f) => f.path.length === 1 && f.path[0] === name)
      ?.checks.filter((c) => c.kind !== "required" && c.kind !== "optional");
  for (const row of table.rows) {
    const { names, required, requiredIfPresent } = namesOf(row.cells[0]!);
    const targets = hasType
      ? [{ column: undefined as string | undefined, cells: row.cells.slice(1) }]
      : columns.map((c, i) => ({ column: c, cells: [row.cells[i + 1] ?? ""] }));
    for (const target of targets) {
      const fields: FieldStatement[] = names.map((name) => {
        const checks: Check[] = [];
        const [typeCell, notes = ""] = target.cells as [string, string?];
        const type = typeCheck(typeCell);
        if (type) checks.push(type);
        else if (!hasType) checks.push(...notesChecks(typeCell, lists));
        const ref = /same rules as (\w+)|as in (2\.\d+)/.exec(notes);
        const inherited = ref ? (ref[2] ? inherit(ref[2], name) : earlier(ref[1]!)) : undefined;
        if (ref && !inherited) throw new Error(`section ${table.section} line ${row.line}: "${ref[0]}" names a row the audit cannot find`);
        if (inherited) checks.push(...inherited);
        const nested = nestedStatements(notes, lists);
        // "roles below": the roles are listed after the table ("Stakeholder roles for both: `a` (...), ...").
        const below = /roles below/.test(notes) ? /roles for \w+: (.*)/.exec(table.trail)?.[1] : undefined;
        if (below) checks.push({ kind: "roles", names: ticks(below.replace(/\([^)]*\)/g, "")) });
        checks.push(...nested.own);
        checks.push(
          ...notesChecks(notes, lists).filter((c) => !(nested.nested.length && c.kind !== "unknown" && c.kind !== "optional" && c.kind !== "required")),
        );
        if (new RegExp(`\\(${name} required if present\\)`).test(notes)) checks.push({ kind: "optional" }, { kind: "nonEmpty" });
        if (required) checks.push({ kind: "required" });
        else if (requiredIfPresent) checks.push({ kind: "optional" }, { kind: "nonEmpty" });
        else if (marksRequired && !ref && !checks.some((c) => c.kind === "required" || c.kind === "optional")) checks.push({ kind: "optional" });
        return { path: [name], checks: dedupe(checks) };
      });
      const nestedFields =
        names.length === 1 && target.cells[1]
          ? nestedStatements(target.cells[1], lists).nested.map((n) => ({ path: [names[0]!, ...n.path], checks: n.checks }))
          : [];
      rows.push({ section: table.section, label: row.cells[0]!, line: row.line, kind, column: target.column, fields: [...fields, ...nestedFields] });
    }
  }
  return rows;
}

/** A required check wins over an inherited optional one (and the other way round), by order: last wins. */
function dedupe(checks: Check[]): Check[] {
  const out: Check[] = [];
  for (const c of checks) {
    if (c.kind === "required" || c.kind === "optional") {
      const i = out.findIndex((o) => o.kind === "required" || o.kind === "optional");
      if (i >= 0) out.splice(i, 1);
    }
    const key = JSON.stringify(c);
    if (!out.some((o) => JSON.stringify(o) === key)) out.push(c);
  }
  return out;
}

/** The 2.9 forms table: one row per entity kind, its additional fields and what parentheses state. */
export function formsRows(table: SeedTable, lists: SeedLists): FieldRow[] {
  return table.rows.map((row: SeedRow) => {
    const kind = ticks(row.cells[0]!)[0]!;
    const fields: FieldStatement[] = [];
    for (const part of topLevel(row.cells[1]!)) {
      const m = /^(\w+)\s*(.*)$/.exec(part.trim());
      if (!m) continue;
      const [, name, rest] = m as unknown as [string, string, string];
      const inner = /^\((.*)\)$/.exec(rest.trim())?.[1] ?? rest;
      const checks: Check[] = [];
      if (name === "stakeholders") {
        const roles = ticks(/role `\w+`/.exec(rest)?.[0] ?? "");
        checks.push({ kind: "roles", names: roles });
      } else if (/an example sends/.test(inner)) checks.push({ kind: "accepts", values: ticks(inner) });
      else if (/^`/.test(inner) && ticks(inner).length > 1) checks.push({ kind: "enum", values: ticks(inner).map((v) => v.split(" ")[0]!) });
      else {
        const type = typeCheck(inner);
        if (type) checks.push(type);
        checks.push(...notesChecks(inner, lists));
      }
      fields.push({ path: [name], checks });
    }
    return { section: table.section, label: row.cells[0]!, line: row.line, kind, fields };
  });
}

/** Splits "a (x, y), b; c" at commas and semicolons outside parentheses. */
function topLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if ((ch === "," || ch === ";") && depth === 0) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  if (current.trim()) out.push(current);
  return out;
}

export const describeCheck = (c: Check): string => {
  switch (c.kind) {
    case "type":
      return `type ${c.type}${c.nullable ? " or null" : ""}`;
    case "format":
      return `format ${c.format}${c.mimes ? ` (${c.mimes.join(", ")})` : ""}`;
    case "enum":
      return `allowed values ${c.values.join(", ")}`;
    case "const":
      return `constant ${c.value}`;
    case "open":
      return `open list, e.g. ${c.examples.join(", ")}, with an explicit unknown for the rest`;
    case "accepts":
      return `accepts ${c.values.join(", ")}`;
    case "digits":
      return c.min === c.max ? `${c.min} digits` : `${c.min} to ${c.max} digits`;
    case "masks":
      return `digits as ${c.masks.join(" or ")}`;
    case "maxLength":
      return `at most ${c.max} characters`;
    case "minimum":
      return `at least ${c.min}`;
    case "emptyArray":
      return "empty array accepted";
    case "unknown":
      return "explicit unknown (not shown)";
    case "keys":
      return `${c.items ? "items have" : "has"} keys ${c.names.join(", ")}`;
    case "itemRequires":
      return `items require ${c.name}`;
    case "roles":
      return `roles ${c.names.join(", ")}`;
    default:
      return c.kind;
  }
};

// ---- Field lists written as prose ("Document: `kind` (string, required; ...), `mimeType` (...), ...") ----

/** Splits at commas outside parentheses, braces and backticks. */
function splitItems(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let tick = false;
  let current = "";
  for (const ch of text) {
    if (ch === "`") tick = !tick;
    if (!tick && (ch === "(" || ch === "{")) depth++;
    if (!tick && (ch === ")" || ch === "}")) depth--;
    if (ch === "," && depth === 0 && !tick) {
      out.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** What a parenthesis after a listed field states: "string, required; e.g. `a`", "number, milliseconds". */
function parenChecks(text: string, lists: SeedLists): Check[] {
  const out: Check[] = [];
  const parts = text.split(/;\s*/).flatMap((p, i) => (i === 0 ? p.split(/,\s*(?=required|milliseconds|e\.g\.)/) : [p]));
  for (const part of parts) {
    const type = typeCheck(part);
    if (type) out.push(type);
    else if (part === "milliseconds") out.push({ kind: "format", format: "unix-ms" });
    else {
      if (/\bstring\b/.test(part) && !/`/.test(part)) out.push({ kind: "type", type: "string", nullable: false });
      out.push(...notesChecks(part, lists));
    }
  }
  // "URL, or base64 content as a Data URI": the format depends on another field (`source`); the
  // payload fixtures v5-document-url-* and v5-document-bad-data-uri cover both sides.
  const formats = out.filter((c) => c.kind === "format" && (c.format === "url" || c.format === "data-uri"));
  return formats.length > 1 ? out.filter((c) => !formats.includes(c)) : out;
}

/** The rows of the prose list `label` in `section`, or undefined when the section has no such list. */
export function listRows(seed: string, section: string, label: string, lists: SeedLists): FieldRow[] | undefined {
  const lines = seed.split(/\r?\n/);
  let current = "";
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const start = new RegExp(`^(?:- )?${escaped}(?: \\([^)]*\\))?: (.*)$`);
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{2,3} ([0-9]+(?:\.[0-9]+)?)\.? /.exec(lines[i]!);
    if (heading) current = heading[1]!;
    const m = current === section ? start.exec(lines[i]!) : null;
    if (!m) continue;
    let rest = m[1]!.replace(/^[a-z][^`:]*: /, "");
    const row = (name: string, checks: Check[]): FieldRow => ({
      section,
      label: `${label}: ${name}`,
      line: i + 1,
      fields: [{ path: [name], checks: dedupe(checks) }],
    });
    // "`{ a, b, c }`; `a` is a string ..., `b` is a URL ..."
    const braces = /^`\{([^}]*)\}`;?\s*(.*)$/.exec(rest);
    if (braces) {
      const said = new Map([...braces[2]!.matchAll(/`(\w+)` is (.*?)(?=, `\w+` is |\. |\.$|$)/g)].map((x) => [x[1]!, x[2]!]));
      return braces[1]!
        .split(",")
        .map((n) => n.trim())
        .map((name) => {
          const text = said.get(name) ?? "";
          const checks: Check[] = /^a (?:UUID )?string\b/.test(text) ? [{ kind: "type", type: "string", nullable: false }] : [];
          return row(name, [...checks, ...notesChecks(text.replace(/^a (?=URL)/, ""), lists)]);
        });
    }
    rest = rest.replace(/\. [A-Z].*$/, "").replace(/\.$/, "");
    const out: FieldRow[] = [];
    for (let item of splitItems(rest)) {
      item = item.replace(/^and [a-z ]+: /, "");
      if (/^plus /.test(item)) continue;
      const alternatives = /^`\w+`(?: \([^)]*\))? or `\w+`/.test(item) ? item.split(/\s+or\s+(?=`)/) : [item];
      for (const one of alternatives) {
        const x = /^`?(\w+)`?\s*(?:\((.*)\))?\s*(`\{([^}]*)\}`)?$/.exec(one.trim());
        if (!x) continue;
        const checks = x[2] ? parenChecks(x[2], lists) : [];
        if (x[4]) checks.push({ kind: "keys", names: x[4].split(",").map((k) => k.trim()), items: false });
        out.push(row(x[1]!, checks));
      }
    }
    return out;
  }
  return undefined;
}
