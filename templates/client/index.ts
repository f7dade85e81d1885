// Runtime of the generated client; copied verbatim to generated/runtime/client/.
export { createClientCore } from "./core.js";
export { CREDENTIAL_VARIABLES, credentialsFrom, processEnvironment, type Environment } from "./env.js";
export {
  HttpError,
  NetworkError,
  RedirectError,
  ResponseFormatError,
  ResponseTooLargeError,
  ResponseValidationError,
  SubmissionConflictError,
  TimeoutError,
  TooManyAttemptsError,
  ValidationError,
  VerispecError,
} from "./errors.js";
export type {
  CallInput,
  ClientCore,
  ClientOptions,
  OperationSpec,
  RetryOptions,
  ServiceIssue,
  SpecConstants,
  Validate,
} from "./types.js";
