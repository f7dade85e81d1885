// Wraps an Ajv standalone function into the service-shaped validator (the service's specification, section 7).
import { countedBeyondCut, mapErrors, tooManyErrors } from "./map-errors.js";
import type { ErrorTable, KeyLink, KeyShapes, MessageTemplates, RawValidate, ValidateOptions, ValidationResult, Validator } from "./types.js";
import { unknownKeyIssues } from "./unknown-keys.js";

const VALID: ValidationResult = Object.freeze({ valid: true });
const DEFAULT_OPTIONS: ValidateOptions = Object.freeze({});
/** Issues listed before the "... and N more errors" item (see `ValidateOptions.maxErrors`). */
export const DEFAULT_MAX_ERRORS = 100;

/**
 * `raw` is the all-errors function. `first`, when given, is the first-error variant tried first: on a
 * valid document it answers alone; only an invalid one is re-run to collect every error.
 */
export function createValidator(raw: RawValidate, table: ErrorTable, messages: MessageTemplates, first?: RawValidate, keys?: { root: KeyLink; shapes: KeyShapes }): Validator {
  const check = (data: unknown, context: ValidateOptions, maxErrors: number): ValidationResult => {
    if (first !== undefined && first.call(context, data)) return VALID;
    if (raw.call(context, data)) return VALID;
    return { valid: false, errors: mapErrors(raw.errors ?? [], data, table, messages, maxErrors) };
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

