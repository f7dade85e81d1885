// verispec/sandbox (templates/sandbox/api.ts): a test suite's in-process start with defaults: a free port
// on 127.0.0.1, PGlite in memory, fresh credentials on the handle (or the caller's), close() stops it.
import { describe, expect, it } from "vitest";
import { startSandbox } from "../../templates/sandbox/api.js";
import { startSandbox as startRuntime } from "../../templates/sandbox/index.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { ROOT } from "./helpers.js";
import { binding } from "./inprocess.js";

const basic = (uid: string, secret: string) => `Basic ${Buffer.from(`${uid}:${secret}`).toString("base64")}`;
const create = (url: string, authorization: string) =>
  fetch(`${url}/v5/verifications`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ type: "individual", subType: "data", country: "AUS", name: "Pat Example", website: "https://example.com" }),
  });

describe("startSandbox() of verispec/sandbox", { timeout: 120_000 }, () => {
  it("listens on a free port of 127.0.0.1 with fresh test credentials that it accepts, and close() stops it", async () => {
    const a = await startSandbox();
    const b = await startSandbox({ processingMs: "manual" });
    try {
      expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(a.url).not.toBe(b.url);
      expect(a.serviceUid).toMatch(/^sandbox-[0-9a-f]{8}$/);
      expect([a.secret, a.signingSecret].every((s) => /^[A-Za-z0-9_-]{24,}$/.test(s))).toBe(true);
      expect(new Set([a.serviceUid, b.serviceUid]).size).toBe(2);
      expect(new Set([a.secret, b.secret, a.signingSecret, b.signingSecret]).size).toBe(4);
      expect((await create(a.url, basic(a.serviceUid, a.secret))).status).toBe(200);
      // Metrics only when asked for.
      expect((await fetch(`${a.url}/metrics`)).status).toBe(404);
      expect((await create(a.url, basic(a.serviceUid, b.secret))).status).toBe(401);
      // In memory: b holds nothing of a's.
      expect(
        (
          (await (await fetch(`${b.url}/_sandbox/deliveries`, { headers: { authorization: basic(b.serviceUid, b.secret) } })).json()) as {
            deliveries: unknown[];
          }
        ).deliveries,
      ).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
    await expect(fetch(`${a.url}/healthz`)).rejects.toThrow();
  });

  it("takes the caller's credentials and signing secret", async () => {
    const s = await startSandbox({ serviceUid: "suite-uid", secret: "suite-secret", signingSecret: "suite-signing" });
    try {
      expect([s.serviceUid, s.secret, s.signingSecret]).toEqual(["suite-uid", "suite-secret", "suite-signing"]);
      expect((await create(s.url, basic("suite-uid", "suite-secret"))).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it("a database that cannot be opened: startSandbox() rejects with the store's error", async () => {
    await expect(startSandbox({ db: "postgres://verispec@127.0.0.1:1/none" })).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("the runtime closes the store it was handed when it refuses to start", async () => {
    let closed = 0;
    const store = { close: async () => void (closed += 1) } as unknown as Db;
    const o = {
      binding,
      host: "127.0.0.1",
      port: 0,
      db: "memory",
      cwd: ROOT,
      processingMs: 1000,
      requestedActionsPath: "/x",
      maxBodyBytes: 1,
      deliveryTimeoutMs: 1,
      retryDelaysMs: [],
      log: () => {},
    };
    // No account: refused before the store is used.
    await expect(startRuntime({ ...o, opening: Promise.resolve(store) })).rejects.toMatchObject({ code: "VERISPEC_TENANTS" });
    expect(closed).toBe(1);
  });
});
