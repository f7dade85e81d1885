// Where a thread's time goes, from V8 CPU profiles (`node --cpu-prof --cpu-prof-dir=DIR`, one .cpuprofile
// per thread): each sample's time is charged to a category by the frame it was taken in (a builtin without
// a script, such as a native write, to the frame that called it; JSON.parse and JSON.stringify to JSON).
// Prints, per profile: wall time, busy time (not idle), and the categories' share of the busy time.
//
//   npx tsx bench/lib/cpu-profile.ts DIR
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** First match wins: a pattern on the script's URL (or the function's name for V8's own entries). */
const CATEGORIES: readonly (readonly [string, RegExp])[] = [
  ["idle", /^\(idle\)$/],
  ["GC", /^\(garbage collector\)$/],
  ["Postgres (WebAssembly)", /^wasm:/],
  ["PGlite JavaScript", /@electric-sql\/pglite/],
  ["store, client side (templates/sandbox/store)", /templates\/sandbox\/store\//],
  ["dispatcher / outbox delivery", /templates\/sandbox\/dispatcher\.js/],
  [
    "logging (logging.js, pino)",
    /templates\/sandbox\/logging\.js|node_modules\/(pino|sonic-boom|thread-stream|on-exit-leak-free|fast-redact|quick-format-unescaped|atomic-sleep)/,
  ],
  ["metrics (metrics.js, prom-client)", /templates\/sandbox\/metrics\.js|node_modules\/(prom-client|tdigest|bintrees)/],
  ["ops wrapper (request id, timing)", /templates\/sandbox\/ops\.js/],
  ["request guard (body shape, depth, NUL)", /templates\/sandbox\/(body-shape|bodies)\.js/],
  ["validation (Ajv validators, error mapping)", /generated\/validators|templates\/validators|dist\/generated\/.*validat/],
  ["webhook signing", /templates\/webhooks|generated\/webhooks|generated\/runtime\/webhooks/],
  ["service logic (service, results, binding, lifecycle)", /templates\/sandbox\/(service|results|binding|clock)\.js|templates\/lifecycle/],
  ["sandbox HTTP layer (server, routes, handlers)", /templates\/sandbox\/|generated\/sandbox/],
  ["worker messages", /node:internal\/worker|node:worker_threads|MessagePort/],
  ["crypto", /node:crypto|node:internal\/crypto/],
  [
    "Node HTTP, sockets, streams",
    /node:(_http|http|net|stream|internal\/(streams|http|stream_base|net|js_stream|timers|async_hooks|process\/task_queues|event_target)|events|buffer)/,
  ],
  ["autocannon / other node_modules", /node_modules/],
  ["Node, other", /^node:/],
  ["(program)", /^\(program\)$/],
];

const JSON_FN = /^(parse|stringify)$/;

function categoryOf(node: ProfileNode, parent: Map<number, ProfileNode>): string {
  const { functionName, url } = node.callFrame;
  if (!url && JSON_FN.test(functionName)) return "JSON";
  for (let n: ProfileNode | undefined = node; n; n = parent.get(n.id)) {
    const key = n.callFrame.url || n.callFrame.functionName;
    if (!n.callFrame.url && !/^\(/.test(n.callFrame.functionName)) continue; // a builtin: its caller's
    for (const [name, pattern] of CATEGORIES) if (pattern.test(key)) return name;
    if (n.callFrame.url) return `other (${n.callFrame.url.replace(/^.*\//, "")})`;
  }
  return "(native, no script frame)";
}

export function summarise(profile: Profile): { wallMs: number; busyMs: number; shares: [string, number][] } {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const category = new Map<number, string>();
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    let c = category.get(id);
    if (c === undefined) category.set(id, (c = categoryOf(byId.get(id)!, parent)));
    totals.set(c, (totals.get(c) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const idle = totals.get("idle") ?? 0;
  totals.delete("idle");
  const busyMs = [...totals.values()].reduce((a, b) => a + b, 0);
  const shares = [...totals].sort((a, b) => b[1] - a[1]).map(([k, ms]): [string, number] => [k, ms / busyMs]);
  return { wallMs: busyMs + idle, busyMs, shares };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: npx tsx bench/lib/cpu-profile.ts DIR");
    process.exit(2);
  }
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort()) {
    const s = summarise(JSON.parse(readFileSync(join(dir, f), "utf8")) as Profile);
    console.log(`\n${f}: busy ${(s.busyMs / 1000).toFixed(1)} of ${(s.wallMs / 1000).toFixed(1)} s (${((100 * s.busyMs) / s.wallMs).toFixed(0)} %)`);
    for (const [k, share] of s.shares) if (share >= 0.002) console.log(`  ${(100 * share).toFixed(1).padStart(5)} %  ${k}`);
  }
}
