// `verispec conform <base-url>`: reads the call (credentials from the environment only), runs the checks of
// generator/conform/ and prints the report, whatever the server does. Exit 0 all held, 1 a check failed,
// 2 a usage error (or credentials the server refused from the first request), 3 the server unreachable at
// the start. `--proxy <listen> <upstream>` runs conform-proxy.ts instead (the command table picks).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../package-root.js";
import { isIP } from "node:net";
import { processIo } from "../../context.js";
import { UsageError } from "../../diagnostics.js";
import { basicAuth, Client, DEFAULT_BOUNDS } from "../../conform/http.js";
import { startReceiver, type Receiver } from "../../conform/receiver.js";
import { renderReport, summarise, type CheckResult, type Format } from "../../conform/report.js";
import { CredentialsRefused, runConform, Unreachable, type Runtime } from "../../conform/run.js";
import { modelFromSpec } from "../../pipeline.js";
import type { CommandCall } from "../command-call.js";

export const ENV = { serviceUid: "VERISPEC_CONFORM_SERVICE_UID", secret: "VERISPEC_CONFORM_SECRET", signingSecret: "VERISPEC_SIGNING_SECRET" } as const;

const positiveInt = (name: string, value: string | undefined, fallback: number, min = 1): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be an integer of at least ${min}`);
  return n;
};

/** This machine: names and addresses that never leave it, so plain http is safe there. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return h === "::1";
}

export function parseBaseUrl(raw: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError("the base URL is not a URL (e.g. https://api.example.com)");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UsageError("the base URL must be http or https");
  if (url.username || url.password)
    throw new UsageError("credentials go in the environment (VERISPEC_CONFORM_SERVICE_UID, VERISPEC_CONFORM_SECRET), never in the URL");
  if (url.protocol === "http:" && !isLoopback(url.hostname) && !allowHttp)
    throw new UsageError(`plain http to ${url.hostname} would send the credentials unencrypted: use https, or --allow-http`);
  return url;
}

export function parseReceiveOn(raw: string, option = "--receive-on"): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):([0-9]{1,5})$/.exec(raw);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new UsageError(`${option} takes <host:port>, e.g. 127.0.0.1:8787`);
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
}

/** The runtime conform judges with: the package's own validators and webhook kit. */
export async function loadRuntime(): Promise<Runtime> {
  const validators = await import("../../../generated/validators/index.js");
  const webhooks = await import("../../../generated/webhooks.js");
  const schemas = new Map<string, unknown>();
  const schemaOf = (id: string) => {
    if (!/^[A-Za-z0-9.]+$/.test(id)) return undefined;
    if (!schemas.has(id)) {
      try {
        schemas.set(id, JSON.parse(readFileSync(join(PACKAGE_ROOT, "generated", "schemas", `${id}.json`), "utf8")));
      } catch {
        schemas.set(id, undefined);
      }
    }
    return schemas.get(id);
  };
  return {
    validate: (id, data) => validators.validate(id as Parameters<typeof validators.validate>[0], data, { maxErrors: Infinity }),
    verifyWebhook: (input) => webhooks.verifyWebhook(input),
    canTransition: (from, to, fields) => webhooks.canTransition(from, to, fields),
    schemaOf,
  };
}

export async function startReceiverOr2(
  receiveOn: { host: string; port: number } | undefined,
  onDelivery?: Parameters<typeof startReceiver>[2],
): Promise<Receiver | undefined> {
  if (!receiveOn) return undefined;
  try {
    return await startReceiver(receiveOn.host, receiveOn.port, onDelivery);
  } catch (e) {
    throw new UsageError(`--receive-on ${receiveOn.host}:${receiveOn.port}: cannot listen (${(e as { code?: string }).code ?? "error"})`);
  }
}

export const parseFormat = (raw: string | undefined): Format => {
  const format = raw ?? "text";
  if (format !== "text" && format !== "json" && format !== "junit") throw new UsageError("--format is text, json or junit");
  return format;
};

export async function conform({ io, dirs, positionals, values }: CommandCall): Promise<number> {
  const s = (k: string) => values[k] as string | undefined;
  const format = parseFormat(s("format"));
  const base = parseBaseUrl(positionals[0]!, values["allow-http"] === true);
  const maxRequests = positiveInt("max-requests", s("max-requests"), 100);
  const rate = positiveInt("rate", s("rate"), 10);
  const timeoutMs = positiveInt("timeout-ms", s("timeout-ms"), 10_000);
  const maxBodyBytes = positiveInt("max-body-bytes", s("max-body-bytes"), DEFAULT_BOUNDS.maxBodyBytes);
  const webhookWaitMs = positiveInt("webhook-wait-ms", s("webhook-wait-ms"), 5_000, 0);
  const receiveOn = s("receive-on") === undefined ? undefined : parseReceiveOn(s("receive-on")!);
  const serviceUid = io.env[ENV.serviceUid];
  const secret = io.env[ENV.secret];
  if (!serviceUid || !secret) throw new UsageError(`set ${ENV.serviceUid} and ${ENV.secret} in the environment (credentials are never taken as arguments)`);
  const signingSecret = io.env[ENV.signingSecret] || undefined;
  if (receiveOn && !signingSecret) throw new UsageError(`--receive-on needs the webhook signing key in ${ENV.signingSecret}`);
  const path = s("requested-actions-path");
  if (path !== undefined && !path.startsWith("/")) throw new UsageError("--requested-actions-path starts with /");

  const model = modelFromSpec(dirs.spec);
  const runtime = await loadRuntime();
  const receiver = await startReceiverOr2(receiveOn);
  const client = new Client({
    baseUrl: base.href,
    basic: basicAuth(serviceUid, secret),
    secrets: [secret, ...(signingSecret ? [signingSecret] : [])],
    maxRequests,
    rate,
    timeoutMs,
    maxBodyBytes,
    maxDepth: DEFAULT_BOUNDS.maxDepth,
  });
  const tty = process.stderr.isTTY === true && io.stderr === processIo.stderr;
  const started = performance.now();
  const report = (results: readonly CheckResult[], stopped?: string) => {
    const summary = summarise(
      {
        baseUrl: base.origin + base.pathname.replace(/\/$/, ""),
        specHash: model.specHash,
        requests: client.sent,
        webhooks: receiver?.deliveries.length ?? 0,
        seconds: (performance.now() - started) / 1000,
        stopped,
      },
      results,
    );
    io.stdout(renderReport(format, summary, results, client.redact));
    return summary;
  };
  try {
    const { results, stopped } = await runConform(model, runtime, {
      client,
      receiver,
      signingSecret,
      serviceUid,
      secret,
      webhookWaitMs,
      requestedActionsPath: path,
      runId: `verispec-conform-${randomBytes(4).toString("hex")}`,
      progress: tty ? (done, planned) => io.stderr(`\rconform: ${done}/${planned} checks, ${client.sent} requests`) : undefined,
    });
    if (tty) io.stderr("\n");
    return report(results, stopped).failed > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof Unreachable) {
      io.stderr(client.redact(`verispec conform: cannot reach ${base.origin}: ${e.why}\n`));
      report(
        [{ id: "run:reachable", operation: "run", outcome: "failed", expected: `an answer from ${base.origin}`, got: e.why }],
        `the server was unreachable at the start`,
      );
      return 3;
    }
    if (e instanceof CredentialsRefused) {
      io.stderr(client.redact(`verispec conform: ${e.message}\n`));
      return 2;
    }
    throw e;
  } finally {
    await receiver?.close();
  }
}
