// startSandbox in-process (templates/sandbox/index.ts) with --db memory: the store opened through
// openStore (migrations applied), the dispatcher wired to the binding's signer and deliveryId header,
// processing run when the clock is advanced, and close() stopping it all once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryReplayStore, verifyWebhook } from "../../generated/webhooks.js";
import { startSandbox, type RunningSandbox } from "../../templates/sandbox/index.js";
import { migrate } from "../../templates/sandbox/store/migrations.js";
import { basic, CREDENTIALS, ROOT, SIGNING_SECRET, startReceiver, until, v5Individual } from "./helpers.js";
import { binding } from "./inprocess.js";

let sandbox: RunningSandbox;
let rx: Awaited<ReturnType<typeof startReceiver>>;
const logs: string[] = [];

beforeAll(async () => {
  rx = await startReceiver();
  sandbox = await startSandbox({
    binding,
    host: "127.0.0.1",
    port: 0,
    db: "memory",
    cwd: ROOT,
    webhookUrls: [rx.url],
    signatureVersion: "1",
    processingMs: 60_000,
    requestedActionsPath: "/requestedActions",
    maxBodyBytes: 1_000_000,
    credentials: CREDENTIALS,
    signingSecret: SIGNING_SECRET,
    deliveryTimeoutMs: 2000,
    retryDelaysMs: [],
    log: (l) => logs.push(l),
  });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await rx?.close();
});

describe("startSandbox", () => {
  it("listens on the host and port it was given, with the migrations applied", async () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.db.kind).toBe("pglite");
    expect(sandbox.db.exclusive).toBe(true);
    expect((await sandbox.db.query("SELECT version FROM schema_migrations ORDER BY version")).map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await migrate(sandbox.db)).toBe(9);
    expect((await sandbox.db.query("SELECT count(*)::int AS n FROM schema_migrations")).map((r) => r.n)).toEqual([9]);
    const indexes = (await sandbox.db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'outbox' ORDER BY indexname")).map((r) => r.indexname);
    expect(indexes).toEqual([
      "outbox_delivery",
      "outbox_done_created",
      "outbox_due",
      "outbox_id",
      "outbox_pkey",
      "outbox_queued_trace",
      "outbox_state",
      "outbox_trace",
    ]);
    const partial = (
      await sandbox.db.query("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'verifications' AND indexname LIKE '%_set' ORDER BY indexname")
    ).map((r) => [r.indexname, String(r.indexdef).replace(/^.* USING /, "")]);
    expect(partial).toEqual([
      ["verifications_parent_set", "btree (tenant, parent_trace) WHERE (parent_trace IS NOT NULL)"],
      ["verifications_user_set", "btree (tenant, user_id, seq) WHERE (user_id IS NOT NULL)"],
    ]);
    // A transaction that throws is rolled back.
    await expect(
      sandbox.db.transaction(async (tx) => {
        await tx.query("INSERT INTO sandbox_meta (key, value) VALUES ('probe', '1')");
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await sandbox.db.query("SELECT 1 FROM sandbox_meta WHERE key = 'probe'")).toEqual([]);
    expect(await sandbox.db.transaction(async (tx) => (await tx.query("SELECT $1::int AS n", [7]))[0])).toEqual({ n: 7 });
  });

  it("delivers signed webhooks with the deliveryId header; advancing the clock runs processing at once", async () => {
    const r = await fetch(`${sandbox.url}/v5/verifications`, {
      method: "POST",
      headers: { authorization: basic(), "content-type": "application/json" },
      body: JSON.stringify(v5Individual("Index Person")),
    });
    expect(r.status).toBe(200);
    const { trace } = (await r.json()) as { trace: string };
    const first = await until(() => rx.deliveries.find((d) => JSON.parse(d.body).trace === trace), "the initial webhook");
    expect(first.headers["x-svc-delivery-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const verified = await verifyWebhook({ rawBody: first.body, headers: first.headers, secret: SIGNING_SECRET, replayStore: new MemoryReplayStore() });
    expect(verified.version).toBe("1");
    const advanced = await fetch(`${sandbox.url}/_sandbox/clock`, {
      method: "POST",
      headers: { authorization: basic(), "content-type": "application/json" },
      body: JSON.stringify({ advanceMs: 60_000 }),
    });
    expect(advanced.status).toBe(200);
    const done = await until(
      () => rx.deliveries.find((d) => JSON.parse(d.body).trace === trace && JSON.parse(d.body).verificationStatus === "verified"),
      "the completion webhook",
    );
    expect(JSON.parse(done.body).attempt).toBe(1);
    const form = await fetch(`${sandbox.url}/idform`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        metadata_version: "4",
        metadata_serviceUid: CREDENTIALS.serviceUid,
        metadata_secretKey: CREDENTIALS.secret,
        serviceLink_dataAccessType: "idForm",
        type: "soleTrader",
        fields: { country: "AUS", name: "T", principalPlaceOfBusiness: "x", abn: "51824753556" },
      }),
    });
    expect(((await form.json()) as { serviceLink: string }).serviceLink.startsWith(`${sandbox.url}/_form/`)).toBe(true);
    expect(logs).toEqual([]);
  });

  it("close() stops the server and closes the database, once however often it is called", async () => {
    const own = sandbox;
    const a = own.close();
    const b = own.close();
    expect(a).toBe(b);
    await a;
    await expect(fetch(`${own.url}/_sandbox`)).rejects.toThrow();
    await expect(own.db.query("SELECT 1")).rejects.toThrow();
  });
});
