// `verispec conform --proxy` per exchange: what it adds to a call beside a direct call to the same server.
// Sequential creates (POST /v5/verifications, one keep-alive connection, 127.0.0.1) to an upstream answering
// the spec's own example in-process; three ways in each round, in a rotating order: direct, through a bare
// node:http forwarder (the floor of any proxy: one more hop, no judging) and through verispec's proxy (the
// real command, judging each exchange after its answer is sent). Figures: the median over the rounds of
// each round's p50 and p99, and the added p50 (proxy minus direct). Goal: under 2 ms added at p50.
// Checks: every answer 200 with the upstream's bytes, and the proxy's report at the end has no failed check.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { median, quantile } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CALLS = Number(process.env.PROXY_BENCH_CALLS ?? 2_000);
const ROUNDS = Number(process.env.PROXY_BENCH_ROUNDS ?? 5);
const WARM_UP = 2_000;
const BODY = JSON.stringify({ type: "individual", subType: "data", country: "AUS", name: "Bench Person", website: "https://example.com" });
const ANSWER = JSON.stringify(
  (JSON.parse(readFileSync(`${ROOT}generated/schemas/v5.VerificationCreateResponse.json`, "utf8")) as { examples: unknown[] }).examples[0],
);
const AUTH = `Basic ${Buffer.from("bench-uid:bench-secret").toString("base64")}`;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** The upstream: the spec's example create answer, at once. */
const upstream = () =>
  createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(ANSWER) }).end(ANSWER));
  });

/** The floor of a proxy: pipes each request to the upstream and the answer back, nothing else. */
function bareForwarder(target: URL): Server {
  const agent = new Agent({ keepAlive: true });
  return createServer((req, res) => {
    const up = request(
      { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host }, agent },
      (ures) => {
        res.writeHead(ures.statusCode ?? 502, ures.headers);
        ures.pipe(res);
      },
    );
    up.on("error", () => res.writeHead(502).end());
    req.pipe(up);
  });
}

async function startProxy(upstreamUrl: string): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "generator/cli/bin.ts", "conform", "--proxy", "127.0.0.1:0", upstreamUrl], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, VERISPEC_CONFORM_SERVICE_UID: "bench-uid", VERISPEC_CONFORM_SECRET: "bench-secret" },
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const url = await new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString("utf8");
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the proxy exited ${code}: ${err.slice(-400)}`)));
  });
  return { child, url, out: () => out };
}

/** `n` sequential creates; each call's milliseconds. Every answer must be 200 with the upstream's bytes. */
async function calls(base: string, n: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(base);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          hostname: target.hostname,
          port: target.port,
          method: "POST",
          path: "/v5/verifications",
          agent,
          headers: { "content-type": "application/json", authorization: AUTH, "content-length": Buffer.byteLength(BODY) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on("error", reject);
      req.end(BODY);
    });
    times.push(performance.now() - started);
    if (body !== ANSWER) throw new Error("an answer was changed in flight");
  }
  agent.destroy();
  return times;
}

type Way = "direct" | "bare" | "proxy";
const WAYS: Record<Way, string> = { direct: "direct call", bare: "bare node:http forwarder (no judging)", proxy: "verispec conform --proxy (judging)" };

export default async function run(): Promise<void> {
  const up = upstream();
  const upUrl = await listen(up);
  const bare = bareForwarder(new URL(upUrl));
  const urls: Record<Way, string> = { direct: upUrl, bare: await listen(bare), proxy: "" };
  const proxy = await startProxy(upUrl);
  urls.proxy = proxy.url;
  for (const way of Object.keys(urls) as Way[]) await calls(urls[way], WARM_UP);
  const order: Way[] = ["direct", "bare", "proxy"];
  const figures: Record<Way, { p50: number[]; p99: number[] }> = { direct: { p50: [], p99: [] }, bare: { p50: [], p99: [] }, proxy: { p50: [], p99: [] } };
  const added: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const round: Partial<Record<Way, number>> = {};
    for (const way of [...order.slice(r % 3), ...order.slice(0, r % 3)]) {
      const t = await calls(urls[way], CALLS);
      figures[way].p50.push(quantile(t, 0.5));
      figures[way].p99.push(quantile(t, 0.99));
      round[way] = quantile(t, 0.5);
    }
    added.push(round.proxy! - round.direct!);
    console.log(
      `round ${r + 1}: p50 ${order.map((w) => `${w} ${round[w]!.toFixed(3)} ms`).join(", ")}; added by the proxy ${(round.proxy! - round.direct!).toFixed(3)} ms`,
    );
  }
  proxy.child.kill("SIGINT");
  const code = await new Promise<number | null>((resolve) => proxy.child.once("exit", resolve));
  up.closeAllConnections();
  bare.closeAllConnections();
  up.close();
  bare.close();
  console.log(`\n${CALLS} sequential creates per way per round, one keep-alive connection, 127.0.0.1, ${ROUNDS} rounds: medians over the rounds\n`);
  console.log("| way | p50 ms | p99 ms |");
  console.log("|---|---:|---:|");
  for (const way of order) console.log(`| ${WAYS[way]} | ${median(figures[way].p50).toFixed(3)} | ${median(figures[way].p99).toFixed(3)} |`);
  const p50Added = median(added);
  console.log(
    `\ngoal: under 2 ms added at p50 beside a direct call: ${p50Added < 2 ? "met" : "NOT met"} (${p50Added.toFixed(3)} ms; the bare forwarder adds ${(median(figures.bare.p50) - median(figures.direct.p50)).toFixed(3)} ms)`,
  );
  const summary = proxy.out().trim().split("\n").at(-1) ?? "";
  const judged = /: (\d+) checks, \d+ held, (\d+) failed/.exec(summary);
  const passed = code === 0 && judged !== null && Number(judged[1]) > 0 && judged[2] === "0";
  console.log(`checks: ${passed ? `every answer unchanged; the proxy judged every exchange (${summary})` : `FAILED (exit ${code}: ${summary})`}`);
  if (!passed) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
