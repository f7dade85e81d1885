// What a benchmark file declares. The harness (bench/lib/harness.ts) measures every (payload,
// implementation) pair in a fresh process of its own, interleaved over rounds; a bench file only says
// what to measure and which ratios matter.

/** Runs the operation `n` times; returns something derived from the results so none is optimised away. */
export type Batch = (n: number) => unknown;

export interface Labelled {
  readonly id: string;
  readonly label: string;
}

/** A target on a ratio: verispec's speed over the peer's (peer time / verispec time) at least `min`. */
export interface RatioTarget {
  readonly peer: string;
  /** Payload ids the target applies to; all when absent. */
  readonly payloads?: readonly string[];
  readonly min: number;
}

export interface ThroughputSuite {
  readonly kind: "throughput";
  readonly id: string;
  readonly title: string;
  /** One line under the table: what the rows mean. */
  readonly notes: readonly string[];
  readonly payloads: readonly Labelled[];
  readonly impls: readonly Labelled[];
  /** The implementation the ratios are about (verispec's). */
  readonly ours: string;
  readonly targets: readonly RatioTarget[];
  /** Builds the batch of one pair; called in the child process only, so each pair starts cold. */
  load(payload: string, impl: string): Promise<Batch>;
}

export interface ImportModule extends Labelled {
  /** A file URL, imported by plain `node` (no TypeScript loader): what an integrator's process does. */
  readonly url: string;
}

/** Cold import time: one sample per fresh process; figures are differences over `baseline`. */
export interface ImportSuite {
  readonly kind: "import";
  readonly id: string;
  readonly title: string;
  readonly notes: readonly string[];
  readonly modules: readonly ImportModule[];
  readonly baseline: string;
  /** Fresh processes per module per round. */
  readonly samplesPerRound: number;
  /** Module id -> the most milliseconds it may take over the baseline. */
  readonly targets: Readonly<Record<string, number>>;
  /**
   * Ratios of two modules' times over the baseline, per round (`module` over `peer`), each at most `max`:
   * a budget that holds on a faster or slower machine alike (issue 41: all validators against Ajv alone).
   */
  readonly ratioTargets?: readonly { readonly module: string; readonly peer: string; readonly max: number }[];
}

export type Suite = ThroughputSuite | ImportSuite;
