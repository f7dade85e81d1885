// The embedded database: PGlite (Postgres compiled to WebAssembly) in a directory or in memory, run on a
// worker thread of its own (pglite-worker.ts) so that the database and the HTTP side use two cores. Loaded
// only by the sandbox command (a dynamic import), so the rest of verispec never pays for it.
import { mkdirSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Reply, Request, WorkerData } from "./pglite-protocol.js";
import type { Db, Row, Sql } from "./sql.js";
import { PGLITE_SETTINGS } from "./pglite-open.js";
import { stagingQuery } from "./pglite-staging.js";
import { templatePath } from "./template.js";

/** The code of a DatabaseError raised when the database cannot be opened. */
export const OPEN_FAILED = "VERISPEC_DB_OPEN";

/** An error the database thread reported, with Postgres's SQLSTATE when there is one. */
export class DatabaseError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "DatabaseError";
  }
}

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };
type Body<R> = R extends unknown ? Omit<R, "id"> : never;

/**
 * The worker's file beside this one: .js when built; .ts when run from the sources, loaded through tsx's
 * API (a worker does not inherit the --import hooks of its parent on Node 20).
 */
function startWorker(data: WorkerData): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const file = new URL(`./pglite-worker${ext}`, import.meta.url);
  if (ext !== ".ts") return new Worker(file, { workerData: data });
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); })`;
  return new Worker(boot, { eval: true, workerData: data });
}

/** `dir` undefined: in memory. */
export async function openPglite(dir: string | undefined): Promise<Db> {
  if (dir !== undefined) mkdirSync(dir, { recursive: true });
  const worker = startWorker({ dir, settings: PGLITE_SETTINGS, template: templatePath() });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let stopped: Error | undefined;
  const failAll = (err: Error) => {
    stopped ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("message", (reply: Reply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(new DatabaseError(reply.message, reply.code));
  });
  worker.on("error", (err) => failAll(new DatabaseError(`the database thread failed: ${err.message}`)));
  worker.on("exit", () => failAll(new DatabaseError("the database is closed")));

  const call = <T>(request: Body<Request> | { op: "open" }, id = nextId++): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (stopped) return reject(stopped);
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (request.op !== "open") worker.postMessage({ ...request, id });
    });

  try {
    await call({ op: "open" }, 0);
  } catch (err) {
    await worker.terminate();
    const error = err as DatabaseError;
    // A missing driver keeps its code (the command names the package); any other failure is the store's.
    throw new DatabaseError(`PGlite cannot open ${dir ?? "a database in memory"}: ${error.message}`, error.code ?? OPEN_FAILED);
  }

  const plain =
    (tx?: number) =>
    <T extends Row>(text: string, params?: readonly unknown[]) =>
      call<T[]>({ op: "query", text, params: params ? [...params] : [], ...(tx === undefined ? {} : { tx }) });
  // Outside a transaction, a big text parameter goes in parts, between other requests' statements (pglite-staging.ts).
  const staged = stagingQuery(plain());
  const sql = (tx?: number): Sql => ({ query: tx === undefined ? staged : plain(tx) });
  return {
    kind: "pglite",
    exclusive: true,
    query: sql().query,
    transaction: async (fn) => {
      const tx = await call<number>({ op: "begin" });
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn(sql(tx));
      } catch (err) {
        await call({ op: "end", tx, commit: false }).catch(() => {});
        throw err;
      }
      await call({ op: "end", tx, commit: true });
      return result;
    },
    close: async () => {
      if (stopped) return;
      await call({ op: "close" });
      await worker.terminate();
    },
  };
}
