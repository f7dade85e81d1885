// Diagnostics: every mistake in the spec is one of the codes below, always with a source position.
// The catalog is the one place the words live: each code has a name and templates for what was found
// and what was expected, filled from named parameters ({name}). The README lists the codes.
//
//   spec/rules.yaml:11:1: error VS101: found invalid YAML (...); expected well-formed YAML

export interface SourcePos {
  readonly file: string; // relative to the spec directory's parent, e.g. "spec/rules.yaml"
  readonly line: number; // 1-based
  readonly col: number; // 1-based
}

interface Entry {
  /** A short stable name, e.g. "unknown-rule". */
  readonly name: string;
  readonly found: string;
  readonly expected: string;
}

/**
 * VS1xx: reading the files; VS2xx: the meta-schema (spec/meta/spec.schema.yaml); VS3xx: a name that
 * refers to nothing; VS4xx: facts that contradict each other.
 */
export const CATALOG = {
  VS101: { name: "yaml-syntax", found: "invalid YAML ({reason})", expected: "well-formed YAML" },
  VS102: { name: "missing-spec-file", found: "no such file", expected: "the spec file {file}" },
  VS103: { name: "yaml-alias-bomb", found: "aliases that expand past {limit} references (an alias bomb)", expected: "YAML without excessive aliases" },

  VS201: { name: "unexpected-spec-file", found: "a spec file named {name}", expected: "one of the files {files}" },
  VS202: { name: "unknown-key", found: "an unknown key `{key}`", expected: "{allowed}" },
  VS203: { name: "missing-key", found: "no key `{key}`", expected: "a key `{key}`" },
  VS204: { name: "invalid-key", found: "the key {key}", expected: "a valid key" },
  VS205: { name: "invalid-value", found: "{value}", expected: "{expected}" },

  VS301: { name: "unknown-country", found: "the country {value}", expected: "an ISO 3166-1 alpha-3 code of iso3166Alpha3" },
  VS302: { name: "unknown-message", found: "the message {value}", expected: "a message of errors.yaml (observed or verispec): {choices}" },
  VS303: { name: "unknown-rule", found: "the rule {value}", expected: "a rule of rules.yaml: {choices}" },
  VS304: {
    name: "unknown-shape",
    found: "the shape {value}",
    expected: "a shape defined under `shapes` in stakeholders.yaml, older.yaml, webhooks.yaml or v5.yaml",
  },
  VS305: { name: "unknown-field-set", found: "the field set {value}", expected: "a field set of fieldsets.yaml: {choices}" },
  VS306: { name: "unknown-status", found: "the status {value}", expected: "{allowed}a verification status: {choices}" },
  VS307: { name: "unknown-outcome", found: "the outcome {value}", expected: "an outcome of `outcomes`: {choices}" },
  VS308: { name: "unknown-stakeholder-type", found: "the stakeholder type {value}", expected: "a stakeholder type of `types`: {choices}" },
  VS309: { name: "unknown-country-group", found: "the country group {value}", expected: "{allowed}a group of countries.yaml: {choices}" },
  VS310: { name: "unknown-role-set", found: "the role set {value}", expected: "a role set of stakeholders.yaml: {choices}" },
  VS311: { name: "unknown-error-type", found: "the error type {value}", expected: "an error type of errors.yaml: {choices}" },
  VS312: { name: "unknown-limit", found: "the limit {value}", expected: "a limit of limits.yaml{with}" },
  VS313: { name: "unknown-field", found: "the field {value}", expected: "a field of this shape: {choices}" },
  VS314: { name: "unknown-validation-code", found: "the code {value}", expected: "one of the codes {choices}" },
  VS315: { name: "unknown-auth-scheme", found: "{value}", expected: "an auth scheme of `auth`: {choices}" },
  VS316: {
    name: "unknown-signature-version",
    found: "{value}",
    expected: "a signature version of `signatures` that the webhook runtime signs with: {choices}",
  },
  VS317: { name: "unknown-schema", found: "the schema {value}", expected: "a shape{orRequest}" },
  VS318: { name: "unknown-condition", found: "the condition {value}", expected: "a condition of `conditions` in statuses.yaml: {choices}" },
  VS319: { name: "unknown-payload-field", found: "the field {value}", expected: "a field of the current webhook payload: {choices}" },

  VS401: { name: "pattern-placeholder", found: "the placeholder {placeholder}", expected: "{unicodeLetter} or a part of `patternParts` in rules.yaml" },
  VS402: { name: "invalid-pattern", found: "{value}", expected: "a regular expression valid in ECMA-262 with the u flag" },
  VS403: { name: "length-bounds", found: "maxLength {max} below minLength {min}", expected: "maxLength >= minLength" },
  VS404: { name: "duplicate-shape", found: "a second definition of the shape {id}", expected: "one definition (the first is in {first})" },
  VS405: { name: "discriminator-without-oneOf", found: "a discriminator without `oneOf`", expected: "`oneOf` beside `discriminator`" },
  VS406: { name: "empty-condition", found: "a condition with neither `values` nor `equals`", expected: "`values` (a value set) or `equals` (one value)" },
  VS407: { name: "duplicate-entity-kind", found: "a second entity kind {kind}", expected: "a kind not already defined (first in {first})" },
  VS408: { name: "country-in-two-branches", found: "the country {country} in the branches {first} and {second}", expected: "each country in one branch only" },
  VS409: { name: "branch-country-field", found: "a field `country`", expected: "`countries` on the branch (the generator adds `country` from it)" },
  VS410: { name: "field-twice", found: "the field {field} both in the table and in an included field set", expected: "each field once" },
  VS411: { name: "duplicate-schema-id", found: "the id {id} both as an entity request and as a shape", expected: "each schema id once" },
  VS412: { name: "interface-without-kind", found: "the interface {interface} with no entity kind", expected: "an interface that some entity kind declares" },
  VS413: {
    name: "metadata-version-mismatch",
    found: "{value} while the envelope's metadata_version is {envelope}",
    expected: "the same version in both places",
  },
  VS414: { name: "webhook-tolerance", found: "{value}", expected: "the name of a limit of limits.yaml with `ms`" },
  VS415: { name: "path-parameters", found: "path parameters [{declared}] for the path {path}", expected: "exactly the parameters of the path: [{inPath}]" },
  VS416: { name: "client-name-twice", found: "the client name {client} also used by {other}", expected: "a client name used once" },
  VS417: {
    name: "credentials-missing",
    found: "an `auth: body` request without {field}",
    expected: "the credential fields metadata_version, metadata_serviceUid, metadata_secretKey (the client adds them)",
  },
  VS418: {
    name: "no-locking-status",
    found: "no submission status with `locksResubmission: true`",
    expected: "the submission status that locks resubmission (the service's specification, section 3)",
  },
  VS419: { name: "webhook-payload-formats", found: "payloads {found}", expected: "a `v5` and an `older` payload" },
  VS422: { name: "missing-required-name", found: "no `{name}` here", expected: "`{name}`: {why}" },
  VS430: {
    name: "condition-form",
    found: "a condition with {keys}",
    expected: "exactly one of all, any, not, ref, or field with exactly one of equals, notEquals, below, atLeast, present",
  },
  VS431: { name: "duplicate-transition-id", found: "a second transition {value}", expected: "a transition id used once" },
  VS432: { name: "condition-cycle", found: "the condition {value} refers to itself", expected: "conditions without cycles" },
  VS433: { name: "sandbox-needs", found: "no {what} `{name}`", expected: "{what} `{name}`: the sandbox {why}" },
  VS434: {
    name: "prose-disagrees",
    found: "the text {quote} stating {claim}",
    expected: "{truth}, as {source} holds (the data governs: change the text with it, or leave the number out of the text)",
  },
  VS436: {
    name: "lock-status-disagrees",
    found: "the lock transition setting submissionStatus {value}",
    expected: "the submission status with `locksResubmission: true`: {locking}",
  },
  VS435: {
    name: "condition-text-disagrees",
    found: "the condition text {value}",
    expected: "the text of the condition `{ref}` it names in `when`: {text} (or no `condition`: it is taken from there)",
  },
  VS437: {
    name: "presence-unstated",
    found: "an object the service sends without `presence`",
    expected:
      "`presence:` on every object of an answer or a webhook payload (its `required: true` fields are always present; `unknown:` says which presence is not shown)",
  },
  VS438: {
    name: "presence-not-shown-unstated",
    found: "fields whose presence is not shown ({fields}) and no `presence.unknown`",
    expected: "`presence.unknown`: the sentence saying that the service's specification does not show whether they are always present",
  },
  VS439: {
    name: "signature-version-header",
    found: "{found}",
    expected: "one header with a `value` (the version header, the service's specification, section 6.4), of the same name in every signature version",
  },
  VS440: {
    name: "success-statuses",
    found: "{count} success statuses ({statuses})",
    expected: "at most one 2xx response: the sandbox and the mock handlers answer one",
  },
  VS441: {
    name: "signature-digest-header",
    found: "{found}",
    expected:
      "in signature version 2 one header with `digest: hmac-sha256`, in version 1 one with `digest: sha3-256` and one with `digest: keccak-256`, each with the `prefix` before the hex digest (the service's specification, section 6.4)",
  },
  VS442: {
    name: "error-role-twice",
    found: "the role {role} on {type} as well as on {first}",
    expected: "each role on one error type: the runtime looks an error up by its role",
  },
  VS443: {
    name: "sandbox-condition-form",
    found: "the condition {name} in another form",
    expected: "{shape}: the sandbox {why}",
  },
  VS444: {
    name: "discriminator-variant",
    found: "the variant {variant} without a required `{field}` with a `const`",
    expected:
      "every variant of a `oneOf` with `discriminator: {field}` naming itself in `{field}` (`required: true` and a `const`): the validators select the variant by it",
  },
} as const satisfies Record<string, Entry>;

export type DiagnosticCode = keyof typeof CATALOG;

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly pos: SourcePos;
  readonly found: string;
  readonly expected: string;
}

export type Params = Readonly<Record<string, string | number>>;

function fill(template: string, params: Params): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A diagnostic of `code` at `pos`, its words from the catalog. Unused parameters fill as "". */
export function diagnostic(code: DiagnosticCode, pos: SourcePos, params: Params = {}): Diagnostic {
  const entry: Entry = CATALOG[code];
  const names = [...`${entry.found}${entry.expected}`.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const full: Record<string, string | number> = Object.fromEntries(names.map((n) => [n, ""]));
  for (const [k, v] of Object.entries(params)) full[k] = typeof v === "string" ? redactSecrets(v) : v;
  return { code, pos, found: fill(entry.found, full), expected: fill(entry.expected, full) };
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.pos.file}:${d.pos.line}:${d.pos.col}: error ${d.code}: found ${d.found}; expected ${d.expected}`;
}

/** A broken spec: one or more diagnostics. Printed without a stack; generation writes nothing. */
export class SpecError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join("\n"));
    this.name = "SpecError";
    this.diagnostics = diagnostics;
  }
}

/** A user mistake outside the spec (bad CLI call, unreadable file): one clear line, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Text safe to print on a terminal: control characters (C0, DEL, C1) and bidirectional overrides
 * become \xNN or \u{NNNN}, so quoted input cannot move the cursor, recolour or reorder the output.
 */
export function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

/** A file-system failure (Node's error with `code` and `path`) as one line: what failed and where. */
export function describeFsError(err: unknown): string | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!(e instanceof Error) || typeof e.code !== "string" || !/^E[A-Z]+$/.test(e.code) || typeof e.path !== "string") return undefined;
  const what = FS_CODES[e.code] ?? `cannot ${e.syscall ?? "access"} (${e.code})`;
  return `${what}: ${escapeControl(e.path)}`;
}

const FS_CODES: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "a path component is a file, not a directory",
  EISDIR: "a directory where a file was expected",
  ELOOP: "symbolic link loop",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on the device",
  EROFS: "read-only file system",
  EEXIST: "already exists",
  ENOTEMPTY: "directory not empty",
  EBUSY: "busy",
  EMFILE: "too many open files",
};

/** `NAME=value` or `name: value` where the name says it holds a secret. */
const SECRET_ASSIGNMENT =
  /((?:[A-Za-z0-9_.-]*?)(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|private[_-]?key|auth|credential|session|cookie)[A-Za-z0-9_.-]*["']?\s*[=:]\s*)("[^"]*"?|'[^']*'?|[^\s"',;&\\]+)/gi;
/** Long runs that look like keys or tokens: letters and digits mixed, 24 characters or more. */
const TOKEN_LIKE = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const looksRandom = (run: string) => /[a-z]/.test(run) && /[A-Z]/.test(run) && /\d/.test(run);

/**
 * Text of a file quoted in a diagnostic, with whatever looks like a secret replaced by `[redacted]`: the
 * value of an assignment whose name says secret (`CI_TOKEN=...`, `_authToken=...`, `password: ...`) and
 * any long mixed run of letters and digits (an npm or GitHub token, a key).
 */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_ASSIGNMENT, (_, name: string) => `${name}[redacted]`).replace(TOKEN_LIKE, (run) => (looksRandom(run) ? "[redacted]" : run));
}

/** Short, secret-redacted text for a YAML value in a message: `"abc"`, `42`, `a mapping`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  const text = redactSecrets(JSON.stringify(value));
  return text.length > 60 ? `${text.slice(0, 57)}..."` : text;
}

/** Names as a list in a message: `a`, `b`, `c`. */
export const nameList = (names: Iterable<string>): string => [...names].map((n) => `\`${n}\``).join(", ");
