// Tenants on Postgres: the isolation suite (tenants-isolation.ts) over a real server started here; skipped
// with one line when postgresql is not installed (fails instead under VERISPEC_REQUIRE_SERVICES=1).
import { afterAll, beforeAll, describe } from "vitest";
import { POSTGRES_INSTALL, serverTool, startPostgres, type LocalPostgres } from "../support/postgres.js";
import { needFound } from "../support/services.js";
import { isolationSuite } from "./tenants-isolation.js";

const initdb = needFound("initdb", serverTool("initdb"), POSTGRES_INSTALL);
const pgCtl = initdb.found ? needFound("pg_ctl", serverTool("pg_ctl"), POSTGRES_INSTALL) : initdb;

describe.skipIf(!initdb.found || !pgCtl.found)("tenants on Postgres: each sees only its own data", () => {
  let server: LocalPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres({ initdb: initdb.path, pgCtl: pgCtl.path });
  }, 120_000);
  afterAll(() => server?.stop());
  isolationSuite(() => server!.url);
});
