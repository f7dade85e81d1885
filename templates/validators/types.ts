// The shapes shared by the generated validators and their runtime (the service's specification, section 7).

/** One item of the service's 422 `error.details`: `{ message, code, path }` (the service's specification, section 7). */
export interface ValidationIssue {
  readonly message: string;
  readonly code: string;
  /** Property names and array indices (as numbers) from the body root. */
  readonly path: readonly (string | number)[];
}

export type ValidationResult = { readonly valid: true } | { readonly valid: false; readonly errors: readonly ValidationIssue[] };

export interface ValidateOptions {
  /**
   * Strict mode: also check the ABN check digits (ATO weighted modulus 89). Off by default, because
   * the service checks the format only (exactly 11 digits; the service's specification, section 7, 8).
   */
  readonly abnChecksum?: boolean;
  /**
   * Keys the service's tables do not list, in request bodies whose objects accept them (v5): the
   * service accepts and ignores them, and so do the validators by default (`"accept"`). `"report"`
   * flags them as `unrecognized_keys` issues, to catch a misspelt key (`identifers`).
   */
  readonly unknownKeys?: "accept" | "report";
  /**
   * At most this many issues are listed (default 100); past it, one last item
   * `{ code: "too_many_errors", message: "... and N more errors", path: [] }` says how many more.
   * `Infinity` lists all. Bounds the work and memory a hostile document can cause.
   */
  readonly maxErrors?: number;
}

/** How to reach the request objects below a schema, for `unknownKeys: "report"`. */
export type KeyLink =
  | { readonly shape: string }
  | { readonly items: KeyLink }
  | { readonly select: { readonly field: string; readonly then: string; readonly else: string } };

/** The declared keys of each request object (`null`: its key list is open) and links to its children. */
export type KeyShapes = Readonly<Record<string, { readonly keys: readonly string[] | null; readonly props: Readonly<Record<string, KeyLink>> }>>;

export type Validator = (data: unknown, options?: ValidateOptions) => ValidationResult;

/** An error object as Ajv's generated code reports it (`messages: false`). */
export interface AjvError {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** Where the generated code knows it: instancePath is `base + at` (`at` a fixed string). */
  readonly base?: string;
  readonly at?: string;
  /**
   * The error's number in the generated code (generator: compactErrors), unique in its module: errors with one
   * number differ by their base alone. Null where the params come from the document.
   */
  readonly row?: number | null;
}

/**
 * The keyword of the one shared error object a generated validator reports once its error budget is spent
 * (`ValidateContext.$errorBudget`): past it, errors are counted (by this placeholder, so Ajv's own
 * bookkeeping of its errors array stays as it is) but not built.
 */
export const OVER_BUDGET = "$overBudget";

/** The options as the generated code sees them (`this`): the caller's, and the all-errors run's budget. */
export interface ValidateContext extends ValidateOptions {
  /** Error objects still to build; decremented by each one (absent: no bound). */
  $errorBudget?: number;
}

/** An Ajv standalone validate function; `this` carries the options (Ajv `passContext`). */
export interface RawValidate {
  (this: ValidateOptions | undefined, data: unknown): boolean;
  errors?: readonly AjvError[] | null;
}

export interface Message {
  readonly code: string;
  readonly message: string;
}

/** What the generator knows about one failing keyword location (keyed by Ajv's schemaPath). */
export interface KeywordEntry {
  /** The exact code and message (from `x-verispec-errors` or the spec's own wording). */
  readonly override?: Message;
  /** `required`: the expected type of each property, as Zod names it. */
  readonly expected?: Readonly<Record<string, string>>;
  /** `required`: a requirement on a nested key reports that key (the service's specification, section 7, `addresses, registeredAddress`). */
  readonly nested?: Readonly<Record<string, readonly string[]>>;
  /** `discriminator`: the tag values of the union. */
  readonly options?: readonly string[];
}

export type ErrorTable = Readonly<Record<string, KeywordEntry>>;

/** Message templates by JSON Schema keyword (spec/errors.yaml `validationMessages.defaults`). */
export type MessageTemplates = Readonly<Record<string, Message>>;
