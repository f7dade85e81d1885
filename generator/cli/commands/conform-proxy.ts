// `verispec conform --proxy <listen> <upstream>`: forwards every request to the upstream unchanged and judges
// each exchange (generator/conform/proxy.ts), and with --receive-on every webhook that follows. One line per
// finding as it happens (stdout for text, stderr for json/junit), then the report at Ctrl-C or --duration.
// Exit 0 nothing failed, 1 something did, 2 a usage error.
import { UsageError } from "../../diagnostics.js";
import { redactor } from "../../../templates/client/util.js";
import { DEFAULT_BOUNDS } from "../../conform/http.js";
import { startJudgingProxy, type RunningProxy } from "../../conform/proxy.js";
import { findingLine, renderReport, summarise, type CheckResult, type Format } from "../../conform/report.js";
import { checkDelivery } from "../../conform/webhooks.js";
import { modelFromSpec } from "../../pipeline.js";
import type { CommandCall } from "../command-call.js";
import { ENV, loadRuntime, parseBaseUrl, parseFormat, parseReceiveOn, startReceiverOr2 } from "./conform.js";

/** Resolves at SIGINT/SIGTERM or after `seconds` (when given). */
function untilStopped(seconds: number | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      resolve();
    };
    const timer = seconds === undefined ? undefined : setTimeout(done, seconds * 1000);
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
}

/** What a `conform --proxy` call asks for, its options checked (a UsageError names the first wrong one). */
interface ProxyCall {
  readonly format: Format;
  readonly listen: ReturnType<typeof parseReceiveOn>;
  readonly upstream: URL;
  readonly requestedActionsPath: string | undefined;
  readonly seconds: number | undefined;
  readonly receiveOn: ReturnType<typeof parseReceiveOn> | undefined;
  readonly signingSecret: string | undefined;
}

function parseProxyCall({ io, positionals, values }: CommandCall): ProxyCall {
  const option = (name: string) => values[name] as string | undefined;
  // Checked in this order: the first wrong option is the one named.
  const format = parseFormat(option("format"));
  const listen = parseReceiveOn(option("proxy")!, "--proxy");
  const upstream = parseBaseUrl(positionals[0]!, values["allow-http"] === true);
  const requestedActionsPath = option("requested-actions-path");
  if (requestedActionsPath !== undefined && !requestedActionsPath.startsWith("/")) throw new UsageError("--requested-actions-path starts with /");
  const duration = option("duration");
  if (duration !== undefined && !/^[0-9]+$/.test(duration)) throw new UsageError("--duration takes whole seconds");
  const receiveOnText = option("receive-on");
  const receiveOn = receiveOnText === undefined ? undefined : parseReceiveOn(receiveOnText);
  const signingSecret = io.env[ENV.signingSecret] || undefined;
  if (receiveOn && !signingSecret) throw new UsageError(`--receive-on needs the webhook signing key in ${ENV.signingSecret}`);
  return {
    format,
    listen,
    upstream,
    requestedActionsPath,
    seconds: duration === undefined ? undefined : Number(duration),
    receiveOn,
    signingSecret,
  };
}

/**
 * Redaction of every secret known: the environment's, and the credentials the traffic carries as the proxy
 * sees them (`onCredentials`), so that a finding never prints what a client sent.
 */
function credentialRedactor(env: CommandCall["io"]["env"], signingSecret: string | undefined) {
  const secrets = [env[ENV.secret], signingSecret].filter((secret): secret is string => !!secret);
  const basic = env[ENV.serviceUid] && env[ENV.secret] ? Buffer.from(`${env[ENV.serviceUid]}:${env[ENV.secret]}`).toString("base64") : undefined;
  const known = new Set([...secrets, ...(basic ? [basic] : [])]);
  let redact = redactor([...known]);
  return {
    redact: <T>(value: T): T => redact(value),
    onCredentials: (found: readonly string[]) => {
      if (found.every((secret) => known.has(secret))) return;
      for (const secret of found) known.add(secret);
      redact = redactor([...known]);
    },
  };
}

/** Starts the judging proxy; a port it cannot listen on closes the receiver and is a UsageError. */
async function openProxy(
  call: ProxyCall,
  judging: Pick<Parameters<typeof startJudgingProxy>[0], "model" | "rt" | "onResult" | "onCredentials" | "redact">,
  receiver: { close(): Promise<void> } | undefined,
): Promise<RunningProxy> {
  const { listen } = call;
  try {
    return await startJudgingProxy({
      ...judging,
      host: listen.host,
      port: listen.port,
      upstream: call.upstream,
      requestedActionsPath: call.requestedActionsPath,
      maxBodyBytes: DEFAULT_BOUNDS.maxBodyBytes,
      maxDepth: DEFAULT_BOUNDS.maxDepth,
    });
  } catch (e) {
    await receiver?.close();
    throw new UsageError(`--proxy ${listen.host}:${listen.port}: cannot listen (${(e as { code?: string }).code ?? "error"})`);
  }
}

export async function conformProxy(commandCall: CommandCall): Promise<number> {
  const { io, dirs } = commandCall;
  const call = parseProxyCall(commandCall);
  const { format, upstream, signingSecret } = call;
  const { redact, onCredentials } = credentialRedactor(io.env, signingSecret);
  const model = modelFromSpec(dirs.spec);
  const rt = await loadRuntime();
  const results: CheckResult[] = [];
  const line = format === "text" ? io.stdout : io.stderr;
  const onResult = (result: CheckResult) => {
    // A held check's words come from the spec alone; what a server or client sent is only in a finding's.
    const safe = result.outcome === "held" ? result : redact(result);
    results.push(safe);
    if (safe.outcome === "failed" || safe.outcome === "warned") line(`${findingLine(safe)}\n`);
  };
  // Each webhook is judged as it arrives; its order per trace is judged with the rest at the end.
  const receiver = await startReceiverOr2(call.receiveOn, (delivery, index) => {
    const judged: CheckResult[] = [];
    void checkDelivery(model, rt, signingSecret!, delivery, index, judged).then(
      () => judged.forEach(onResult),
      () => {},
    );
  });
  const started = performance.now();
  const proxy = await openProxy(call, { model, rt, onResult, onCredentials, redact: (text) => redact(text) }, receiver);
  const baseUrl = upstream.origin + upstream.pathname.replace(/\/$/, "");
  io.stderr(`verispec conform --proxy listening on ${proxy.url}, forwarding to ${baseUrl}\n`);
  await untilStopped(call.seconds);
  await proxy.close();
  await receiver?.close();
  const run = { baseUrl, requests: proxy.exchanges(), webhooks: receiver?.deliveries.length ?? 0, seconds: (performance.now() - started) / 1000 };
  const summary = summarise(run, results);
  io.stdout(
    format === "text"
      ? `${redact(`conform --proxy ${summary.baseUrl}: ${summary.checks} checks, ${summary.held} held, ${summary.failed} failed, ${summary.warned} warned; ${summary.requests} exchanges`)}\n`
      : renderReport(format, summary, results, redact),
  );
  return summary.failed > 0 ? 1 : 0;
}
