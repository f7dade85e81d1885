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
/** Codes and paths numbered per validator (QuickSites.same): one bit each in quickIssues' 32-bit mask. */
const SAME_MAX = 31;

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

/** What quickIssues worked out for one error number (its row) at one place: the base, or the instancePath. */
interface Slot {
  readonly key: string;
  readonly issue: ValidationIssue | typeof NOISE;
  /** A number per code and path (QuickSites.same), equal for equal issues (mapErrors keeps one issue per code and path); -1: noise. */
  readonly same: number;
}

/** One validator's cache: the locations of its table (shared by every validator of that table) and its own slots. */
export interface QuickSites {
  readonly sites: Map<string, Site>;
  /** By the error's number (AjvError.row): an array, as the numbers are small and dense (a few thousand in all). */
  readonly slots: (Slot | undefined)[];
  /** The number of each code and path met (the issue's code and JSON path as one string). */
  readonly same: Map<string, number>;
}

/** The sites of one validator's table and messages, looked up once per validator instead of per call, and a fresh slot cache. */
export function quickSites(table: ErrorTable, messages: MessageTemplates): QuickSites {
  return { sites: sitesOf(table, messages), slots: [], same: new Map() };
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
function issueOf(e: AjvError, data: unknown, cache: QuickSites, table: ErrorTable): ValidationIssue | typeof NOISE | undefined {
  if (e.keyword === OVER_BUDGET) return undefined;
  const sites = cache.sites;
  let site = sites.get(e.schemaPath);
  if (site === undefined || site.keyword !== e.keyword) {
    // A location met for the first time: work it out as mapErrors would, then decide.
    site = newSite(e, table);
    sites.set(e.schemaPath, site);
  }
  if (site.noise) return remember(e, cache, NOISE);
  if (site.isUnion || site.unionPrefixes.length !== 0 || site.keyword === "type") return undefined;
  const fixed = site.fixed;
  const answer = fixed ?? (site.keyword === "required" ? site.byParam.get(String(e.params.missingProperty)) : undefined);
  if (answer === undefined || site.keyword === "additionalProperties") return undefined;
  const pointer = pointerOfError(e);
  if (!pointer.plain) return walkedIssue(e, data, answer);
  // A plain path is the same whatever the document holds: one frozen issue, shared.
  if (fixed !== undefined) return remember(e, cache, issueAt(site, fixed, pointer));
  return remember(e, cache, Object.freeze({ message: answer.message, code: answer.code, path: Object.freeze([...pointer.segments, ...answer.suffix]) }));
}

/** Keeps an error's answer in its row's slot (its params are fixed: the answer depends on its place alone). */
function remember<T extends ValidationIssue | typeof NOISE>(e: AjvError, cache: QuickSites, answer: T): T {
  const row = e.row;
  if (row == null) return answer;
  const slots = cache.slots;
  while (slots.length <= row) slots.push(undefined); // grown densely: a far index would make a slow (dictionary) array
  slots[row] = { key: e.base ?? e.instancePath, issue: answer, same: answer === NOISE ? -1 : sameNumber(cache, answer) };
  return answer;
}

/**
 * The number of an issue's code and path in this cache, given on first sight; -1 once SAME_MAX are given (the
 * paths met are unbounded under a map of free keys): such an issue is told from the others by its path (sameIssue).
 */
function sameNumber(cache: QuickSites, issue: ValidationIssue): number {
  const key = `${issue.code} ${JSON.stringify(issue.path)}`;
  let n = cache.same.get(key);
  if (n === undefined) {
    if (cache.same.size >= SAME_MAX) return -1;
    cache.same.set(key, (n = cache.same.size));
  }
  return n;
}

/**
 * mapErrors' answer for errors that are all simple (see above), or undefined. `cache` from quickSites
 * with the same table and messages as mapErrors would use. An error met before at the same place is
 * answered from its slot (by its number, AjvError.row): one index and one comparison, and its issue told
 * from the others by one bit (sameIssue compares the others' paths, for an issue that has no number).
 */
export function quickIssues(
  errors: readonly AjvError[],
  data: unknown,
  cache: QuickSites,
  table: ErrorTable,
  maxErrors: number,
): ValidationIssue[] | undefined {
  const n = errors.length;
  if (n > maxErrors || n > QUICK_MAX) return undefined;
  const slots = cache.slots;
  const out: ValidationIssue[] = [];
  let same = 0; // a bit per number (QuickSites.same) listed in out, while every issue of out has one; -1 after
  for (let k = 0; k < n; k++) {
    const e = errors[k]!;
    const row = e.row;
    let slot = row != null ? slots[row] : undefined;
    // Noise is noise wherever it is (sites.ts): its place is not compared (a long instancePath costs a flattening).
    const hit = slot !== undefined && (slot.issue === NOISE || slot.key === (e.base ?? e.instancePath));
    const issue = hit ? slot!.issue : issueOf(e, data, cache, table);
    if (issue === NOISE) continue;
    if (issue === undefined) return undefined;
    if (!hit && row != null) slot = slots[row];
    const key = slot !== undefined && slot.issue === issue ? slot.same : -1;
    if (same !== -1 && key !== -1) {
      if ((same & (1 << key)) !== 0) continue;
      same |= 1 << key;
    } else {
      same = -1; // from here on, paths are compared
      if (out.length !== 0 && sameIssue(out, issue.code, issue.path, undefined) >= 0) continue;
    }
    out.push(issue);
  }
  return out;
}
