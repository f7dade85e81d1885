// Issue 38, part 2: `verispec conform` against servers that echo, fail part-way, drip, never end, nest
// 100,000 deep, answer 404 everywhere or 401 mid-run. Each gives a complete report in the chosen format, no
// secret in any encoding, no stack, and the documented exit code. The servers are in-process (node:http).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { ROOT } from "../sandbox/helpers.js";

const SECRET = 'echo-secret/42+é"x<y>';
const UID = "echo-uid";
const ENV = { VERISPEC_CONFORM_SERVICE_UID: UID, VERISPEC_CONFORM_SECRET: SECRET };
const FAST = ["--rate", "1000"];
const STACK = /\n\s+at .+:\d+:\d+/;

interface Report {
  summary: { checks: number; failed: number; requests: number; stopped?: string };
  checks: { id: string; outcome: string; got?: string; expected?: string }[];
}

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number, body: string) => void): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    const count = ++n;
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => handler(req, res, count, body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function conform(args: readonly string[], env: Record<string, string> = ENV) {
  let stdout = "";
  let stderr = "";
  const code = await main(["conform", ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env,
    cwd: ROOT,
    stdin: async () => "",
  });
  return { code, stdout, stderr };
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

describe("a server that echoes the request: no secret in any output, in any encoding", () => {
  it("text, json and junit", async () => {
    const url = await serve((req, res, n, body) => {
      const echo = {
        headers: req.headers,
        body,
        parsed: body ? (JSON.parse(body) as unknown) : null,
        encoded: encodeURIComponent(body),
        authorization: req.headers.authorization,
      };
      json(res, n % 2 ? 200 : 422, {
        statusCode: 200,
        message: body,
        echo,
        error: { type: "validation_error", details: [{ message: body, code: "custom", path: [String(req.headers.authorization)] }] },
      });
    });
    const token = Buffer.from(`${UID}:${SECRET}`).toString("base64");
    const forms = [
      SECRET,
      JSON.stringify(SECRET).slice(1, -1),
      encodeURIComponent(SECRET),
      token,
      SECRET.replace(/[<>"&]/g, (c) => `&${{ "<": "lt", ">": "gt", '"': "quot", "&": "amp" }[c]};`),
    ];
    for (const format of ["text", "json", "junit"]) {
      const r = await conform([url, ...FAST, "--max-requests", "40", "--format", format]);
      expect(r.code).toBe(1);
      for (const out of [r.stdout, r.stderr]) for (const f of forms) expect(out).not.toContain(f);
      expect(r.stdout).toContain("[redacted]");
      expect(r.stdout + r.stderr).not.toMatch(STACK);
    }
  }, 60_000);
});

describe("a server that fails part-way: failed checks, a bounded stop, the full report", () => {
  it("connection reset after 8 answers: exit 1, each failure a check, stopped after 5, in json, junit and text", async () => {
    const resetAfter8 = () => serve((req, res, n) => (n <= 8 ? json(res, 200, {}) : req.socket.destroy()));
    const r = await conform([await resetAfter8(), ...FAST, "--format", "json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout) as Report;
    expect(report.summary.stopped).toBe("stopped after 5 exchanges without a usable answer (the last: connection reset)");
    expect(report.checks.filter((c) => c.got === "connection reset")).toHaveLength(5);
    // Each reset before an answer is tried once more (a reused keep-alive socket looks the same): 8 + 5 × 2.
    expect(report.summary.requests).toBe(18);
    expect(report.checks.filter((c) => c.outcome === "held").length).toBeGreaterThan(0);
    const junit = await conform([await resetAfter8(), ...FAST, "--format", "junit"]);
    expect(junit.code).toBe(1);
    expect(junit.stdout).toContain("<system-err>stopped early: stopped after 5 exchanges");
    expect(junit.stdout).toMatch(/<\/testsuites>\n$/);
    const text = await conform([await resetAfter8(), ...FAST]);
    expect(text.stdout).toMatch(
      /\nstopped early: stopped after 5 exchanges without a usable answer \(the last: connection reset\)\nconform http:\/\/127\.0\.0\.1:\d+ \(specHash [0-9a-f]{16}\): \d+ checks/,
    );
  }, 60_000);

  it("no answer after 3: each a failed check naming the timeout", async () => {
    const url = await serve((_req, res, n) => (n <= 3 ? json(res, 200, {}) : undefined));
    const r = await conform([url, ...FAST, "--format", "json", "--timeout-ms", "300"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.filter((c) => c.got === "no answer within 300 ms")).toHaveLength(5);
    expect(report.summary.stopped).toMatch(/no answer within 300 ms/);
  }, 60_000);

  it("unreachable at the start: exit 3, one line on stderr, and still a report", async () => {
    const url = await serve(() => undefined);
    const closed = servers.pop()!;
    await new Promise((r) => closed.close(r));
    const r = await conform([url, "--format", "json"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^verispec conform: cannot reach http:\/\/127\.0\.0\.1:\d+: POST \/_sandbox\/clock: connection refused \(ECONNREFUSED\)\n$/);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks).toEqual([expect.objectContaining({ id: "run:reachable", outcome: "failed" })]);
  }, 30_000);
});

describe("bounded answers: a failed check naming the bound, never an exception", () => {
  const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, string[], RegExp][] = [
    [
      "a slow-drip body",
      (req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write("[");
        const t = setInterval(() => res.write(" "), 50);
        req.socket.on("close", () => clearInterval(t));
      },
      ["--timeout-ms", "400"],
      /^the body did not end within 400 ms \(the time bound\)$/,
    ],
    [
      "an endless body",
      (req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const more = () => {
          while (res.write(chunk));
        };
        res.on("drain", more);
        more();
        req.socket.on("close", () => res.off("drain", more));
      },
      ["--max-body-bytes", "1000000"],
      /^the body is larger than 1000000 bytes \(the size bound\)$/,
    ],
    ["100,000-deep JSON", (_req, res) => json(res, 200, undefined) && void 0, [], /^the JSON body nests deeper than 256 levels \(the depth bound\)$/],
  ];
  it.each(cases)(
    "%s",
    async (_name, handler, args, says) => {
      const deep = "[".repeat(100_000) + "]".repeat(100_000);
      const url = await serve((req, res) =>
        _name.startsWith("100,000") ? res.writeHead(200, { "content-type": "application/json" }).end(deep) : handler(req, res),
      );
      for (const format of ["json", "text", "junit"]) {
        const r = await conform([url, ...FAST, "--format", format, ...args]);
        expect(r.code).toBe(1);
        expect(r.stdout + r.stderr).not.toMatch(STACK);
        for (const out of [r.stdout, r.stderr]) expect(out).not.toContain(SECRET);
        if (format === "junit") {
          expect(r.stdout).toMatch(/^<\?xml[\s\S]*tests="\d+" failures="5"[\s\S]*<system-err>stopped early: stopped after 5 exchanges[\s\S]*<\/testsuites>\n$/);
          continue;
        }
        if (format === "text") {
          expect(r.stdout).toMatch(/\nconform http:\/\/127\.0\.0\.1:\d+ \(specHash [0-9a-f]{16}\): \d+ checks, 0 held, 5 failed/);
          continue;
        }
        const report = JSON.parse(r.stdout) as Report;
        const failed = report.checks.filter((c) => c.outcome === "failed");
        expect(failed).toHaveLength(5);
        for (const c of failed) expect(c.got).toMatch(says);
        expect(report.summary.stopped).toMatch(/^stopped after 5 exchanges without a usable answer/);
      }
    },
    60_000,
  );
});

describe("a wrong base URL and a 401 mid-run", () => {
  it("every answer 404: stops early with the hint", async () => {
    const url = await serve((_req, res) => json(res, 404, { message: "Not Found" }));
    const r = await conform([url, ...FAST]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL run:base-url [run] expected answers from the service's paths; got every path answered 404: is the base URL right?");
    expect(r.stdout).toMatch(/\nconform http:\/\/127\.0\.0\.1:\d+ \(specHash [0-9a-f]{16}\): .*; 6 requests/);
    expect(r.stdout.split("\n").length).toBeLessThan(30);
  }, 30_000);

  it("a 401 after the credentials were accepted fails those checks and the run goes on", async () => {
    const url = await serve((_req, res, n) => (n <= 5 ? json(res, 200, {}) : json(res, 401, { message: "Unauthorized" })));
    const r = await conform([url, ...FAST, "--format", "json", "--max-requests", "30"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout) as Report;
    expect(report.summary.requests).toBe(30);
    expect(report.checks.filter((c) => c.outcome === "failed" && /^HTTP 401/.test(c.got ?? "")).length).toBeGreaterThan(5);
  }, 30_000);
});
