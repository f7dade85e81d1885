// The common invalid document in one pass (issue 41): every error at a place already seen, none of them a
// union, inside a union, a wrong type or an unknown key. Such errors map one by one, in order, each to a
// fixed answer (code, message, what follows the document path) kept per schema location; what mapErrors
// does beyond that (noise across unions, a type error hiding the others at its path, grouping unknown
// keys, the cut at maxErrors) cannot happen, so the answer is the same. Anything else answers undefined
// and mapErrors takes it, from the first error: nothing is half done.
import { documentPath } from "./document-path.js";
import { sameIssue } from "./map-errors.js";
import { newSite, type Site, sitesOf } from "./sites.js";
import { OVER_BUDGET, type AjvError, type ErrorTable, type MessageTemplates, type ValidationIssue } from "./types.js";

/** Past this many errors mapErrors' maps keep the work linear; below it a scan is cheaper. */
const QUICK_MAX = 16;

/** The sites of one validator's table and messages, looked up once per validator instead of per call. */
export function quickSites(table: ErrorTable, messages: MessageTemplates): Map<string, Site> {
  return sitesOf(table, messages);
}

/**
 * mapErrors' answer for errors that are all simple (see above), or undefined. `sites` from quickSites
 * with the same table and messages as mapErrors would use.
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
  for (let k = 0; k < n; k++) {
    const e = errors[k]!;
    if (e.keyword === OVER_BUDGET) return undefined;
    let site = sites.get(e.schemaPath);
    if (site === undefined || site.keyword !== e.keyword) {
      // A location met for the first time: work it out as mapErrors would, then decide.
      site = newSite(e, table);
      sites.set(e.schemaPath, site);
    }
    if (site.noise) continue;
    if (site.isUnion || site.unionPrefixes.length !== 0 || site.keyword === "type") return undefined;
    const answer = site.fixed ?? (site.keyword === "required" ? site.byParam.get(String(e.params.missingProperty)) : undefined);
    if (answer === undefined || answer.code === "unrecognized_keys") return undefined;
    const path = documentPath(data, e, false);
    const suffix = answer.suffix;
    for (let s = 0; s < suffix.length; s++) path.push(suffix[s]!);
    if (out.length !== 0 && sameIssue(out, answer.code, path, undefined) >= 0) continue;
    out.push({ message: answer.message, code: answer.code, path });
  }
  return out;
}
