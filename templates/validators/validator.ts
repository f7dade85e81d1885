// Wraps an Ajv standalone function into the service-shaped validator (the service's specification, section 7).
import { mapErrors } from "./map-errors.js";
import type { ErrorTable, KeyLink, KeyShapes, MessageTemplates, RawValidate, ValidateOptions, ValidationResult, Validator } from "./types.js";
import { unknownKeyIssues } from "./unknown-keys.js";

const VALID: ValidationResult = Object.freeze({ valid: true });
const DEFAULT_OPTIONS: ValidateOptions = Object.freeze({});

/**
 * `raw` is the all-errors function. `first`, when given, is the first-error variant tried first: on a
 * valid document it answers alone; only an invalid one is re-run to collect every error.
 */
export function createValidator(raw: RawValidate, table: ErrorTable, messages: MessageTemplates, first?: RawValidate, keys?: { root: KeyLink; shapes: KeyShapes }): Validator {
  const check = (data: unknown, context: ValidateOptions): ValidationResult => {
    if (first !== undefined && first.call(context, data)) return VALID;
    if (raw.call(context, data)) return VALID;
    return { valid: false, errors: mapErrors(raw.errors ?? [], data, table, messages) };
  };
  return (data: unknown, options?: ValidateOptions): ValidationResult => {
    const context = options ?? DEFAULT_OPTIONS;
    const result = check(data, context);
    if (context.unknownKeys !== "report" || keys === undefined) return result;
    const unknown = unknownKeyIssues(data, keys.root, keys.shapes, messages);
    if (!unknown.length) return result;
    return { valid: false, errors: [...(result.valid ? [] : result.errors), ...unknown] };
  };
}
