// Emits generated/client.js with client.d.ts (the typed wrapper over the hand-written core in templates/client/)
// and generated/index.js with index.d.ts (the entry a project imports). Every spec fact the client needs — paths, methods, auth,
// schema ids, metadata_version, error statuses — comes from the model here, none is written by hand.
import type { Endpoint, Model } from "../model/types.js";
import type { EmitContext } from "../context.js";
import type { OutputFile } from "./output.js";
import { constType, jsdoc, lit, moduleFiles } from "./print.js";
import { bodyTypeName } from "./names.js";

const doc = (lines: readonly (string | undefined)[], indent: string) => jsdoc(lines, indent, { block: true });

/** Key of an endpoint in the `operations` table: the client name without dots ("v5.getVerification" -> "v5_getVerification"). */
const opKey = (e: Endpoint) => e.client.replace(/\./g, "_");

/** The TypeScript parameter list, the JavaScript argument names and the core call of one method. */
function method(e: Endpoint): { params: string; names: string; call: string; result: string } {
  const params: string[] = [];
  const names = [...Object.keys(e.pathParams), ...(e.request ? ["body"] : []), "opts"];
  const input: string[] = ["...opts"];
  for (const name of Object.keys(e.pathParams)) {
    params.push(`${name}: string`);
    input.push(`pathParams: { ${name} }`);
  }
  if (e.request) {
    // The older interface takes the body without credentials; the core adds them (the service's specification, section 5).
    const ns = e.request.split(".").slice(0, -1).join(".");
    params.push(`body: ${e.auth === "body" ? `${ns}.${bodyTypeName(e.request)}` : e.request}`);
    input.push("body");
  }
  const optionsType = e.path === null ? "RequestOptions & { path: string }" : "RequestOptions";
  params.push(e.path === null ? `opts: ${optionsType}` : `opts?: ${optionsType}`);
  const response = e.responses["200"];
  return {
    params: params.join(", "),
    names: names.join(", "),
    call: `core.call(operations.${opKey(e)}, { ${input.join(", ")} })`,
    result: response ?? "unknown",
  };
}

function methodDoc(e: Endpoint, indent: string): string {
  return doc(
    [
      `\`${e.method} ${e.path ?? "<path you supply>"}\`: ${e.summary}.`,
      e.description,
      e.unknown ? `Not shown in the service's specification: ${e.unknown}` : undefined,
      e.auth === "body"
        ? "Credentials (`metadata_version`, `metadata_serviceUid`, `metadata_secretKey`) are added by the client."
        : "Sent with HTTP Basic `serviceUid:secret`.",
      e.method === "POST" ? "Never retried automatically: a POST is not idempotent." : "Retried on network errors and 5xx (see `retry`).",
      `@see The service's specification, section ${e.source}`,
    ],
    indent,
  );
}

/** The operation table: method, path, auth and schema ids of every endpoint. */
function operationTable(model: Model): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    model.endpoints.map((e) => {
      const spec: Record<string, unknown> = { name: e.client, method: e.method, path: e.path, auth: e.auth };
      if (e.request) spec.requestSchema = e.request;
      if (e.responses["200"]) spec.responseSchema = e.responses["200"];
      return [opKey(e), spec];
    }),
  );
}

/** The client's methods, grouped by the client name's prefix ("v5.createVerification" -> client.v5.createVerification): interface and implementation lines. */
function methodLines(model: Model): { iface: string[]; impl: string[] } {
  const groups = new Map<string, Endpoint[]>();
  for (const e of model.endpoints) {
    const parts = e.client.split(".");
    // At most one group: the meta-schema's pattern for `client`.
    const group = parts.length === 2 ? parts[0]! : "";
    groups.set(group, [...(groups.get(group) ?? []), e]);
  }
  const iface: string[] = [];
  const impl: string[] = [];
  for (const [group, endpoints] of groups) {
    const indent = group ? "    " : "  ";
    const sigs = endpoints.map((e) => {
      const m = method(e);
      const name = e.client.split(".").pop()!;
      return { sig: `${methodDoc(e, indent)}${indent}${name}(${m.params}): Promise<${m.result}>;`, impl: `${indent}${name}: (${m.names}) => ${m.call},` };
    });
    if (group) {
      iface.push(
        `  /** The current interface (\`${model.versions.pathPrefix}\`), HTTP Basic. */\n  readonly ${group}: {\n${sigs.map((s) => s.sig).join("\n")}\n  };`,
      );
      impl.push(`    ${group}: {\n${sigs.map((s) => `  ${s.impl}`).join("\n")}\n    },`);
    } else {
      iface.push(...sigs.map((s) => s.sig));
      impl.push(...sigs.map((s) => `  ${s.impl}`));
    }
  }
  return { iface, impl };
}

/** createClient's JSDoc: the HTTP status of each typed error is the spec's (errors.yaml, by role). */
function clientDoc(model: Model): string {
  const status = (role: string) => model.errorTypes.find((e) => e.role === role)?.httpStatus ?? "not in this spec";
  return `/**
 * Creates the client. \`baseUrl\` is the environment's address (test or production; not shown in
 * the service's specification). Errors are typed: ValidationError (${status("validation")}, or \`validate: true\` before sending),
 * TooManyAttemptsError (${status("attemptsExhausted")}), SubmissionConflictError (${status("resubmissionInFlight")}: wait for the first outcome, do not
 * resend), HttpError (any other non-2xx), TimeoutError, NetworkError, ResponseValidationError
 * (\`validateResponses: true\`), all \`instanceof VerispecError\`.
 */`;
}

const REQUEST_OPTIONS = `/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call; the caller's abort rejects with the caller's AbortError. */
  signal?: AbortSignal;
  /** Overrides the client's \`timeoutMs\` for this call (per attempt). */
  timeoutMs?: number;
}`;

// The options type of createClientFromEnv, printed into client.d.ts.
const FROM_ENV_OPTIONS = `/** Options of \`createClientFromEnv\`: those of \`createClient\` but the credentials, and where to read them. */
export type ClientFromEnvOptions = Omit<ClientOptions, "serviceUid" | "secret"> & {
  /** The environment to read; default \`process.env\` where there is one (Node, Deno, Bun), else none. */
  env?: Environment;
};`;

const FROM_ENV_DOC = `/**
 * \`createClient\` with \`serviceUid\` and \`secret\` read from the variables \`verispec sandbox\` reads its
 * account from: VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET. An unset or empty variable is a
 * TypeError of one line naming it (never a value).
 */`;

/** The client's class of each error role (errors.yaml `role`); an error type of another role, or none, is an HttpError. */
const CLASS_OF_ROLE: Readonly<Record<string, string>> = {
  validation: "ValidationError",
  attemptsExhausted: "TooManyAttemptsError",
  resubmissionInFlight: "SubmissionConflictError",
};

/** [error type, class name] of every error type whose role has a class of its own, in the spec's order. */
export function errorClassTable(model: Model): [type: string, className: string][] {
  return model.errorTypes.flatMap((e) => (e.role && Object.hasOwn(CLASS_OF_ROLE, e.role) ? [[e.type, CLASS_OF_ROLE[e.role]!] as [string, string]] : []));
}

/** The spec constants as JavaScript: JSON, and the error class table as a Map (an unknown type such as "constructor" finds nothing). */
function specConstantsJs(model: Model, constants: object): string {
  const rows = errorClassTable(model).map(([type, cls]) => `    [${JSON.stringify(type)}, ${cls}]`);
  return JSON.stringify(constants, null, 2).replace(/\n}$/, `,\n  "errorClasses": new Map([\n${rows.join(",\n")}\n  ])\n}`);
}

/** generated/client.js and client.d.ts: the operation table and constants from the spec, bound to the hand-written core. */
export function clientFiles(model: Model): OutputFile[] {
  const table = operationTable(model);
  const constants = {
    olderVersion: model.versions.metadataVersion,
    mediaType: model.bodyMediaType,
    errorTypesByStatus: Object.fromEntries([...model.errorTypes].sort((a, b) => a.httpStatus - b.httpStatus).map((t) => [String(t.httpStatus), t.type])),
  };
  const { iface, impl } = methodLines(model);
  return moduleFiles(
    "client",
    {
      js: [
        "// The typed client: the operation table and constants come from spec/ (the service's specification, sections 4, 5, 7, 9); the logic",
        "// (credentials, errors, timeouts, retries, validation) is the hand-written core in runtime/client/.",
        `import { createClientCore, ${[...new Set(errorClassTable(model).map(([, cls]) => cls))].sort().join(", ")} } from "./runtime/client/index.js";`,
        `import { credentialsFrom, processEnvironment } from "./runtime/client/env.js";`,
      ],
      dts: [
        "// The typed client: one method per endpoint of the spec, its request and response types from types.d.ts.",
        `import type { ClientOptions, SpecConstants } from "./runtime/client/index.js";`,
        `import type { Environment } from "./runtime/client/env.js";`,
        `import type { v4, v5 } from "./types.js";`,
      ],
    },
    [
      {
        doc: ["/** Every endpoint: method, path (null: not shown in the service's specification, the caller supplies it), auth and schema ids. */"],
        js: `export const operations = ${JSON.stringify(table, null, 2)};`,
        dts: `export declare const operations: ${constType(table)};`,
      },
      {
        doc: [
          "/** Spec facts the core needs: `metadata_version` (the service's specification, sections 2.1, 9), the bodies' media type (section 4), the error type of each HTTP status (the service's specification, section 7) and the class the client throws for each error type (errors.yaml `role`; any other is an HttpError). */",
        ],
        js: `export const specConstants = ${specConstantsJs(model, constants)};`,
        dts: "export declare const specConstants: SpecConstants;",
      },
      {
        js: "",
        dts: `\n${REQUEST_OPTIONS}\n\n/** The client \`createClient\` returns; one method per endpoint of the spec. */\nexport interface VerispecClient {\n${iface.join("\n")}\n}`,
      },
      {
        js: `// A dynamic import: bundlers split the validators into their own chunk, loaded only with
// \`validate\` or \`validateResponses\`, so they stay out of the client bundle.
const loadValidate = () => import("./validators/index.js").then((m) => m.validate);

${clientDoc(model)}
export function createClient(options) {
  const core = createClientCore(options, specConstants, loadValidate);
  return {
${impl.join("\n")}
  };
}`,
        dts: `\n${clientDoc(model)}\nexport declare function createClient(options: ClientOptions): VerispecClient;`,
      },
      {
        js: `\n${FROM_ENV_DOC}\nexport function createClientFromEnv(options) {\n  const { env, ...rest } = options;\n  return createClient({ ...rest, ...credentialsFrom(env ?? processEnvironment()) });\n}`,
        dts: `\n${FROM_ENV_OPTIONS}\n\n${FROM_ENV_DOC}\nexport declare function createClientFromEnv(options: ClientFromEnvOptions): VerispecClient;`,
      },
    ],
  );
}

/** generated/index.js and index.d.ts, the entry a project imports: the client, its errors, every type, and which spec it all came from. */
export function indexFiles(model: Model): OutputFile[] {
  const version = model.versions.specVersion ?? null;
  return moduleFiles(
    "index",
    {
      js: [
        "// The entry: the client, its error classes, and which spec they were generated from.",
        `export { createClient, createClientFromEnv, operations, specConstants } from "./client.js";`,
        "// Every error class the client can throw: the runtime's errors module holds nothing else.",
        `export * from "./runtime/client/errors.js";`,
      ],
      dts: [
        "// The entry: the client, its error classes, every type, and which spec they were generated from.",
        `export { createClient, createClientFromEnv, operations, specConstants, type ClientFromEnvOptions, type RequestOptions, type VerispecClient } from "./client.js";`,
        `export * from "./runtime/client/errors.js";`,
        `export type { ClientOptions, RetryOptions, ServiceIssue } from "./runtime/client/index.js";`,
        `export type * from "./types.js";`,
      ],
    },
    [
      {
        doc: ["/** The spec's own version (spec/versions.yaml `specVersion`; null when the spec sets none). */"],
        js: `export const specVersion = ${lit(version)};`,
        dts: `export declare const specVersion: ${lit(version)};`,
      },
      {
        doc: [
          "/** The content hash of the spec files this was generated from: `verispec check`, the sandbox's start line and `verispec conform` print the same. */",
        ],
        js: `export const specHash = ${lit(model.specHash)};`,
        dts: `export declare const specHash: ${lit(model.specHash)};`,
      },
    ],
  );
}

export function emitClient(model: Model, _ctx: EmitContext): OutputFile[] {
  return [...clientFiles(model), ...indexFiles(model)];
}
