// --db postgres://...: the same SQL on a real Postgres server (started here on 127.0.0.1), and two sandbox
// instances on one database never deliver one webhook twice nor complete one verification twice.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/index.js";
import { needFound, onPath } from "../support/services.js";
import { CREDENTIALS, startReceiver, startSandbox, until, v5Individual, webhookErrors, type Sandbox } from "./helpers.js";

/** Debian's postgresql keeps the server's tools in /usr/lib/postgresql/<version>/bin, off PATH. */
function serverTool(name: string): string | undefined {
  const listed = onPath(name);
  if (listed) return listed;
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => join(base, v, "bin", name)).find((p) => existsSync(p));
}
const INSTALL = "apt-get install -y postgresql";
const initdb = needFound("initdb", serverTool("initdb"), INSTALL);
// One package holds both: when initdb is missing, one line says so, not two.
const pgCtl = initdb.found ? needFound("pg_ctl", serverTool("pg_ctl"), INSTALL) : initdb;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe.skipIf(!initdb.found || !pgCtl.found)("sandbox on Postgres", () => {
  // As root the server runs as the postgres user, who cannot reach below the run's own 0700 TMPDIR.
  const dir = mkdtempSync(join(process.getuid?.() === 0 ? "/tmp" : tmpdir(), "verispec-pg-"));
  const asRoot = process.getuid?.() === 0;
  // initdb refuses root: run the server's tools as the postgres user, in a directory it owns.
  const run = (bin: string, args: string[]) => execFileSync(asRoot ? "runuser" : bin, asRoot ? ["-u", "postgres", "--", bin, ...args] : args, { stdio: "pipe" });
  let url = "";

  beforeAll(async () => {
    if (asRoot) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()));
    const port = await freePort();
    run(initdb.path, ["-D", join(dir, "data"), "-A", "trust", "-U", "verispec"]);
    run(pgCtl.path, ["-D", join(dir, "data"), "-o", `-p ${port} -k ${dir} -h 127.0.0.1`, "-l", join(dir, "log"), "-w", "start"]);
    url = `postgres://verispec@127.0.0.1:${port}/postgres`;
  }, 120_000);

  afterAll(() => {
    try {
      run(pgCtl.path, ["-D", join(dir, "data"), "-m", "fast", "-w", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("two instances on one database: every webhook delivered exactly once, every verification completed once", async () => {
    const receiver = await startReceiver();
    const args = ["--db", url, "--processing-ms", "300", "--webhook-url", receiver.url];
    const sandboxes: Sandbox[] = [await startSandbox(args), await startSandbox(args)];
    try {
      const clients = sandboxes.map((s) => createClient({ baseUrl: s.url, ...CREDENTIALS, retry: false }));
      const traces = await Promise.all(
        Array.from({ length: 40 }, (_, i) => clients[i % 2]!.v5.createVerification(v5Individual(i % 3 === 0 ? "Shared Rejected" : "Shared Person")).then((r) => r.trace!)),
      );
      // Each instance reads what the other wrote.
      expect((await clients[1]!.v5.getVerification(traces[0]!)).data).toMatchObject({ trace: traces[0] });
      const per = (t: string) => receiver.deliveries.filter((d) => JSON.parse(d.body).trace === t);
      await until(() => traces.every((t) => per(t).length >= 2), "pending and outcome webhooks of all 40", 60_000);
      await new Promise((r) => setTimeout(r, 1500)); // let any duplicate arrive
      for (const t of traces) {
        expect(per(t).map((d) => JSON.parse(d.body).verificationStatus)).toEqual(["pending", t === traces[0] ? "rejected" : expect.any(String)]);
      }
      const ids = receiver.deliveries.map((d) => String(d.headers["x-svc-delivery-id"]));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(80);
      expect(receiver.deliveries.map((d) => webhookErrors(d.body)).filter((e) => e.length)).toEqual([]);
    } finally {
      for (const s of sandboxes) expect(await s.stop()).toBe(0);
      await receiver.close();
    }
  }, 180_000);
});
