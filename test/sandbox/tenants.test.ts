// Tenants on PGlite: the isolation suite (tenants-isolation.ts) over a database in memory, the signing of a
// row whose tenant is no longer configured, each tenant's processing and retention on its own clock, and
// the rows stored before tenants (migration 6) belonging to the tenant default.
import { describe, expect, it } from "vitest";
import { signer } from "../../templates/sandbox/index.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import { sweep } from "../../templates/sandbox/retention.js";
import { loadClockOffset, saveClockOffset } from "../../templates/sandbox/store/clock.js";
import { formTenant } from "../../templates/sandbox/store/forms.js";
import { DEFAULT_TENANT, type Db } from "../../templates/sandbox/store/index.js";
import { MIGRATIONS, migrate } from "../../templates/sandbox/store/migrations.js";
import { pgliteDb } from "../../templates/sandbox/store/pglite-open.js";
import { pgliteInMemory } from "../../templates/sandbox/store/template.js";
import { findVerification } from "../../templates/sandbox/store/verifications.js";
import { v5Individual } from "./helpers.js";
import { binding, memoryDb, testService } from "./inprocess.js";
import { isolationSuite, TENANT_A, TENANT_B } from "./tenants-isolation.js";

describe("tenants on PGlite: each sees only its own data", () => isolationSuite(() => "memory"));

describe("signing a tenant's webhook", () => {
  const sign = signer(binding, [{ ...TENANT_A, webhookUrls: [], signatureVersion: "2" }]);
  it("with the tenant's signing secret; a tenant no longer configured is not signed (the delivery fails and is retried)", () => {
    // Version 1's digest headers carry no time: the same body and secret give the same headers.
    const headers = sign("1", "{}", TENANT_A.name);
    expect(headers).toEqual(binding.signWebhook({ version: "1", rawBody: "{}", secret: TENANT_A.signingSecret }));
    expect(headers).not.toEqual(binding.signWebhook({ version: "1", rawBody: "{}", secret: TENANT_B.signingSecret }));
    expect(() => sign("2", "{}", "team-gone")).toThrow("no tenant team-gone in this sandbox's configuration: not signed, not sent");
  });
});

describe("tenants in the store: processing, retention and what was stored before tenants", () => {
  const DAY = 86_400_000;
  // Long enough that A's real-time clock cannot reach it during the test, however loaded the machine.
  const PROCESSING_MS = 600_000;
  const serviceOf = (db: Db, tenant: string, clock: SandboxClock) => testService(db, { clock, processingMs: PROCESSING_MS, tenant });

  it("each tenant's processing and retention run on its own clock and rows: advancing B's touches none of A's", async () => {
    const db = await memoryDb();
    try {
      const [clockA, clockB] = [new SandboxClock(), new SandboxClock()];
      const [a, b] = [serviceOf(db, "team-a", clockA), serviceOf(db, "team-b", clockB)];
      const { trace: ta } = await a.createV5({ ...v5Individual("Alice Person") });
      const { trace: tb } = await b.createV5({ ...v5Individual("Bob Person") });
      await b.advanceClock(PROCESSING_MS + 1000); // stored under B's key: A's processing reads its own
      expect(await a.processDue()).toBe(0); // A's clock: not due yet
      expect(await b.processDue()).toBe(1);
      expect((await a.get(ta))!.verificationStatus).toBe("pending");
      expect((await b.get(tb))!.verificationStatus).not.toBe("pending");
      // Retention by each tenant's clock: B's 31 days on removes B's verification only.
      await b.advanceClock(31 * DAY);
      const swept = await sweep(db, {
        days: 30,
        now: Date.now,
        pauseMs: 0,
        tenants: [
          { name: "team-a", now: () => clockA.now() },
          { name: "team-b", now: () => clockB.now() },
        ],
      });
      expect(swept.verifications).toBe(1);
      expect(await a.get(ta)).toBeDefined();
      expect(await b.get(tb)).toBeUndefined();
      // One tenant's trace is not another's: B asking for A's is undefined, as an unknown one.
      expect(await b.get(ta)).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it("each tenant's clock offset is kept under its own key; the default tenant keeps the key stored before tenants", async () => {
    const db = await memoryDb();
    try {
      await saveClockOffset(db, DEFAULT_TENANT, 1000);
      await saveClockOffset(db, "team-a", 2000);
      await saveClockOffset(db, "team-a", 3000); // replaced, not added
      expect((await db.query("SELECT key, value FROM sandbox_meta WHERE key LIKE 'clockOffset%' ORDER BY key")).map((r) => [r.key, r.value])).toEqual([
        ["clockOffset", "1000"],
        ["clockOffset:team-a", "3000"],
      ]);
      expect([await loadClockOffset(db, DEFAULT_TENANT), await loadClockOffset(db, "team-a"), await loadClockOffset(db, "team-b")]).toEqual([1000, 3000, 0]);
    } finally {
      await db.close();
    }
  });

  it("rows stored before migration 6 belong to the tenant default, and only to it", async () => {
    const db = pgliteDb(await pgliteInMemory());
    try {
      await db.query("CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
      for (const m of MIGRATIONS.filter((x) => x.version <= 5)) {
        for (const statement of m.sql
          .split(/;\s*\n/)
          .map((s) => s.trim())
          .filter(Boolean))
          await db.query(statement);
        await db.query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)", [m.version]);
      }
      await db.query(`INSERT INTO verifications (trace, api, submission_id, type, name, request, verification_status, submission_status, attempt, outcome, created_at, updated_at, user_id)
        VALUES ('before-tenants', 'v5', 's', 'individual', 'Old Person', '{}', 'pending', 'submitted', 1, 'verified', 1, 1, 'old-user')`);
      await db.query("INSERT INTO forms (id, request, created_at) VALUES ('old-form', '{}', 1)");
      expect(await migrate(db)).toBeGreaterThanOrEqual(6);
      expect(await findVerification(db, DEFAULT_TENANT, "before-tenants")).toMatchObject({ name: "Old Person", userId: "old-user" });
      expect(await findVerification(db, "team-a", "before-tenants")).toBeUndefined();
      expect(await formTenant(db, "old-form")).toBe(DEFAULT_TENANT);
      // The key is (tenant, trace): another tenant may hold the same trace.
      await db.query(`INSERT INTO verifications (tenant, trace, api, submission_id, type, name, request, verification_status, submission_status, attempt, outcome, created_at, updated_at)
        VALUES ('team-a', 'before-tenants', 'v5', 's', 'individual', 'New Person', '{}', 'pending', 'submitted', 1, 'verified', 1, 1)`);
      expect((await findVerification(db, "team-a", "before-tenants"))!.name).toBe("New Person");
      expect((await findVerification(db, DEFAULT_TENANT, "before-tenants"))!.name).toBe("Old Person");
    } finally {
      await db.close();
    }
  }, 120_000);
});
