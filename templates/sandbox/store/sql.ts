// The one store interface: plain SQL with $1 parameters, run the same way on PGlite (embedded) and on
// a Postgres server. Rows come back as plain objects; callers convert bigint columns with Number().
export type Row = Record<string, unknown>;

export interface Sql {
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Sql {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: "pglite" | "postgres";
  /** One process owns the data (PGlite): work leased by an earlier run of this process may be taken back at start. */
  readonly exclusive: boolean;
}

/**
 * The tenant (account) of the one-account sandbox, and of every row stored before tenants existed
 * (migration 6). A tenant's name is not a secret: it is stored beside its rows and may label metrics.
 */
export const DEFAULT_TENANT = "default";
