// Versioned schema migrations, applied at start in order inside one transaction each (under an advisory
// lock, so two instances starting on one Postgres do not race). Never edit a released migration: add one.
import type { Db, Sql } from "./sql.js";

export interface Migration {
  readonly version: number;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE verifications (
  trace text PRIMARY KEY,
  api text NOT NULL,
  user_id text,
  submission_id text NOT NULL,
  parent_trace text,
  roles text,
  type text NOT NULL,
  sub_type text,
  name text NOT NULL,
  country text,
  request text NOT NULL,
  verification_status text NOT NULL,
  submission_status text NOT NULL,
  attempt integer NOT NULL,
  max_attempts integer,
  outcome text NOT NULL,
  due_at bigint,
  form_id text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  seq bigserial
);
CREATE INDEX verifications_user ON verifications (user_id, seq);
CREATE INDEX verifications_parent ON verifications (parent_trace);
CREATE INDEX verifications_due ON verifications (due_at) WHERE due_at IS NOT NULL;
CREATE TABLE history (
  id bigserial PRIMARY KEY,
  trace text NOT NULL,
  verification_status text NOT NULL,
  submission_status text NOT NULL,
  attempt integer NOT NULL,
  trigger text NOT NULL,
  at bigint NOT NULL
);
CREATE INDEX history_trace ON history (trace, id);
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  delivery_id text NOT NULL,
  trace text NOT NULL,
  url text,
  format text NOT NULL,
  signature_version text NOT NULL,
  body text NOT NULL,
  timestamp bigint NOT NULL,
  state text NOT NULL,
  tries integer NOT NULL DEFAULT 0,
  next_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  last_status integer,
  last_error text,
  resend_of bigint,
  created_at bigint NOT NULL,
  delivered_at bigint
);
CREATE INDEX outbox_queued ON outbox (state, next_at);
CREATE INDEX outbox_trace ON outbox (trace, id);
CREATE INDEX outbox_delivery ON outbox (delivery_id);
CREATE TABLE delivery_attempts (
  id bigserial PRIMARY KEY,
  outbox_id bigint NOT NULL,
  at bigint NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL
);
CREATE INDEX delivery_attempts_outbox ON delivery_attempts (outbox_id, id);
CREATE TABLE forms (
  id text PRIMARY KEY,
  request text NOT NULL,
  created_at bigint NOT NULL,
  opens_since_save integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  trace text
);
CREATE TABLE sandbox_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);`,
  },
  {
    // The dispatcher's claim reads queued rows and, for each, whether an earlier row of its trace and
    // receiver is still queued: two partial indexes over queued rows only, so the claim is a few index
    // probes that stop at its LIMIT, where the index on (state, next_at) led to sorting and probing every
    // queued row (30-40 ms at 8,000 queued; without the second index the planner hashes them all).
    version: 2,
    sql: `
CREATE INDEX outbox_claim ON outbox (id) WHERE state = 'queued';
CREATE INDEX outbox_queued_trace ON outbox (trace, url, id) WHERE state = 'queued';
DROP INDEX outbox_queued`,
  },
  {
    // Most verifications have no userId and no parent: index only those that do (the lookups compare
    // with =, which implies NOT NULL, so they use these), two index entries fewer to write per create.
    version: 3,
    sql: `
CREATE INDEX verifications_user_set ON verifications (user_id, seq) WHERE user_id IS NOT NULL;
CREATE INDEX verifications_parent_set ON verifications (parent_trace) WHERE parent_trace IS NOT NULL;
DROP INDEX verifications_user;
DROP INDEX verifications_parent`,
  },
  {
    // Older requests were stored with their credentials (metadata_secretKey in plaintext): dropped from every
    // stored request (spec/sandbox.yaml storedRequest). A text holding the escape of U+0000 is not jsonb: such a
    // row (only ever a key, values with it were refused) is left as it is rather than failing the start.
    version: 4,
    sql: `
UPDATE verifications SET request = (request::jsonb - 'metadata_serviceUid' - 'metadata_secretKey')::text
  WHERE api = 'older' AND (strpos(request, '"metadata_secretKey"') > 0 OR strpos(request, '"metadata_serviceUid"') > 0) AND strpos(request, '\\u0000') = 0;
UPDATE forms SET request = (request::jsonb - 'metadata_serviceUid' - 'metadata_secretKey')::text
  WHERE (strpos(request, '"metadata_secretKey"') > 0 OR strpos(request, '"metadata_serviceUid"') > 0) AND strpos(request, '\\u0000') = 0`,
  },
  {
    // Cost flat as data grows (retention.ts, browse.ts): retention finds what is older than its cutoff by
    // range scans that stop at the first younger row; the page and GET /_sandbox/deliveries filter by
    // status and page by cursor through an index each, whatever the row count.
    version: 5,
    sql: `
CREATE INDEX verifications_updated ON verifications (updated_at);
CREATE INDEX verifications_status ON verifications (verification_status, seq);
CREATE INDEX outbox_done_created ON outbox (created_at) WHERE state <> 'queued';
CREATE INDEX outbox_state ON outbox (state, id);
CREATE INDEX forms_created ON forms (created_at)`,
  },
  {
    // Tenants (several accounts in one sandbox): every row carries the account it belongs to; what was
    // stored before belongs to the account named "default" (the one-account case). Traces and userIds are
    // the account's own (the key is (tenant, trace)); every lookup leads with the tenant, so it stays one
    // index scan and another account's row is never read. The outbox's claim and the retention of
    // delivered rows stay across accounts (one dispatcher delivers for all; rows are kept by wall time).
    version: 6,
    sql: `
ALTER TABLE verifications ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE history ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE outbox ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE forms ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE verifications DROP CONSTRAINT verifications_pkey;
ALTER TABLE verifications ADD PRIMARY KEY (tenant, trace);
DROP INDEX verifications_user_set;
DROP INDEX verifications_parent_set;
DROP INDEX verifications_due;
DROP INDEX verifications_updated;
DROP INDEX verifications_status;
DROP INDEX history_trace;
DROP INDEX outbox_trace;
DROP INDEX outbox_delivery;
DROP INDEX outbox_state;
DROP INDEX outbox_queued_trace;
DROP INDEX forms_created;
CREATE INDEX verifications_seq ON verifications (tenant, seq);
CREATE INDEX verifications_user_set ON verifications (tenant, user_id, seq) WHERE user_id IS NOT NULL;
CREATE INDEX verifications_parent_set ON verifications (tenant, parent_trace) WHERE parent_trace IS NOT NULL;
CREATE INDEX verifications_due ON verifications (tenant, due_at) WHERE due_at IS NOT NULL;
CREATE INDEX verifications_updated ON verifications (tenant, updated_at);
CREATE INDEX verifications_status ON verifications (tenant, verification_status, seq);
CREATE INDEX history_trace ON history (tenant, trace, id);
CREATE INDEX outbox_trace ON outbox (tenant, trace, id);
CREATE INDEX outbox_delivery ON outbox (tenant, delivery_id);
CREATE INDEX outbox_id ON outbox (tenant, id);
CREATE INDEX outbox_state ON outbox (tenant, state, id);
CREATE INDEX outbox_queued_trace ON outbox (tenant, trace, url, id) WHERE state = 'queued';
CREATE INDEX forms_created ON forms (tenant, created_at)`,
  },
  {
    // The claim's cost independent of how many deliveries are queued (outbox.ts, due): it walks the queued
    // rows by due time and stops at the first not yet due, so rows waiting for a retry (a dead receiver's)
    // are never read; each candidate's place in its (trace, receiver) queue is one probe of
    // outbox_queued_trace. Before, it walked every queued row by id and filtered those not due. The index
    // of queued ids goes: with it the planner could test a candidate's place by walking every queued row
    // in id order (it did, on Postgres, when few were queued), and PGlite's statistics are never renewed
    // (no autovacuum), so a plan chosen for 100 queued rows would stay at 100,000.
    version: 7,
    sql: `
CREATE INDEX outbox_due ON outbox (next_at, id) WHERE state = 'queued';
DROP INDEX outbox_claim`,
  },
  {
    // A big text stored once (shared-text.ts): an outbox row's body may leave out the longest string it
    // shares with its verification's stored request, and say where it goes (body_at) and where it is in
    // the request (body_from, body_len), in characters. Null: the body is whole (every row before this).
    version: 8,
    sql: `
ALTER TABLE outbox ADD COLUMN body_at integer;
ALTER TABLE outbox ADD COLUMN body_from integer;
ALTER TABLE outbox ADD COLUMN body_len integer`,
  },
  {
    // Retention takes the oldest verifications in (updated_at, trace) order, the order it locks them in
    // (retention.ts). With the index on (tenant, updated_at) alone every batch read and sorted all the rows
    // of the oldest updated_at before the first: rows written in one group commit share it, and a bench
    // store filled at one instant made each batch of 100 read 25,000 rows (create + GET p99 3.3x during a
    // sweep on PGlite, bench/growth.bench.ts). The index now gives that order itself.
    version: 9,
    sql: `
DROP INDEX verifications_updated;
CREATE INDEX verifications_updated ON verifications (tenant, updated_at, trace)`,
  },
];

/** Postgres's SQLSTATE undefined_table. */
const UNDEFINED_TABLE = "42P01";

/** The newest migration the database holds (0 when none). */
export async function appliedMigration(sql: Sql): Promise<number> {
  const rows = await sql.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations");
  return Number(rows[0]?.v ?? 0);
}

/** Applies the migrations the database does not hold yet (all of `migrations`, the current list by default); the newest version. */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const newest = migrations.at(-1)?.version ?? 0;
  // Up to date (every start from the template, every restart): one read, no transaction, no lock, no DDL
  // (the table is made when the read finds none: a new database). Every version is counted, not the newest
  // alone: a database missing an older one gets it applied.
  const held = await db
    .query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations WHERE version = ANY($1::int[])", [migrations.map((m) => m.version)])
    .catch(async (err: { code?: string }) => {
      if (err?.code !== UNDEFINED_TABLE) throw err;
      await db.query("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
      return [{ n: 0 }];
    });
  if (Number(held[0]?.n) === migrations.length) return newest;
  let current = 0;
  for (const m of migrations) {
    await db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(7301991)");
      const done = await tx.query("SELECT 1 FROM schema_migrations WHERE version = $1", [m.version]);
      if (done.length === 0) {
        for (const statement of m.sql
          .split(/;\s*\n/)
          .map((s) => s.trim())
          .filter(Boolean))
          await tx.query(statement);
        await tx.query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [m.version, Date.now()]);
      }
    });
    current = m.version;
  }
  return current;
}
