// The results the sandbox cannot know (it checks no identity and screens no watchlist): risk, score and
// watchlist values chosen by test value (spec/sandbox.yaml choices.results), and the older payload built from
// them. Pure functions over the binding's data and a stored verification; service.ts reads and writes.
// @noble/hashes (a dependency already, for webhook signatures): the same SHA-256 on every runtime (verispec/msw runs this in a browser).
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { choice, type SandboxBinding, type SandboxSpec, transitionRow } from "./binding.js";

type Json = Record<string, unknown>;

/** What a verification's results are (spec/sandbox.yaml choices.results: neutral, or the hits of its word). */
export interface Results {
  readonly idvRisk: string;
  readonly idvRiskDescription: string;
  readonly verificationScore: number;
  readonly watchlist: { readonly status: string; readonly totalHits: number };
  readonly inWatchLists: readonly Json[];
}

/** The neutral results, or the hits when the name holds the hits word (whole word, any case), as test values are read. */
export function resultsFor(spec: SandboxSpec, name: string): Results {
  const neutral = choice<Results>(spec, "results", "neutral");
  const hits = choice<Partial<Results> & { word: string }>(spec, "results", "hits");
  const hit = new RegExp(`(^|[^\\p{L}])${hits.word}($|[^\\p{L}])`, "iu").test(name);
  const { word: _word, ...values } = hits;
  return hit ? { ...neutral, ...values } : neutral;
}

/**
 * True once processing has completed: the status's outcome is not that of the status awaiting processing (the
 * complete row's `from`; `processing`, which `new` shares). Results are calculated then.
 */
export function processed(binding: SandboxBinding, verificationStatus: string): boolean {
  const awaiting = binding.rules.statuses[transitionRow(binding.rules, "complete").from ?? ""]?.outcome;
  return binding.rules.statuses[verificationStatus]?.outcome !== awaiting;
}

/** The v5 `screening` object (the service's specification, section 6.2), screened at the change's time. */
export function screening(results: Results, at: number): Json {
  return { watchlist: { ...results.watchlist, lastScreenedAt: at, lastScreenedTime: new Date(at).toISOString() } };
}

/** A UUID derived from a trace and a name: stable ids for what belongs to a verification (stakeholder items, a screening). */
export function derivedUuid(trace: string, name: string): string {
  const digest = bytesToHex(sha256(utf8ToBytes(`${trace}\n${name}`)));
  // Version 8 (custom) and the RFC 9562 variant: a well-formed UUID that says it is derived.
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-8${digest.slice(13, 16)}-${((parseInt(digest[16]!, 16) & 3) | 8).toString(16)}${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
}

/** The older payload's result fields (6.3): score for individuals, risk, watchlists, and the screening id once screened. */
export function olderResults(
  binding: SandboxBinding,
  v: { readonly trace: string; readonly type: string; readonly name: string; readonly verificationStatus: string },
): Json {
  const results = resultsFor(binding.spec, v.name);
  return {
    ...(v.type === binding.spec.individualType ? { verificationScore: results.verificationScore } : {}),
    ...(processed(binding, v.verificationStatus) ? { screeningId: derivedUuid(v.trace, "screening") } : {}),
    inWatchLists: results.inWatchLists,
    outOfWatchLists: [],
    idvRiskScore: { description: results.idvRiskDescription },
  };
}

/** The v5 payload's result fields (6.2): absent until processing has completed. */
export function v5Results(binding: SandboxBinding, v: { readonly name: string; readonly verificationStatus: string; readonly updatedAt: number }): Json {
  if (!processed(binding, v.verificationStatus)) return {};
  const results = resultsFor(binding.spec, v.name);
  return { idvRisk: results.idvRisk, screening: screening(results, v.updatedAt) };
}
