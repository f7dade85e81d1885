// Ajv's errors -> the service's `{ message, code, path }` items (the service's specification, section 7). Pure functions, run only
// when a document is invalid.
//
// `mapErrors` gives exactly `groupIssues(filterNoise(errors).map(toIssue))`, without re-reading the schema
// location of an error on every document: what a location needs is worked out once (sites.ts); per error,
// what is left is the document path (document-path.ts) and, for a `type` or `required` error, one map lookup.
import { documentPath, walked } from "./document-path.js";
import { fill, parsedType, template } from "./messages.js";
import { answer, FIXED, newSite, type Answer, type Site, sitesOf } from "./sites.js";
import type { AjvError, ErrorTable, MessageTemplates, ValidationIssue } from "./types.js";

const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer === "" ? "/" : `${outer}/`);

/** A path as a map key: numbers and names kept apart, segments split by a character JSON keys rarely hold. */
const pathKey = (path: readonly (string | number)[]) => path.map((p) => (typeof p === "number" ? `\u0001${p}` : p)).join("\u0000");

/** Up to this many issues, a scan is cheaper than a map; past it, maps keep the work linear. */
const LINEAR_MAX = 16;

/** The last item when issues were cut at `maxErrors`: verispec's own, never sent by the service. */
export const TOO_MANY_ERRORS = "too_many_errors";

/** The last item of a cut list: how many issues were counted and not listed. */
export function tooManyErrors(more: number): ValidationIssue {
  return { message: `... and ${more} more error${more === 1 ? "" : "s"}`, code: TOO_MANY_ERRORS, path: [] };
}

/** How many issues a cut list's last item counts (0 when the list was not cut). */
export function countedBeyondCut(issues: readonly ValidationIssue[]): number {
  const last = issues.at(-1);
  return last?.code === TOO_MANY_ERRORS ? Number(/^\.\.\. and (\d+) more/.exec(last.message)?.[1] ?? 0) : 0;
}

/**
 * All of Ajv's errors for a document, as the service's issues; past `maxErrors` issues, the rest are
 * only counted (without building their paths and messages) and reported in
 * one last item `{ code: "too_many_errors", message: "... and N more errors", path: [] }`.
 */
export function mapErrors(errors: readonly AjvError[], data: unknown, table: ErrorTable, messages: MessageTemplates, maxErrors = Infinity): ValidationIssue[] {
  const sites = sitesOf(table, messages);
  const n = errors.length;
  const at: Site[] = new Array(n);
  let unions = 0;
  for (let k = 0; k < n; k++) {
    const e = errors[k]!;
    let site = sites.get(e.schemaPath);
    if (site === undefined || site.keyword !== e.keyword) sites.set(e.schemaPath, (site = newSite(e, table)));
    at[k] = site;
    if (site.isUnion) unions++;
  }
  // filterNoise: noise, and errors inside a failed union.
  const kept: number[] = [];
  let types = 0;
  for (let k = 0; k < n; k++) {
    const site = at[k]!;
    if (site.noise) continue;
    if (unions > 0 && site.unionPrefixes.length > 0 && insideFailedUnion(errors, at, errors[k]!, site)) continue;
    kept.push(k);
    if (site.keyword === "type") types++;
  }
  const out: ValidationIssue[] = [];
  let named: string[][] | undefined; // unknown keys collected per issue (additionalProperties)
  let index: Map<string, number> | undefined; // past LINEAR_MAX issues: by path and code
  let wrongType: Set<string> | undefined; // past LINEAR_MAX type errors: their instancePaths
  let more = 0; // past maxErrors: issues not listed
  let unknownAt: Set<string> | undefined; // past maxErrors: objects with unknown keys not listed
  if (types > LINEAR_MAX) wrongType = new Set(kept.filter((k) => at[k]!.keyword === "type").map((k) => errors[k]!.instancePath));
  for (const k of kept) {
    const e = errors[k]!;
    const site = at[k]!;
    // A value of the wrong type reports only that; a union's own error only when nothing more precise is at or below it.
    if (
      types > 0 &&
      site.keyword !== "type" &&
      site.keyword !== "required" &&
      (wrongType !== undefined ? wrongType.has(e.instancePath) : wrongTypeAt(errors, at, kept, e.instancePath))
    )
      continue;
    if (site.isUnion && !site.hasOverride && somethingBelow(errors, at, kept, k)) continue;
    if (out.length >= maxErrors) {
      // Counted, not built. Unknown keys of one object are one issue; every other error is its own.
      if (site.keyword !== "additionalProperties") more++;
      else (unknownAt ??= new Set()).add(`${e.instancePath} ${e.schemaPath}`);
      continue;
    }
    const path = documentPath(data, e, site.keyword === "type");
    let a: Answer | undefined;
    if (site.fixed !== undefined) a = site.fixed;
    else if (FIXED.has(site.keyword)) a = site.fixed = answer(e, data, path, table, messages);
    else {
      const param = site.keyword === "required" ? String(e.params.missingProperty) : site.keyword === "type" ? parsedType(walked) : undefined;
      if (param === undefined) a = answer(e, data, path, table, messages);
      else if ((a = site.byParam.get(param)) === undefined) site.byParam.set(param, (a = answer(e, data, path, table, messages)));
    }
    for (let s = 0; s < a.suffix.length; s++) path.push(a.suffix[s]!);
    if (index === undefined && out.length >= LINEAR_MAX) index = new Map(out.map((o, i) => [`${pathKey(o.path)} ${o.code}`, i]));
    const seen = sameIssue(out, a.code, path, index);
    if (site.keyword === "additionalProperties") {
      const name = /: (.*)$/.exec(a.message)?.[1] ?? "";
      if (seen >= 0 && named?.[seen] !== undefined) {
        named[seen]!.push(name);
        const m = template(messages, "additionalProperties:plural");
        out[seen] = { code: m.code, message: fill(m.message, { keys: named[seen]!.join(", ") }), path: out[seen]!.path }; // groupIssues' key order
        continue;
      }
      (named ??= [])[out.length] = [name];
    } else if (seen >= 0) continue;
    index?.set(`${pathKey(path)} ${a.code}`, out.length);
    out.push({ message: a.message, code: a.code, path });
  }
  more += unknownAt?.size ?? 0;
  if (more > 0) out.push(tooManyErrors(more));
  return out;
}

/** The index in `out` of an issue with this code and path (groupIssues' key: one issue per path and code), or -1. */
export function sameIssue(out: readonly ValidationIssue[], code: string, path: readonly (string | number)[], index: Map<string, number> | undefined): number {
  if (index !== undefined) return index.get(`${pathKey(path)} ${code}`) ?? -1;
  next: for (let i = 0; i < out.length; i++) {
    const other = out[i]!;
    if (other.code !== code || other.path.length !== path.length) continue;
    for (let s = 0; s < path.length; s++) if (other.path[s] !== path[s]) continue next;
    return i;
  }
  return -1;
}

function insideFailedUnion(errors: readonly AjvError[], at: readonly Site[], e: AjvError, site: Site): boolean {
  for (const prefix of site.unionPrefixes) {
    for (let u = 0; u < errors.length; u++) {
      if (at[u]!.isUnion && errors[u]!.schemaPath === prefix && within(e.instancePath, errors[u]!.instancePath)) return true;
    }
  }
  return false;
}

function wrongTypeAt(errors: readonly AjvError[], at: readonly Site[], kept: readonly number[], instancePath: string): boolean {
  for (const k of kept) if (at[k]!.keyword === "type" && errors[k]!.instancePath === instancePath) return true;
  return false;
}

function somethingBelow(errors: readonly AjvError[], at: readonly Site[], kept: readonly number[], self: number): boolean {
  const outer = errors[self]!.instancePath;
  for (const k of kept) if (k !== self && !at[k]!.isUnion && within(errors[k]!.instancePath, outer)) return true;
  return false;
}
