// The common invalid document in one pass (issue 41): every error at a place already seen, none of them a
// union, inside a union, a wrong type or an unknown key. Such errors map one by one, in order, each to a
// fixed answer (code, message, what follows the document path) kept per schema location; what mapErrors
// does beyond that (noise across unions, a type error hiding the others at its path, grouping unknown
// keys, the cut at maxErrors) cannot happen, so the answer is the same. Anything else answers undefined
// and mapErrors takes it, from the first error: nothing is half done.
import { documentPath, type Pointer, pointerOfError } from "./document-path.js";
import { sameIssue } from "./map-errors.js";
import { type Answer, newSite, type Site, sitesOf } from "./sites.js";
import { OVER_BUDGET, type AjvError, type ErrorTable, type MessageTemplates, type ValidationIssue } from "./types.js";

/** Past this many errors mapErrors' maps keep the work linear; below it a scan is cheaper. */
const QUICK_MAX = 16;
/** Issues kept per location: a location under a map of free keys meets unboundedly many paths. */
const ISSUES_MAX = 64;

/**
 * The issue of a fixed answer at a plain pointer (no segment an array index: the path is the same whatever
 * the document holds), built once and shared by every call that meets it. Frozen, as ValidationIssue's
 * type says (readonly): a caller cannot change what the next call returns.
 */
function issueAt(site: Site, answer: Answer, pointer: Pointer): ValidationIssue {
  let issues = site.issues;
  let issue = issues?.get(pointer);
  if (issue !== undefined) return issue;
  if (issues === undefined || issues.size >= ISSUES_MAX) site.issues = issues = new Map();
  const path = Object.freeze([...pointer.segments, ...answer.suffix]);
  issues.set(pointer, (issue = Object.freeze({ message: answer.message, code: answer.code, path })));
  return issue;
}

/** The sites of one validator's table and messages, looked up once per validator instead of per call. */
export function quickSites(table: ErrorTable, messages: MessageTemplates): Map<string, Site> {
  return sitesOf(table, messages);
}

/** What one simple error maps to: an issue, NOISE (dropped), or undefined (not simple: mapErrors decides). */
const NOISE = null;

/** An issue whose path is fresh (a pointer with a segment that may be an array index, read from the document). */
function walkedIssue(e: AjvError, data: unknown, answer: Answer): ValidationIssue {
  const path = documentPath(data, e, false);
  const suffix = answer.suffix;
  for (let s = 0; s < suffix.length; s++) path.push(suffix[s]!);
  return { message: answer.message, code: answer.code, path };
}

/** One error worked out from its location (sites.ts), as mapErrors would; kept in its row's slot where it is fixed. */
function issueOf(e: AjvError, data: unknown, sites: Map<string, Site>, table: ErrorTable): ValidationIssue | typeof NOISE | undefined {
  if (e.keyword === OVER_BUDGET) return undefined;
  let site = sites.get(e.schemaPath);
  if (site === undefined || site.keyword !== e.keyword) {
    // A location met for the first time: work it out as mapErrors would, then decide.
    site = newSite(e, table);
    sites.set(e.schemaPath, site);
  }
  if (site.noise) return remember(e, sites, NOISE);
  if (site.isUnion || site.unionPrefixes.length !== 0 || site.keyword === "type") return undefined;
  const fixed = site.fixed;
  const answer = fixed ?? (site.keyword === "required" ? site.byParam.get(String(e.params.missingProperty)) : undefined);
  if (answer === undefined || site.keyword === "additionalProperties") return undefined;
  const pointer = pointerOfError(e);
  if (!pointer.plain) return walkedIssue(e, data, answer);
  // A plain path is the same whatever the document holds: one frozen issue, shared.
  if (fixed !== undefined) return remember(e, sites, issueAt(site, fixed, pointer));
  return remember(e, sites, Object.freeze({ message: answer.message, code: answer.code, path: Object.freeze([...pointer.segments, ...answer.suffix]) }));
}

/** Keeps an error's answer in its row's slot (its params are fixed: the answer depends on its place alone). */
function remember<T extends ValidationIssue | typeof NOISE>(e: AjvError, sites: Map<string, Site>, answer: T): T {
  const row = e.row;
  if (row != null) {
    row.sites = sites;
    row.key = e.base ?? e.instancePath;
    row.issue = answer;
    row.same = answer === NOISE ? null : sameKey(answer);
  }
  return answer;
}

/**
 * An issue's code and path as one string (JSON: no two paths alike), internalized by V8 as a property name:
 * two such strings are equal exactly when they are the same string, which V8 compares by address.
 */
function sameKey(issue: ValidationIssue): string {
  return Object.keys({ [`${issue.code} ${JSON.stringify(issue.path)}`]: 0 })[0]!;
}

/** The keys of the issues listed so far in one quickIssues call (synchronous: one call at a time), at most QUICK_MAX. */
const SAME: (string | null)[] = new Array<string | null>(QUICK_MAX).fill(null);

/** Whether one of the first `m` keys is `key` (internalized strings: V8 compares them by address). */
function seen(key: string, m: number): boolean {
  for (let i = 0; i < m; i++) if (SAME[i] === key) return true;
  return false;
}

/**
 * mapErrors' answer for errors that are all simple (see above), or undefined. `sites` from quickSites
 * with the same table and messages as mapErrors would use. An error met before at the same place is
 * answered from its row's slot: two comparisons, no lookup, and its issue told from the others by one
 * string (sameIssue compares the others' paths, for an issue that has no slot).
 */
export function quickIssues(
  errors: readonly AjvError[],
  data: unknown,
  sites: Map<string, Site>,
  table: ErrorTable,
  maxErrors: number,
): ValidationIssue[] | undefined {
  const n = errors.length;
  if (n > maxErrors || n > QUICK_MAX) return undefined;
  const out: ValidationIssue[] = [];
  let keyed = true; // SAME[0..out.length) holds out's keys while every issue has one
  for (let k = 0; k < n; k++) {
    const e = errors[k]!;
    const row = e.row;
    // Noise is noise wherever it is (sites.ts): its place is not compared (a long instancePath costs a flattening).
    const hit = row != null && row.sites === sites && (row.issue === NOISE || row.key === (e.base ?? e.instancePath));
    const issue = hit ? row.issue : issueOf(e, data, sites, table);
    if (issue === NOISE) continue;
    if (issue === undefined) return undefined;
    const key = hit || (row != null && row.issue === issue) ? row!.same : null;
    if (keyed && key !== null) {
      if (seen(key, out.length)) continue;
      SAME[out.length] = key;
    } else {
      keyed = false;
      if (out.length !== 0 && sameIssue(out, issue.code, issue.path, undefined) >= 0) continue;
    }
    out.push(issue);
  }
  return out;
}
