// A Postgres server through `pg` (--db postgres://...): the same SQL as PGlite, for a shared sandbox or
// several instances. Loaded only when a postgres URL is given.
import type { Db, Row, Sql } from "./sql.js";

interface PgClient {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  release(err?: Error | boolean): void;
}
interface PgPool {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: "error", listener: (err: Error) => void): void;
}

export async function openPostgres(url: string): Promise<Db> {
  const pg = (await import("pg")) as unknown as { default: { Pool: new (config: object) => PgPool } };
  const pool = new pg.default.Pool({ connectionString: url, max: 10 });
  pool.on("error", () => {}); // an idle client's error surfaces on its next query
  await pool.query("SELECT 1");
  const wrap = (q: { query: PgPool["query"] }): Sql => ({
    query: async <T extends Row>(text: string, params?: readonly unknown[]) => (await q.query<T>(text, params ? [...params] : [])).rows,
  });
  return {
    kind: "postgres",
    exclusive: false,
    query: wrap(pool).query,
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(wrap(client));
        await client.query("COMMIT");
        client.release();
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        client.release(true);
        throw err;
      }
    },
    close: () => pool.end(),
  };
}
