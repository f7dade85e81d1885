// Wraps an Ajv standalone function into the service-shaped validator (the service's specification, section 7).
import { countedBeyondCut, mapErrors, tooManyErrors } from "./map-errors.js";
import {
  OVER_BUDGET,
  type AjvError,
  type ErrorTable,
  type KeyLink,
  type KeyShapes,
  type MessageTemplates,
  type RawValidate,
  type ValidateContext,
  type ValidateOptions,
  type ValidationIssue,
  type ValidationResult,
  type Validator,
} from "./types.js";
import { quickIssues, quickSites } from "./quick-map.js";
import { unknownKeyIssues } from "./unknown-keys.js";

const VALID: ValidationResult = Object.freeze({ valid: true });
const DEFAULT_OPTIONS: ValidateOptions = Object.freeze({});
/** Issues listed before the "... and N more errors" item (see `ValidateOptions.maxErrors`). */
export const DEFAULT_MAX_ERRORS = 100;

/**
 * Error objects the all-errors run builds for `maxErrors` issues: mapping drops some (noise, the branches of
 * a failed union, the unknown keys of one object are one issue), so more than `maxErrors`; past this many,
 * errors are only counted (`OVER_BUDGET`), and memory and time stay bounded whatever the document.
 */
export function errorBudget(maxErrors: number): number {
  return maxErrors === Infinity ? Infinity : maxErrors * 10 + 1000;
}

/** Ajv's errors up to the first placeholder (they are a prefix: once the budget is spent every error is one), and how many placeholders follow. */
export function splitAtBudget(errors: readonly AjvError[]): { built: readonly AjvError[]; counted: number } {
  let n = 0;
  while (n < errors.length && errors[n]!.keyword !== OVER_BUDGET) n++;
  return n === errors.length ? { built: errors, counted: 0 } : { built: errors.slice(0, n), counted: errors.length - n };
}

/** Issues counted past the budget join the cut's last item (or make one). */
function withCounted(issues: ValidationIssue[], counted: number): ValidationIssue[] {
  if (counted === 0) return issues;
  const before = countedBeyondCut(issues);
  return [...(before > 0 ? issues.slice(0, -1) : issues), tooManyErrors(before + counted)];
}

/**
 * `raw` is the all-errors function. `first`, when given, is the first-error variant tried first: on a
 * valid document it answers alone; only an invalid one is re-run to collect every error.
 */
export function createValidator(
  raw: RawValidate,
  table: ErrorTable,
  messages: MessageTemplates,
  first?: RawValidate,
  keys?: { root: KeyLink; shapes: KeyShapes },
): Validator {
  let sites: ReturnType<typeof quickSites> | undefined; // the error locations of this table, on the first invalid document
  // The context of a call without options, reused: the generated code is synchronous and calls nothing
  // that validates again, so no two calls share it at once; its budget is set afresh before every run.
  const plainBounded = { $errorBudget: 0 };
  const check = (data: unknown, context: ValidateOptions, maxErrors: number): ValidationResult => {
    if (first?.call(context, data)) return VALID;
    const budget = errorBudget(maxErrors);
    let bounded: ValidateContext;
    if (budget === Infinity) bounded = context;
    else if (context === DEFAULT_OPTIONS) bounded = ((plainBounded.$errorBudget = budget), plainBounded);
    else bounded = { ...context, $errorBudget: budget };
    if (raw.call(bounded, data)) return VALID;
    const errors = raw.errors ?? [];
    const quick = quickIssues(errors, data, (sites ??= quickSites(table, messages)), table, maxErrors);
    if (quick !== undefined) return { valid: false, errors: quick };
    const { built, counted } = splitAtBudget(errors);
    return { valid: false, errors: withCounted(mapErrors(built, data, table, messages, maxErrors), counted) };
  };
  return (data: unknown, options?: ValidateOptions): ValidationResult => {
    const context = options ?? DEFAULT_OPTIONS;
    const maxErrors = context.maxErrors ?? DEFAULT_MAX_ERRORS;
    if (!(maxErrors >= 1)) throw new RangeError("maxErrors must be at least 1");
    const result = check(data, context, maxErrors);
    if (context.unknownKeys !== "report" || keys === undefined) return result;
    const unknown = unknownKeyIssues(data, keys.root, keys.shapes, messages);
    if (!unknown.length) return result;
    // The unknown keys come after the schema's issues, within the same bound: past it they are counted.
    if (!result.valid) {
      const counted = countedBeyondCut(result.errors);
      if (counted > 0) return { valid: false, errors: [...result.errors.slice(0, -1), tooManyErrors(counted + unknown.length)] };
    }
    const errors = [...(result.valid ? [] : result.errors), ...unknown];
    if (errors.length <= maxErrors) return { valid: false, errors };
    // As mapErrors cuts: maxErrors issues listed, then one item counting the rest.
    return { valid: false, errors: [...errors.slice(0, maxErrors), tooManyErrors(errors.length - maxErrors)] };
  };
}
