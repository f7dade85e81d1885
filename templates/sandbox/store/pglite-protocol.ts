// The messages between the sandbox's thread (pglite.ts) and the database's (pglite-worker.ts). Every
// request carries an id and is answered once with that id; id 0 is the worker's "open" answer.

export interface WorkerData {
  /** A data directory, or undefined: in memory. */
  readonly dir: string | undefined;
  /** Postgres settings, `name=value`. */
  readonly settings: readonly string[];
  /** The migrated template (template.ts) to load when the database is new, or undefined: initdb. */
  readonly template: string | undefined;
}

export type Request =
  | { readonly id: number; readonly op: "query"; readonly text: string; readonly params: unknown[]; readonly tx?: number }
  /** Opens a transaction; later queries name it by this request's id. */
  | { readonly id: number; readonly op: "begin" }
  | { readonly id: number; readonly op: "end"; readonly tx: number; readonly commit: boolean }
  | { readonly id: number; readonly op: "close" };

export type Reply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string; readonly code?: string };
