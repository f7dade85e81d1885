// The embedded database's own thread: PGlite (Postgres compiled to WebAssembly) runs here, so its work
// (about two thirds of a create's CPU) runs beside the sandbox's HTTP thread instead of taking turns with
// it. pglite.ts is the other end; the messages are `Request`s, each answered once by a `Reply` of its id.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import type { Reply, Request, WorkerData } from "./pglite-protocol.js";
import { openPgliteHere } from "./pglite-open.js";
import { extractTemplate, readTemplate } from "./template.js";

interface PGliteQueryable {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}
interface PGliteLike extends PGliteQueryable {
  transaction<T>(fn: (tx: PGliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** An open transaction: its handle, how to end it, and the transaction's own promise (settled once ended). */
interface OpenTransaction {
  tx: PGliteQueryable;
  end: (commit: boolean) => void;
  ended: Promise<unknown>;
}

const port = parentPort!;
const { dir, settings, template } = workerData as WorkerData;
const reply = (answer: Reply) => port.postMessage(answer);
const failure = (id: number, err: unknown): Reply => {
  const thrown = err as { message?: string; code?: string };
  return { id, ok: false, message: String(thrown?.message ?? err), ...(typeof thrown?.code === "string" ? { code: thrown.code } : {}) };
};

/** Rolling back: the transaction callback rejects with this, and PGlite issues ROLLBACK. */
class Rollback extends Error {}

async function main(): Promise<void> {
  let db: PGliteLike;
  try {
    // A new database starts from the template (in memory loaded by PGlite, in a directory written there
    // first); an existing directory is opened as it is.
    const fresh = dir === undefined || !existsSync(join(dir, "PG_VERSION"));
    const loaded = fresh && template !== undefined ? readTemplate(template) : undefined;
    if (loaded && dir !== undefined) extractTemplate(loaded.tar, dir);
    db = await openPgliteHere(dir, {
      settings,
      ...(loaded && dir === undefined ? { loadDataDir: loaded.tar } : {}),
      ...(loaded?.arrayTypes ? { arrayTypes: loaded.arrayTypes } : {}),
    });
  } catch (err) {
    reply(failure(0, err));
    return;
  }
  const open = new Map<number, OpenTransaction>();

  /** Opens a transaction and holds it until its "end" message: PGlite runs a transaction as one callback. */
  const begin = async (id: number): Promise<void> => {
    const held = {} as OpenTransaction;
    await new Promise<void>((started, failed) => {
      held.ended = db.transaction(
        (tx) =>
          new Promise<void>((commit, rollback) => {
            held.tx = tx;
            held.end = (ok) => (ok ? commit() : rollback(new Rollback()));
            started();
          }),
      );
      // Failing before the callback runs (BEGIN refused) is the begin's answer; later, the end's.
      held.ended.catch(failed);
    });
    open.set(id, held);
  };

  const handle = async (message: Request): Promise<unknown> => {
    switch (message.op) {
      case "query":
        return (await (message.tx === undefined ? db : open.get(message.tx)!.tx).query(message.text, message.params)).rows;
      case "begin":
        await begin(message.id);
        return message.id;
      case "end": {
        const held = open.get(message.tx)!;
        held.end(message.commit);
        try {
          await held.ended;
        } catch (err) {
          if (!(err instanceof Rollback)) throw err;
        } finally {
          open.delete(message.tx);
        }
        return null;
      }
      case "close":
        await db.close();
        return null;
    }
  };

  port.on("message", (message: Request) => {
    handle(message).then(
      (value) => {
        reply({ id: message.id, ok: true, value });
      },
      (err: unknown) => reply(failure(message.id, err)),
    );
  });
  reply({ id: 0, ok: true, value: null });
}

void main();
