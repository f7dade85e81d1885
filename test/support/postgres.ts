// A throwaway Postgres server on 127.0.0.1 (Debian's postgresql package: initdb and pg_ctl), for the
// Postgres suite and the delivery soak (bench/delivery-soak.ts). As root, the server's tools run as the
// postgres user, in a directory it owns.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onPath } from "./services.js";

/** Debian's postgresql keeps the server's tools in /usr/lib/postgresql/<version>/bin, off PATH. */
export function serverTool(name: string): string | undefined {
  const listed = onPath(name);
  if (listed) return listed;
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => join(base, v, "bin", name)).find((p) => existsSync(p));
}

export const POSTGRES_INSTALL = "apt-get install -y postgresql";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface LocalPostgres {
  readonly url: string;
  stop(): void;
}

/** Starts a new cluster (trust authentication, user verispec) on a free port; `stop()` stops it and removes its files. */
export async function startPostgres(tools: { initdb: string; pgCtl: string }): Promise<LocalPostgres> {
  const asRoot = process.getuid?.() === 0;
  // As root the server runs as the postgres user, who cannot reach below the run's own 0700 TMPDIR.
  const dir = mkdtempSync(join(asRoot ? "/tmp" : tmpdir(), "verispec-pg-"));
  const run = (bin: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : bin, asRoot ? ["-u", "postgres", "--", bin, ...args] : args, { stdio: "pipe" });
  if (asRoot)
    chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()));
  const port = await freePort();
  run(tools.initdb, ["-D", join(dir, "data"), "-A", "trust", "-U", "verispec"]);
  run(tools.pgCtl, ["-D", join(dir, "data"), "-o", `-p ${port} -k ${dir} -h 127.0.0.1`, "-l", join(dir, "log"), "-w", "start"]);
  return {
    url: `postgres://verispec@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        run(tools.pgCtl, ["-D", join(dir, "data"), "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
