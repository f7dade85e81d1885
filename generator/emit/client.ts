// Emits generated/client.ts (the typed wrapper over the hand-written core in templates/client/) and
// generated/index.ts (the package root). Every spec fact the client needs — paths, methods, auth,
// schema ids, metadata_version, error statuses — comes from the model here, none is written by hand.
import type { Endpoint, Model } from "../model/types.js";
import type { EmitContext } from "../context.js";
import { BANNER, type OutputFile } from "./output.js";
import { jsdoc, lit } from "./print.js";
import { bodyTypeName } from "./names.js";

const doc = (lines: readonly (string | undefined)[], indent: string) => jsdoc(lines, indent, { block: true });

/** Key of an endpoint in the `operations` table: the client name without dots ("v5.getVerification" -> "v5_getVerification"). */
const opKey = (e: Endpoint) => e.client.replace(/\./g, "_");

/** The TypeScript parameter list and the core call of one method. */
function method(e: Endpoint, model: Model): { params: string; names: string; call: string; result: string } {
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
    input.push("body: asBody(body)");
  }
  const optionsType = e.path === null ? "RequestOptions & { path: string }" : "RequestOptions";
  params.push(e.path === null ? `opts: ${optionsType}` : `opts?: ${optionsType}`);
  const response = e.responses["200"];
  return { params: params.join(", "), names: names.join(", "), call: `core.call(operations.${opKey(e)}, { ${input.join(", ")} })`, result: response ?? "unknown" };
}

function methodDoc(e: Endpoint, indent: string): string {
  return doc(
    [
      `\`${e.method} ${e.path ?? "<path you supply>"}\`: ${e.summary}.`,
      e.description,
      e.unknown ? `Not shown in the service's specification: ${e.unknown}` : undefined,
      e.auth === "body" ? "Credentials (`metadata_version`, `metadata_serviceUid`, `metadata_secretKey`) are added by the client." : "Sent with HTTP Basic `serviceUid:secret`.",
      e.method === "POST" ? "Never retried automatically: a POST is not idempotent." : "Retried on network errors and 5xx (see `retry`).",
      `@see The service's specification, section ${e.source}`,
    ],
    indent,
  );
}

/** The operation table's lines: method, path, auth and schema ids of every endpoint. */
function operationLines(model: Model): string[] {
  return model.endpoints.map((e) => {
    const spec: Record<string, unknown> = { name: e.client, method: e.method, path: e.path, auth: e.auth };
    if (e.request) spec.requestSchema = e.request;
    if (e.responses["200"]) spec.responseSchema = e.responses["200"];
    return `  ${opKey(e)}: { ${Object.entries(spec).map(([k, v]) => `${k}: ${lit(v)}`).join(", ")} },`;
  });
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
      const m = method(e, model);
      const name = e.client.split(".").pop()!;
      return { sig: `${methodDoc(e, indent)}${indent}${name}(${m.params}): Promise<${m.result}>;`, impl: `${indent}${name}: (${m.names}) => ${m.call},` };
    });
    if (group) {
      iface.push(`  /** The current interface (\`${model.versions.pathPrefix}\`), HTTP Basic. */\n  readonly ${group}: {\n${sigs.map((s) => s.sig).join("\n")}\n  };`);
      impl.push(`    ${group}: {\n${sigs.map((s) => `  ${s.impl}`).join("\n")}\n    },`);
    } else {
      iface.push(...sigs.map((s) => s.sig));
      impl.push(...sigs.map((s) => `  ${s.impl}`));
    }
  }
  return { iface, impl };
}

export function clientText(model: Model): string {
  const ops = operationLines(model);
  const byStatus = [...model.errorTypes].sort((a, b) => a.httpStatus - b.httpStatus).map((t) => `    ${t.httpStatus}: ${lit(t.type)},`);
  const { iface, impl } = methodLines(model);

  return `// ${BANNER}
// The typed client: the operation table and constants come from spec/ (the service's specification, sections 4, 5, 7, 9); the logic
// (credentials, errors, timeouts, retries, validation) is the hand-written core in runtime/client/.
import { createClientCore, type ClientOptions, type OperationSpec, type SpecConstants, type Validate } from "./runtime/client/index.js";
import { credentialsFrom, processEnvironment, type Environment } from "./runtime/client/env.js";
import type { v4, v5 } from "./types.js";

/** Every endpoint: method, path (null: not shown in the service's specification, the caller supplies it), auth and schema ids. */
export const operations = {
${ops.join("\n")}
} as const satisfies Record<string, OperationSpec>;

/** Spec facts the core needs: \`metadata_version\` (the service's specification, sections 2.1, 9) and the error type of each HTTP status (the service's specification, section 7). */
export const specConstants: SpecConstants = {
  olderVersion: ${lit(model.versions.metadataVersion)},
  errorTypesByStatus: {
${byStatus.join("\n")}
  },
};

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call; the caller's abort rejects with the caller's AbortError. */
  signal?: AbortSignal;
  /** Overrides the client's \`timeoutMs\` for this call (per attempt). */
  timeoutMs?: number;
}

/** The client \`createClient\` returns; one method per endpoint of the spec. */
export interface VerispecClient {
${iface.join("\n")}
}

// A dynamic import: bundlers split the validators into their own chunk, loaded only with
// \`validate\` or \`validateResponses\`, so they stay out of the client bundle.
const loadValidate = (): Promise<Validate> => import("./validators/index.js").then((m) => m.validate as Validate);

// Body types are interfaces (no index signature); the core takes any JSON object.
const asBody = (body: object) => body as Record<string, unknown>;

/**
 * Creates the client. \`baseUrl\` is the environment's address (test or production; not shown in
 * the service's specification). Errors are typed: ValidationError (422, or \`validate: true\` before sending),
 * TooManyAttemptsError (474), SubmissionConflictError (475: wait for the first outcome, do not
 * resend), HttpError (any other non-2xx), TimeoutError, NetworkError, ResponseValidationError
 * (\`validateResponses: true\`), all \`instanceof VerispecError\`.
 */
export function createClient(options: ClientOptions): VerispecClient {
  const core = createClientCore(options, specConstants, loadValidate);
  return {
${impl.join("\n")}
  };
}

/** Options of \`createClientFromEnv\`: those of \`createClient\` but the credentials, and where to read them. */
export type ClientFromEnvOptions = Omit<ClientOptions, "serviceUid" | "secret"> & {
  /** The environment to read; default \`process.env\` where there is one (Node, Deno, Bun), else none. */
  env?: Environment;
};

/**
 * \`createClient\` with \`serviceUid\` and \`secret\` read from the variables \`verispec sandbox\` reads its
 * account from: VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET. An unset or empty variable is a
 * TypeError of one line naming it (never a value).
 */
export function createClientFromEnv(options: ClientFromEnvOptions): VerispecClient {
  const { env, ...rest } = options;
  return createClient({ ...rest, ...credentialsFrom(env ?? processEnvironment()) });
}
`;
}

export function indexText(): string {
  return `// ${BANNER}
// The package root (\`verispec\`): the client, its error classes and every type.
export { createClient, createClientFromEnv, operations, specConstants, type ClientFromEnvOptions, type RequestOptions, type VerispecClient } from "./client.js";
// Every error class the client can throw: the runtime's errors module holds nothing else.
export * from "./runtime/client/errors.js";
export type { ClientOptions, RetryOptions, ServiceIssue } from "./runtime/client/index.js";
export type * from "./types.js";
`;
}

export function emitClient(model: Model, _ctx: EmitContext): OutputFile[] {
  return [
    { path: "client.ts", contents: clientText(model) },
    { path: "index.ts", contents: indexText() },
  ];
}
