// Tenants on Postgres: the isolation suite (tenants-isolation.ts) over a real server started here; skipped
// with one line when postgresql is not installed (fails instead under VERISPEC_REQUIRE_SERVICES=1).
import { afterAll, beforeAll, describe } from "vitest";
import { needPostgres, startPostgres, type LocalPostgres } from "../support/postgres.js";
import { isolationSuite } from "./tenants-isolation.js";

const postgres = needPostgres();

describe.skipIf(!postgres.found)("tenants on Postgres: each sees only its own data", () => {
  let server: LocalPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres(postgres.tools);
  }, 120_000);
  afterAll(() => server?.stop());
  isolationSuite(() => server!.url);
});
