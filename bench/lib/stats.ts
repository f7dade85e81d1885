// Robust summaries, never plain means (a preempted sample on a shared machine is an outlier, not a
// measurement). Over the rounds: the median. Some peers' speed is bimodal between processes (one process
// lands in a state about twice as slow as the next); the median ignores the slow processes while they are
// fewer than half. The interquartile mean was tried and averages some of them in: on the same three pairs
// of `--repeat 2` runs it left 12, 20 and 3 of 32 ratios more than 10% apart, the median 6, 8 and 0.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The q-quantile (0..1) by linear interpolation between the order statistics. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export interface Spread {
  /** The median. */
  readonly center: number;
  readonly min: number;
  readonly max: number;
  /** Half the min-max range over the center, as a fraction (0.05 = ±5%). */
  readonly relative: number;
}

export function spread(values: readonly number[]): Spread {
  const c = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { center: c, min, max, relative: c === 0 ? 0 : (max - min) / 2 / Math.abs(c) };
}

/** How far two summaries of the same figure differ, relative to their mean (0.1 = 10%). */
export function relativeDifference(a: number, b: number): number {
  const mean = (Math.abs(a) + Math.abs(b)) / 2;
  return mean === 0 ? 0 : Math.abs(a - b) / mean;
}

/** A deterministic shuffle (mulberry32): the order of pairs changes every round, the same on every run. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
