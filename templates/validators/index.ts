// The validators' runtime: error mapping and the wrapper around Ajv's generated functions.
export { abnChecksum } from "./abn.js";
export { mapErrors } from "./map-errors.js";
export { fill, parsedType, stringifyPrimitive } from "./messages.js";
export { applicators, resolvePath, toIssue } from "./to-issue.js";
export type {
  AjvError,
  ErrorTable,
  KeyLink,
  KeyShapes,
  KeywordEntry,
  Message,
  MessageTemplates,
  RawValidate,
  ValidateOptions,
  ValidationIssue,
  ValidationResult,
  Validator,
} from "./types.js";
export { createValidator } from "./validator.js";
export { unknownKeyIssues } from "./unknown-keys.js";
