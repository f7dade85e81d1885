// `verispec conform <base-url>`: reads the call (credentials from the environment only), runs the checks of
// generator/conform/ and prints the report. Exit 0 all held, 1 a check failed, 2 usage or connection error.
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { processIo } from "../../context.js";
import { UsageError } from "../../diagnostics.js";
import { basicAuth, Client, ConnectionFailed } from "../../conform/http.js";
import { startReceiver, type Receiver } from "../../conform/receiver.js";
import { jsonReport, junitReport, summarise, textReport } from "../../conform/report.js";
import { runConform, type Runtime } from "../../conform/run.js";
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
  if (url.username || url.password) throw new UsageError("credentials go in the environment (VERISPEC_CONFORM_SERVICE_UID, VERISPEC_CONFORM_SECRET), never in the URL");
  if (url.protocol === "http:" && !isLoopback(url.hostname) && !allowHttp) throw new UsageError(`plain http to ${url.hostname} would send the credentials unencrypted: use https, or --allow-http`);
  return url;
}

export function parseReceiveOn(raw: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):([0-9]{1,5})$/.exec(raw);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new UsageError("--receive-on takes <host:port>, e.g. 127.0.0.1:8787");
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
}

export async function conform({ io, dirs, positionals, values }: CommandCall): Promise<number> {
  const s = (k: string) => values[k] as string | undefined;
  const format = s("format") ?? "text";
  if (!["text", "json", "junit"].includes(format)) throw new UsageError("--format is text, json or junit");
  const base = parseBaseUrl(positionals[0]!, values["allow-http"] === true);
  const maxRequests = positiveInt("max-requests", s("max-requests"), 100);
  const rate = positiveInt("rate", s("rate"), 10);
  const timeoutMs = positiveInt("timeout-ms", s("timeout-ms"), 10_000);
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
  const validators = await import("../../../generated/validators/index.js");
  const webhooks = await import("../../../generated/webhooks.js");
  const runtime: Runtime = {
    validate: (id, data) => validators.validate(id as Parameters<typeof validators.validate>[0], data, { maxErrors: Infinity }),
    verifyWebhook: (input) => webhooks.verifyWebhook(input),
  };
  let receiver: Receiver | undefined;
  if (receiveOn) {
    try {
      receiver = await startReceiver(receiveOn.host, receiveOn.port);
    } catch (e) {
      throw new UsageError(`--receive-on ${receiveOn.host}:${receiveOn.port}: cannot listen (${(e as { code?: string }).code ?? "error"})`);
    }
  }
  const client = new Client({ baseUrl: base.href, basic: basicAuth(serviceUid, secret), maxRequests, rate, timeoutMs });
  const tty = process.stderr.isTTY === true && io.stderr === processIo.stderr;
  const started = performance.now();
  try {
    const results = await runConform(model, runtime, {
      client, receiver, signingSecret, serviceUid, secret, webhookWaitMs, requestedActionsPath: path,
      runId: `verispec-conform-${randomBytes(4).toString("hex")}`,
      progress: tty ? (done, planned) => io.stderr(`\rconform: ${done}/${planned} checks, ${client.sent} requests`) : undefined,
    });
    if (tty) io.stderr("\n");
    const summary = { ...summarise(base.origin + base.pathname.replace(/\/$/, ""), results, client.sent, receiver?.deliveries.length ?? 0, (performance.now() - started) / 1000), specHash: model.specHash };
    io.stdout(format === "json" ? jsonReport(summary, results) : format === "junit" ? junitReport(summary, results) : textReport(summary, results));
    return summary.failed > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof ConnectionFailed) {
      io.stderr(`verispec conform: ${/refused the credentials/.test(e.message) ? "" : `cannot reach ${base.origin}: `}${e.message}\n`);
      return 2;
    }
    throw e;
  } finally {
    await receiver?.close();
  }
}
