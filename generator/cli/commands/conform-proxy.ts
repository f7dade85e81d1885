// `verispec conform --proxy <listen> <upstream>`: forwards every request to the upstream unchanged and judges
// each exchange (generator/conform/proxy.ts), and with --receive-on every webhook that follows. One line per
// finding as it happens (stdout for text, stderr for json/junit), then the report at Ctrl-C or --duration.
// Exit 0 nothing failed, 1 something did, 2 a usage error.
import { UsageError } from "../../diagnostics.js";
import { redactor } from "../../../templates/client/util.js";
import { DEFAULT_BOUNDS } from "../../conform/http.js";
import { startJudgingProxy, type RunningProxy } from "../../conform/proxy.js";
import { findingLine, renderReport, summarise, type CheckResult } from "../../conform/report.js";
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

export async function conformProxy({ io, dirs, positionals, values }: CommandCall): Promise<number> {
  const s = (k: string) => values[k] as string | undefined;
  const format = parseFormat(s("format"));
  const listen = parseReceiveOn(s("proxy")!, "--proxy");
  const upstream = parseBaseUrl(positionals[0]!, values["allow-http"] === true);
  const requestedActionsPath = s("requested-actions-path");
  if (requestedActionsPath !== undefined && !requestedActionsPath.startsWith("/")) throw new UsageError("--requested-actions-path starts with /");
  const duration = s("duration");
  if (duration !== undefined && !/^[0-9]+$/.test(duration)) throw new UsageError("--duration takes whole seconds");
  const receiveOn = s("receive-on") === undefined ? undefined : parseReceiveOn(s("receive-on")!);
  const signingSecret = io.env[ENV.signingSecret] || undefined;
  if (receiveOn && !signingSecret) throw new UsageError(`--receive-on needs the webhook signing key in ${ENV.signingSecret}`);
  const secrets = [io.env[ENV.secret], signingSecret].filter((x): x is string => !!x);
  const basic = io.env[ENV.serviceUid] && io.env[ENV.secret] ? Buffer.from(`${io.env[ENV.serviceUid]}:${io.env[ENV.secret]}`).toString("base64") : undefined;
  // The credentials the traffic carries join the environment's: a finding never prints what a client sent.
  const known = new Set([...secrets, ...(basic ? [basic] : [])]);
  let redact = redactor([...known]);
  const onCredentials = (found: readonly string[]) => {
    if (found.every((x) => known.has(x))) return;
    found.forEach((x) => known.add(x));
    redact = redactor([...known]);
  };
  const model = modelFromSpec(dirs.spec);
  const rt = await loadRuntime();
  const results: CheckResult[] = [];
  const line = format === "text" ? io.stdout : io.stderr;
  const onResult = (r: CheckResult) => {
    // A held check's words come from the spec alone; what a server or client sent is only in a finding's.
    const safe = r.outcome === "held" ? r : redact(r);
    results.push(safe);
    if (safe.outcome === "failed" || safe.outcome === "warned") line(`${findingLine(safe)}\n`);
  };
  // Each webhook is judged as it arrives; its order per trace is judged with the rest at the end.
  const receiver = await startReceiverOr2(receiveOn, (d, n) => {
    const out: CheckResult[] = [];
    void checkDelivery(model, rt, signingSecret!, d, n, out).then(
      () => out.forEach(onResult),
      () => {},
    );
  });
  const started = performance.now();
  let proxy: RunningProxy;
  try {
    proxy = await startJudgingProxy({
      host: listen.host,
      port: listen.port,
      upstream,
      model,
      rt,
      onResult,
      onCredentials,
      redact: (text) => redact(text),
      requestedActionsPath,
      maxBodyBytes: DEFAULT_BOUNDS.maxBodyBytes,
      maxDepth: DEFAULT_BOUNDS.maxDepth,
    });
  } catch (e) {
    await receiver?.close();
    throw new UsageError(`--proxy ${listen.host}:${listen.port}: cannot listen (${(e as { code?: string }).code ?? "error"})`);
  }
  io.stderr(`verispec conform --proxy listening on ${proxy.url}, forwarding to ${upstream.origin}${upstream.pathname.replace(/\/$/, "")}\n`);
  await untilStopped(duration === undefined ? undefined : Number(duration));
  await proxy.close();
  await receiver?.close();
  const summary = summarise(
    {
      baseUrl: upstream.origin + upstream.pathname.replace(/\/$/, ""),
      requests: proxy.exchanges(),
      webhooks: receiver?.deliveries.length ?? 0,
      seconds: (performance.now() - started) / 1000,
    },
    results,
  );
  io.stdout(
    format === "text"
      ? `${redact(`conform --proxy ${summary.baseUrl}: ${summary.checks} checks, ${summary.held} held, ${summary.failed} failed, ${summary.warned} warned; ${summary.requests} exchanges`)}\n`
      : renderReport(format, summary, results, redact),
  );
  return summary.failed > 0 ? 1 : 0;
}
