/**
 * Webhook verification throughput (issue 5, item 7): v2 verifications per second of a ~2 kB
 * payload beside a bare `createHmac("sha256", key).update(bytes).digest("hex")` of the same bytes,
 * in the same run. Target: verification at least 0.8x the bare digest.
 *
 * A third row, the digest plus one `JSON.parse` of the body, is the floor for any verifier that
 * returns the parsed payload and reads its timestamp (seed: 6.4): on a 2 kB payload parsing
 * costs about as much as the HMAC itself, which bounds the first ratio well below 0.8x.
 *
 * Run alone: npx tsx bench/webhooks.bench.ts
 */
import { createHmac } from "node:crypto";
import { pathToFileURL } from "node:url";
import { Bench } from "tinybench";
import { createWebhookKit, signWebhook, type ReplayStore, type WebhookRules } from "../templates/webhooks/index.js";

const SECRET = "whsec_bench_0123456789abcdef";
const NOW = 1_767_225_600_000;
/** Operations per measured iteration, so timer overhead does not dominate a few-microsecond operation. */
const BATCH = 64;

/** Only the tolerance matters here; statuses and transitions are not used by verification. */
const BENCH_RULES: WebhookRules = {
  toleranceMs: 300_000,
  statuses: {},
  outcomes: {
    processing: "",
    verified: "",
    retry_possible: "",
    final_rejection: "",
    fetch_details: "",
    stakeholder_removed: "",
    locked: "",
  },
  transitions: [],
  conditions: {},
  retryCondition: "canRetry",
};

/** A v5 payload (seed: 6.2) padded with tags to about 2 kB. */
export function benchPayload(targetBytes = 2048): Buffer {
  const payload = {
    version: "v5",
    userId: "cust-42",
    onBehalfUid: "obo-1",
    tags: [] as string[],
    trace: "5b0c1e8a-0d7c-4e55-9a53-2f2a8c1f0a11",
    submissionId: "sub-77",
    name: "Acme Pty Ltd",
    country: "AUS",
    type: "company",
    subType: "none",
    verificationStatus: "verified",
    submissionStatus: "submitted",
    attempt: 1,
    maxAttempts: 5,
    timestamp: NOW,
  };
  while (Buffer.byteLength(JSON.stringify(payload)) < targetBytes - 24) payload.tags.push(`tag:${payload.tags.length}`);
  return Buffer.from(JSON.stringify(payload));
}

/** A store that never refuses: the bench repeats one delivery and measures verification, not replay handling. */
const acceptAll: ReplayStore = { addIfAbsent: () => true };

export default async function run(): Promise<void> {
  const rawBody = benchPayload();
  const headers = signWebhook({ version: "2", rawBody, secret: SECRET });
  const kit = createWebhookKit({ rules: BENCH_RULES, replayStore: acceptAll });
  const input = { rawBody, headers, secret: SECRET, now: NOW };
  await kit.verifyWebhook(input); // fails loudly here if the setup is wrong

  const bench = new Bench({ time: 1_500, warmupTime: 300 });
  let sink = 0;
  bench.add("bare createHmac sha256 hex", () => {
    for (let i = 0; i < BATCH; i++) sink += createHmac("sha256", SECRET).update(rawBody).digest("hex").length;
  });
  // The least any verifier returning a parsed payload can do: the digest plus one JSON.parse.
  bench.add("floor: createHmac + JSON.parse", () => {
    for (let i = 0; i < BATCH; i++) {
      sink += createHmac("sha256", SECRET).update(rawBody).digest("hex").length;
      sink += (JSON.parse(rawBody.toString("utf8")) as { attempt: number }).attempt;
    }
  });
  bench.add("verifyWebhook v2", async () => {
    for (let i = 0; i < BATCH; i++) sink += (await kit.verifyWebhook(input)).version.length;
  });
  await bench.run();
  if (sink === 0) throw new Error("unreachable: keeps the results alive");

  const opsPerSecond = bench.tasks.map((task) => {
    const result = task.result;
    if (result.state !== "completed") throw new Error(`${task.name}: ${result.state}`);
    return { name: task.name, opsPerSecond: result.throughput.mean * BATCH };
  });
  const bare = opsPerSecond[0]!.opsPerSecond;
  console.log(`webhook verification, ${rawBody.length}-byte v2 payload (node ${process.version})`);
  console.table(
    opsPerSecond.map(({ name, opsPerSecond: ops }) => ({
      task: name,
      "ops/s": Math.round(ops).toLocaleString("en-US"),
      "vs bare digest": `${(ops / bare).toFixed(2)}x`,
    })),
  );
  const verify = opsPerSecond[2]!.opsPerSecond;
  const ratio = verify / bare;
  console.log(`ratio verify/bare digest = ${ratio.toFixed(2)}x (target >= 0.80x): ${ratio >= 0.8 ? "met" : "NOT met"}`);
  console.log(`ratio verify/floor (digest + JSON.parse) = ${(verify / opsPerSecond[1]!.opsPerSecond).toFixed(2)}x`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
