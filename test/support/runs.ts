// Property-test run counts. Under mutation testing (`npm run mutate`, vitest.mutate.config.ts sets
// VERISPEC_MUTATION) every mutant re-runs the suites that cover it, so the counts are capped there; a
// mutant that only thousands of generated documents reach is left to the full `npm test` runs.
export const MUTATION_RUNS_CAP = 200;

export function propertyRuns(runs: number): number {
  return process.env.VERISPEC_MUTATION === "1" ? Math.min(runs, MUTATION_RUNS_CAP) : runs;
}

/** An input's size where the size shows nothing a smaller one would not (a scan's count), capped the same way. */
export const MUTATION_SIZE_CAP = 50_000;

export function inputSize(size: number): number {
  return process.env.VERISPEC_MUTATION === "1" ? Math.min(size, MUTATION_SIZE_CAP) : size;
}
