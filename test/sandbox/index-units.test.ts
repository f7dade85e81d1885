// startSandbox's refusals in-process (templates/sandbox/index.ts), each started inside its test: the accounts'
// checks, a stored clock out of range (and --reset-clock), and a listen that fails. The CLI tests drive the same
// through a child process; these run under mutation too.
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { StartError, startSandbox, tenantsOf } from "../../templates/sandbox/index.js";
import { describeDb } from "../../templates/sandbox/store/index.js";
import { CREDENTIALS, SIGNING_SECRET } from "./helpers.js";
import { binding, inProcessOptions, memoryDb } from "./inprocess.js";
import { rejectionOf } from "../support/rejection.js";

const BASE = inProcessOptions;
const tenant = (name: string, serviceUid: string) => ({
  name,
  credentials: { serviceUid, secret: `${name}-secret` },
  signingSecret: `${name}-signing`,
  webhookUrls: [],
  signatureVersion: "2" as const,
});

/** The StartError a start rejects with. */
async function refusal(start: Promise<unknown>): Promise<StartError> {
  const err = await rejectionOf(start, StartError);
  expect(err.name).toBe("StartError");
  return err;
}

describe("tenantsOf: the accounts of the options", () => {
  it("the single-account options are the default tenant, signature version 2 and no receivers unless given", () => {
    expect(tenantsOf(BASE)).toEqual([{ name: "default", credentials: CREDENTIALS, signingSecret: SIGNING_SECRET, webhookUrls: [], signatureVersion: "2" }]);
    expect(tenantsOf({ ...BASE, webhookUrls: ["http://x/"], signatureVersion: "1" })[0]).toMatchObject({ webhookUrls: ["http://x/"], signatureVersion: "1" });
    expect(tenantsOf({ ...BASE, signingSecret: "" })[0]!.signingSecret).toBe("");
  });
  it("no account, two of one name, or two with one service UID: a one-line refusal that names tenants, never the UID", () => {
    for (const o of [
      { ...BASE, credentials: undefined },
      { ...BASE, signingSecret: undefined },
      { ...BASE, tenants: [] },
    ]) {
      expect(() => tenantsOf(o)).toThrow(new StartError("the sandbox needs an account: credentials and a signing secret, or tenants", "VERISPEC_TENANTS"));
    }
    const named = (() => {
      try {
        tenantsOf({ ...BASE, tenants: [tenant("a", "u1"), tenant("b", "u2"), tenant("a", "u3")] });
      } catch (e) {
        return e as StartError;
      }
    })();
    expect([named?.message, named?.code]).toEqual(["two tenants are named a", "VERISPEC_TENANTS"]);
    const uid = (() => {
      try {
        tenantsOf({ ...BASE, tenants: [tenant("a", "secret-uid"), tenant("b", "u2"), tenant("c", "secret-uid")] });
      } catch (e) {
        return e as StartError;
      }
    })();
    expect([uid?.message, uid?.code]).toEqual(["two tenants have one service UID (a, c)", "VERISPEC_TENANTS"]);
    const tenants = [tenant("a", "u1"), tenant("b", "u2")];
    expect(tenantsOf({ ...BASE, tenants })).toBe(tenants);
  });
  it("startSandbox refuses such options before opening anything, and closes a store it was handed", async () => {
    const db = await memoryDb();
    const err = await refusal(startSandbox({ ...BASE, tenants: [tenant("a", "u1"), tenant("a", "u2")], opening: Promise.resolve(db) }));
    expect(err.code).toBe("VERISPEC_TENANTS");
    await expect(db.query("SELECT 1")).rejects.toThrow();
  });
});

describe("a stored clock out of range", () => {
  const MAX = binding.spec.choices.controlApi!.maxClockOffsetMs as number;
  it("is a start-up refusal naming the tenant and how to reset it; the store is closed", async () => {
    const db = await memoryDb();
    await db.query("INSERT INTO sandbox_meta (key, value) VALUES ('clockOffset:t1', $1)", [String(MAX + 1)]);
    const err = await refusal(startSandbox({ ...BASE, tenants: [tenant("t0", "u0"), tenant("t1", "u1")], opening: Promise.resolve(db) }));
    expect([err.code, err.message]).toEqual([
      "VERISPEC_CLOCK_RANGE",
      `the sandbox clock (tenant t1) stored in ${describeDb("memory")} is ${MAX + 1} ms ahead, outside 0 to ${MAX} ms: start once with --reset-clock to set it back to real time`,
    ]);
    await expect(db.query("SELECT 1")).rejects.toThrow();
  });
  it("the default tenant's is named as the sandbox clock; --reset-clock sets it back to 0 and starts", async () => {
    const db = await memoryDb();
    await db.query("INSERT INTO sandbox_meta (key, value) VALUES ('clockOffset', '-1')");
    const err = await refusal(startSandbox({ ...BASE, opening: Promise.resolve(db) }));
    expect(err.message).toBe(
      `the sandbox clock stored in ${describeDb("memory")} is -1 ms ahead, outside 0 to ${MAX} ms: start once with --reset-clock to set it back to real time`,
    );
    const fresh = await memoryDb();
    await fresh.query("INSERT INTO sandbox_meta (key, value) VALUES ('clockOffset', $1)", [String(MAX * 2)]);
    const sandbox = await startSandbox({ ...BASE, resetClock: true, opening: Promise.resolve(fresh) });
    try {
      expect(await fresh.query("SELECT value FROM sandbox_meta WHERE key = 'clockOffset'")).toEqual([{ value: "0" }]);
    } finally {
      await sandbox.close();
    }
  });
  it("an offset within range is restored", async () => {
    const db = await memoryDb();
    await db.query("INSERT INTO sandbox_meta (key, value) VALUES ('clockOffset', '3600000')");
    const sandbox = await startSandbox({ ...BASE, opening: Promise.resolve(db) });
    try {
      const auth = `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}`;
      const state = (await (await fetch(`${sandbox.url}/_sandbox/state`, { headers: { authorization: auth } })).json()) as { clockOffsetMs: number };
      expect(state.clockOffsetMs).toBe(3_600_000);
    } finally {
      await sandbox.close();
    }
  });
});

describe("a listen that fails", () => {
  it("is one line naming the address, the cause in words and its code; the store is closed", async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const db = await memoryDb();
      const err = await refusal(startSandbox({ ...BASE, port, opening: Promise.resolve(db) }));
      expect([err.code, err.message]).toEqual(["VERISPEC_LISTEN", `cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)`]);
      expect((err.cause as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
      await expect(db.query("SELECT 1")).rejects.toThrow();
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
  it("an address not of this machine, and a host name that does not resolve", async () => {
    const notMine = await refusal(startSandbox({ ...BASE, host: "192.0.2.1" }));
    expect(notMine.message).toBe("cannot listen on 192.0.2.1:0: the address is not one of this machine's (EADDRNOTAVAIL)");
    const unresolved = await refusal(startSandbox({ ...BASE, host: "no-such-host.invalid" }));
    expect(unresolved.message).toMatch(/^cannot listen on no-such-host\.invalid:0: the host name does not resolve \((ENOTFOUND|EAI_AGAIN|EAI_NONAME)\)$/);
  });
});
