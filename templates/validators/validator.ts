// Wraps an Ajv standalone function into the service-shaped validator (seed: 7).
import { mapErrors } from "./map-errors.js";
import type { ErrorTable, MessageTemplates, RawValidate, ValidateOptions, ValidationResult, Validator } from "./types.js";

const VALID: ValidationResult = Object.freeze({ valid: true });
const DEFAULT_OPTIONS: ValidateOptions = Object.freeze({});
/** Issues listed before the "... and N more errors" item (see `ValidateOptions.maxErrors`). */
export const DEFAULT_MAX_ERRORS = 100;

/**
 * `raw` is the all-errors function. `first`, when given, is the first-error variant tried first: on a
 * valid document it answers alone; only an invalid one is re-run to collect every error.
 */
export function createValidator(raw: RawValidate, table: ErrorTable, messages: MessageTemplates, first?: RawValidate): Validator {
  return (data: unknown, options?: ValidateOptions): ValidationResult => {
    const context = options ?? DEFAULT_OPTIONS;
    const maxErrors = context.maxErrors ?? DEFAULT_MAX_ERRORS;
    if (!(maxErrors >= 1)) throw new RangeError("maxErrors must be at least 1");
    if (first !== undefined && first.call(context, data)) return VALID;
    if (raw.call(context, data)) return VALID;
    return { valid: false, errors: mapErrors(raw.errors ?? [], data, table, messages, maxErrors) };
  };
}
