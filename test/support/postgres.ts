// A throwaway Postgres server on 127.0.0.1 (Debian's postgresql package: initdb and pg_ctl), for the
// Postgres suite and the delivery soak (bench/delivery-soak.ts). As root, the server's tools run as the
// postgres user, in a directory it owns.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { needFound, onPath } from "./services.js";

/** Debian's postgresql keeps the server's tools in /usr/lib/postgresql/<version>/bin, off PATH. */
export function serverTool(name: string): string | undefined {
  const listed = onPath(name);
  if (listed) return listed;
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => join(base, v, "bin", name)).find((p) => existsSync(p));
}

export const POSTGRES_INSTALL = "apt-get install -y postgresql";

/** The server's tools for startPostgres, when the Postgres suites run. */
export interface PostgresNeed {
  readonly found: boolean;
  readonly tools: { readonly initdb: string; readonly pgCtl: string };
}

/**
 * initdb and pg_ctl, or the one-line skip of services.ts. Under mutation testing (VERISPEC_MUTATION=1) the
 * Postgres suites are left out: a mutant that reaches one would start a server (seconds), and the statements
 * they run are the ones PGlite runs in the same files.
 */
export function needPostgres(): PostgresNeed {
  if (process.env.VERISPEC_MUTATION === "1") return { found: false, tools: { initdb: "", pgCtl: "" } };
  const initdb = needFound("initdb", serverTool("initdb"), POSTGRES_INSTALL);
  // One package holds both: when initdb is missing, one line says so, not two.
  const pgCtl = initdb.found ? needFound("pg_ctl", serverTool("pg_ctl"), POSTGRES_INSTALL) : initdb;
  return { found: initdb.found && pgCtl.found, tools: { initdb: initdb.path, pgCtl: pgCtl.path } };
}

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
