// The sandbox with metrics and request logs off (the package's `verispec/sandbox` API: no /metrics, no
// log), compiled (dist/), in a process of its own: bench/sandbox.bench.ts's peer for the cost of
// `--log-format json` and metrics. Prints its URL once it listens; SIGTERM closes it.
//
//   node --import tsx bench/lib/sandbox-api.ts <receiver url> <service uid> <secret> <signing secret>
async function main(): Promise<void> {
  const [webhookUrl, serviceUid, secret, signingSecret] = process.argv.slice(2);
  const { startSandbox } = (await import(
    new URL("../../dist/templates/sandbox/api.js", import.meta.url).href
  )) as typeof import("../../templates/sandbox/api.js");
  const running = await startSandbox({
    db: "memory",
    processingMs: "manual",
    webhookUrls: [webhookUrl!],
    serviceUid: serviceUid!,
    secret: secret!,
    signingSecret: signingSecret!,
    metrics: false,
  });
  process.once("SIGTERM", () => void running.close().then(() => process.exit(0)));
  console.log(`sandbox listening on ${running.url}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
