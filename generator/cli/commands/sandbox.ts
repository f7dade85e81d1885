// `verispec sandbox`: parses the call, loads the spec it serves (--spec, else ./spec, else the package's
// own: sandbox-binding.ts), takes the credentials from the environment (or makes test values, printed
// once), starts the sandbox runtime (templates/sandbox, loaded only here together with its database
// driver) and runs until SIGINT/SIGTERM.
import { randomBytes } from "node:crypto";
import { CREDENTIAL_VARIABLES } from "../../../templates/client/env.js";
import type { Db } from "../../../templates/sandbox/store/index.js";
import { UsageError } from "../../diagnostics.js";
import type { CommandCall } from "../command-call.js";
import type { TenantConfig, WrittenVersion } from "./sandbox-tenants.js";
import { requireSpecDir } from "./spec-dir.js";

export interface SandboxArgs {
  readonly host: string;
  readonly port: number;
  readonly db: string;
  readonly webhookUrls: readonly string[];
  /** --signature-version as written (checked against the served spec's signatures once it is loaded); undefined: the spec's v5 payload version. */
  readonly signatureVersion: WrittenVersion | undefined;
  readonly processingMs: number | "manual";
  readonly requestedActionsPath: string | undefined;
  readonly maxBodyBytes: number | undefined;
  readonly deliveryTimeoutMs: number | undefined;
  readonly retryDelaysMs: readonly number[] | undefined;
  readonly debug: boolean;
  readonly resetClock: boolean;
  readonly logFormat: "text" | "json";
  readonly shutdownTimeoutMs: number | undefined;
  readonly retainDays: number | undefined;
  /** --tenants: the tenants file (else VERISPEC_SANDBOX_TENANTS); undefined: the one account of the environment. */
  readonly tenantsFile: string | undefined;
}

const integer = (name: string, text: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return Number(text);
};

/** The parsed call, or a UsageError (exit 2). */
export function parseSandboxArgs(values: CommandCall["values"]): SandboxArgs {
  const s = (k: string) => values[k] as string | undefined;
  const urls = ((values["webhook-url"] as string[] | undefined) ?? []).map((u) => {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      throw new UsageError(`--webhook-url ${JSON.stringify(u)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--webhook-url must be http or https, not ${url.protocol}`);
    return url.href;
  });
  const version = s("signature-version");
  const processing = s("processing-ms");
  const path = s("requested-actions-path");
  if (path !== undefined && !/^\/[A-Za-z0-9._~\-/]*$/.test(path))
    throw new UsageError(`--requested-actions-path must be a path starting with /, not ${JSON.stringify(path)}`);
  const delays = s("retry-delays");
  if (delays !== undefined && !/^\d+(,\d+)*$|^$/.test(delays))
    throw new UsageError(`--retry-delays must be milliseconds separated by commas, not ${JSON.stringify(delays)}`);
  const logFormat = s("log-format") ?? "text";
  if (logFormat !== "text" && logFormat !== "json") throw new UsageError(`--log-format must be text or json, not ${JSON.stringify(logFormat)}`);
  const db = s("db") ?? ".verispec/sandbox";
  if (db === "") throw new UsageError("--db must be a directory, memory or a postgres:// URL");
  return {
    host: s("host") ?? "127.0.0.1",
    port: integer("port", s("port"), 0, 65535) ?? 4010,
    db,
    webhookUrls: urls,
    signatureVersion: version === undefined ? undefined : { value: version, where: "--signature-version" },
    processingMs: processing === "manual" ? "manual" : (integer("processing-ms", processing, 0) ?? 1000),
    requestedActionsPath: path,
    maxBodyBytes: integer("max-body", s("max-body"), 1),
    deliveryTimeoutMs: integer("delivery-timeout-ms", s("delivery-timeout-ms"), 1),
    retryDelaysMs: delays === undefined ? undefined : delays === "" ? [] : delays.split(",").map(Number),
    debug: values.debug === true,
    resetClock: values["reset-clock"] === true,
    logFormat,
    shutdownTimeoutMs: integer("shutdown-timeout-ms", s("shutdown-timeout-ms"), 0),
    retainDays: integer("retain-days", s("retain-days"), 0, 36_500),
    tenantsFile: tenantsOption(s("tenants")),
  };
}

function tenantsOption(value: string | undefined): string | undefined {
  if (value === "") throw new UsageError("--tenants must name a file");
  return value;
}

/** Where a credential comes from: the environment (never printed) or a fresh test value (printed once). */
function credential(env: NodeJS.ProcessEnv, name: string, make: () => string): { value: string; generated: boolean } {
  const given = env[name];
  return given !== undefined && given !== "" ? { value: given, generated: false } : { value: make(), generated: true };
}

/** The log of --log-format: text lines through `stderr`, or JSON lines by pino (a UsageError when it is not installed). */
async function sandboxLogger(format: "text" | "json", stderr: (text: string) => void) {
  const { textLogger, jsonLogger } = await import("../../../templates/sandbox/logging.js");
  if (format === "text") return textLogger(stderr);
  try {
    return await jsonLogger();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") throw new UsageError("--log-format json needs pino: npm install pino");
    throw err;
  }
}

/**
 * The start lines on stdout: plain text, or with --log-format json one JSON object a line (the log's
 * `level`, `time` and `msg`, plus the line's fields), so a log collector parses every line.
 */
function startLines(format: "text" | "json", stdout: (text: string) => void) {
  return (msg: string, fields: Record<string, unknown>) =>
    stdout(
      format === "json" ? `${JSON.stringify({ level: "info", time: new Date().toISOString(), service: "verispec-sandbox", msg, ...fields })}\n` : `${msg}\n`,
    );
}

/** The lines after the start: where it listens, its page, its tenants, and the test values it made up. */
function announce(
  say: ReturnType<typeof startLines>,
  url: string,
  tenants: readonly TenantConfig[] | undefined,
  shown: readonly (readonly [string, { readonly value: string; readonly generated: boolean }])[],
): void {
  say(`verispec sandbox listening on ${url}`, { event: "listening", url });
  say(`verispec sandbox page ${url}/_sandbox (your browser asks for the service UID and secret)`, { event: "page", url: `${url}/_sandbox` });
  if (tenants) say(`tenants: ${tenants.map((t) => t.name).join(", ")}`, { event: "tenants", tenants: tenants.map((t) => t.name) });
  // A shared sandbox (--tenants) makes no test values: its accounts are the file's and the environment's.
  if (!tenants) for (const [name, c] of shown) if (c.generated) say(`test value ${name}=${c.value}`, { event: "testValue", name, value: c.value });
}

/** A variable of the environment, undefined when unset or empty. */
const envValue = (env: NodeJS.ProcessEnv, name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name]);

/** The accounts of a call with a tenants file (--tenants, else VERISPEC_SANDBOX_TENANTS) and the environment's; undefined without a file. */
async function tenantsOfCall(args: SandboxArgs, io: CommandCall["io"]): Promise<TenantConfig[] | undefined> {
  const file = args.tenantsFile ?? envValue(io.env, "VERISPEC_SANDBOX_TENANTS");
  if (file === undefined) return undefined;
  const { combineTenants, readTenantsFile } = await import("./sandbox-tenants.js");
  return combineTenants(
    readTenantsFile(file, io.cwd),
    {
      serviceUid: envValue(io.env, CREDENTIAL_VARIABLES.serviceUid),
      secret: envValue(io.env, CREDENTIAL_VARIABLES.secret),
      signingSecret: envValue(io.env, "VERISPEC_SIGNING_SECRET"),
      webhookUrls: args.webhookUrls,
      signatureVersion: args.signatureVersion,
    },
    file,
  );
}

/**
 * Opens the store (--db) on its own thread while this one loads the spec and the runtime: the database's
 * start is most of the sandbox's (docs/engineering/sandbox-start.md). Its failure is reported where the
 * runtime awaits it (startSandbox), not as an unhandled rejection meanwhile.
 */
function openStoreEarly(db: string, cwd: string): Promise<Db> {
  const opening = import("../../../templates/sandbox/store/index.js").then((m) => m.openStore(db, cwd));
  opening.catch(() => {});
  return opening;
}

/** The spec served, the runtime's modules and the log, and the accounts with their signature versions checked against that spec's. */
async function loadServing(call: CommandCall, args: SandboxArgs, tenants: readonly TenantConfig[] | undefined) {
  const [served, runtime, { choice }, logger, { knownVersion, withVersions }] = await Promise.all([
    import("./sandbox-binding.js").then((m) => m.loadServedSpec(requireSpecDir(call.dirs))),
    import("../../../templates/sandbox/index.js"),
    import("../../../templates/sandbox/binding.js"),
    sandboxLogger(args.logFormat, call.io.stderr),
    import("./sandbox-tenants.js"),
  ]);
  // The versions written are the served spec's to judge (webhooks.yaml signatures), not this file's.
  const { rules, spec } = served.binding;
  const accounts = {
    signatureVersion: args.signatureVersion && knownVersion(args.signatureVersion, rules.signatures),
    tenants: tenants && withVersions(tenants, rules.signatures, spec.payloadSignatureVersions.v5),
  };
  return { served, accounts, startSandbox: runtime.startSandbox, choice, logger };
}

/**
 * The store opening (--db) and what loadServing loads. Both start at once: the database's start is most of the
 * sandbox's. But when a signature version is written, the spec judges it first, so a refused call opens no store.
 * On a failure to load, the store is closed once it has opened, without waiting for it: the error is told now
 * (a Postgres host that does not answer could take minutes), and the process ends when the store is closed.
 */
async function openAndLoad(call: CommandCall, args: SandboxArgs, tenants: readonly TenantConfig[] | undefined) {
  const loading = loadServing(call, args, tenants);
  const written = args.signatureVersion !== undefined || (tenants ?? []).some((t) => t.signatureVersion !== undefined);
  if (written) await loading;
  const opening = openStoreEarly(args.db, call.io.cwd);
  try {
    return { opening, ...(await loading) };
  } catch (err) {
    void import("../../../templates/sandbox/store/index.js").then((m) => m.closeWhenOpen(opening));
    throw err;
  }
}

export async function sandbox(call: CommandCall): Promise<number> {
  const args = parseSandboxArgs(call.values);
  const { io } = call;
  // The tenants file is read and checked before the spec is loaded and anything listens (its signature versions once the spec is).
  const tenants = await tenantsOfCall(args, io);
  const uid = credential(io.env, CREDENTIAL_VARIABLES.serviceUid, () => `sandbox-${randomBytes(4).toString("hex")}`);
  const secret = credential(io.env, CREDENTIAL_VARIABLES.secret, () => randomBytes(18).toString("base64url"));
  const signing = credential(io.env, "VERISPEC_SIGNING_SECRET", () => randomBytes(24).toString("base64url"));
  const { opening, served, accounts, startSandbox, choice, logger } = await openAndLoad(call, args, tenants);
  const spec = served.binding.spec;
  const say = startLines(args.logFormat, io.stdout);
  say(`verispec sandbox serving ${served.specDir} (specVersion ${spec.specVersion ?? "not set"}, specHash ${spec.specHash})`, {
    event: "serving",
    specDir: served.specDir,
    specVersion: spec.specVersion ?? null,
    specHash: spec.specHash,
  });
  let running: Awaited<ReturnType<typeof startSandbox>>;
  try {
    running = await startSandbox({
      opening,
      binding: served.binding,
      host: args.host,
      port: args.port,
      db: args.db,
      cwd: io.cwd,
      webhookUrls: args.webhookUrls,
      signatureVersion: accounts.signatureVersion,
      processingMs: args.processingMs,
      requestedActionsPath: args.requestedActionsPath ?? choice<string>(spec, "followUpPath", "path"),
      maxBodyBytes: args.maxBodyBytes ?? choice<number>(spec, "requestSize", "maxBodyBytes"),
      credentials: { serviceUid: uid.value, secret: secret.value },
      signingSecret: signing.value,
      tenants: accounts.tenants,
      deliveryTimeoutMs: args.deliveryTimeoutMs ?? choice<number>(spec, "retryPolicy", "timeoutMs"),
      retryDelaysMs: args.retryDelaysMs ?? choice<number[]>(spec, "retryPolicy", "delaysMs"),
      log: (line) => io.stderr(`verispec sandbox: ${line}\n`),
      debug: args.debug,
      resetClock: args.resetClock,
      logger,
      shutdownTimeoutMs: args.shutdownTimeoutMs,
      retainDays: args.retainDays,
    });
  } catch (err) {
    throw startFailure(err);
  }
  const unguard = guardUnexpected(io, args.debug);
  const stopped = untilStopped();
  announce(say, running.url, tenants, [
    [CREDENTIAL_VARIABLES.serviceUid, uid],
    [CREDENTIAL_VARIABLES.secret, secret],
    ["VERISPEC_SIGNING_SECRET", signing],
  ]);
  await stopped;
  await running.close();
  unguard();
  return 0;
}

/** The error to throw for startSandbox's failure: a usage error of one line where the cause is known, else the error itself. */
function startFailure(err: unknown): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e.code === "VERISPEC_LISTEN" || e.code === "VERISPEC_CLOCK_RANGE" || e.code === "VERISPEC_TENANTS") return new UsageError(e.message); // index.ts StartError
  if (e.code === "ERR_MODULE_NOT_FOUND" && /pglite|'pg'/.test(e.message)) {
    return new UsageError(`the sandbox's database driver is not installed: npm install --save-dev ${/pglite/.test(e.message) ? "@electric-sql/pglite" : "pg"}`);
  }
  if (e.code === "ECONNREFUSED" || e.code === "ENOTFOUND" || e.code === "28P01" || e.code === "3D000")
    return new UsageError(`cannot open the database: ${e.code}`);
  if (e.code === "VERISPEC_DB_OPEN") return new UsageError(e.message); // store/pglite.ts OPEN_FAILED
  return err;
}

/** The last guard: an error no request handler caught is one line (its stack with --debug); the sandbox keeps serving. */
function guardUnexpected(io: CommandCall["io"], debug: boolean): () => void {
  const unexpected = (err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    io.stderr(`verispec sandbox: internal error: ${debug ? (e.stack ?? e.message) : `${e.name}: ${e.message.split("\n")[0]}`}\n`);
  };
  process.on("unhandledRejection", unexpected);
  process.on("uncaughtException", unexpected);
  return () => {
    process.off("unhandledRejection", unexpected);
    process.off("uncaughtException", unexpected);
  };
}

/** Resolves at the first SIGINT or SIGTERM; the handlers are set now, as a caller may send one the moment it reads the ready line. */
function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
