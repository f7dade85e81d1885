// Issue 37, section 2: the receivers of docs/webhooks.md on the real frameworks (Express 5, Fastify 5,
// Hono on @hono/node-server) receive the sandbox's own signed deliveries (both signature versions, both
// payload formats): every delivery verified and handed on once; a tampered one refused with 400, one
// over the size limit with 413, and nothing refused reaches the handler.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookPayload } from "../../generated/webhooks.js";
import { allDocs } from "../support/docs.js";
import { harness, memoryDb, outbox } from "../sandbox/inprocess.js";
import { olderIndividual, ROOT, SIGNING_SECRET, startReceiver, until, v5Individual, type Delivery } from "../sandbox/helpers.js";
import { expressReceiver } from "./frameworks/express-receiver.js";
import { fastifyReceiver } from "./frameworks/fastify-receiver.js";
import { honoReceiver } from "./frameworks/hono-receiver.js";

type Name = "express" | "fastify" | "hono";
const NAMES: readonly Name[] = ["express", "fastify", "hono"];
const handled: Record<Name, WebhookPayload[]> = { express: [], fastify: [], hono: [] };
const urls = {} as Record<Name, string>;
const closers: Array<() => Promise<void>> = [];

async function listen(name: Name): Promise<void> {
  const handle = async (payload: WebhookPayload) => void handled[name].push(payload);
  if (name === "express") {
    const server = expressReceiver(SIGNING_SECRET, handle).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    urls.express = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  } else if (name === "fastify") {
    const app = fastifyReceiver(SIGNING_SECRET, handle);
    urls.fastify = `${await app.listen({ port: 0, host: "127.0.0.1" })}/webhooks`;
    closers.push(() => app.close());
  } else {
    const server = serve({ fetch: honoReceiver(SIGNING_SECRET, handle).fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    urls.hono = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  }
}

const recorded: { url: string; deliveries: Delivery[] } = { url: "", deliveries: [] };
beforeAll(async () => {
  for (const name of NAMES) await listen(name);
  const recorder = await startReceiver();
  recorded.deliveries = recorder.deliveries;
  recorded.url = recorder.url;
  closers.push(() => recorder.close());
}, 60_000);
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

function post(url: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
}

/** The signature headers of a recorded delivery, as sent. */
function signatureHeaders(d: Delivery): Record<string, string> {
  return Object.fromEntries(
    Object.entries(d.headers)
      .filter(([k]) => k.startsWith("x-svc-signature"))
      .map(([k, v]) => [k, String(v)]),
  );
}

describe.each(["2", "1"] as const)("the sandbox's deliveries signed with version %s", (version) => {
  it("each framework's receiver verifies every delivery; a tampered one is refused with 400, an oversize one with 413", async () => {
    for (const name of NAMES) handled[name].length = 0;
    recorded.deliveries.length = 0;
    const db = await memoryDb();
    const h = await harness(db, { webhookUrls: [...NAMES.map((n) => urls[n]), recorded.url], signatureVersion: version });
    try {
      const { trace } = await h.service.createV5(
        v5Individual(`Framework Person ${version}`, `framework-user-${version}`) as unknown as Record<string, unknown>,
      );
      const older = await h.service.verifyOlder(olderIndividual(`Framework${version}`, `framework-older-${version}`));
      const rowsOf = async () => [...(await outbox(db, trace)), ...(await outbox(db, older.trace))];
      await until(
        async () => {
          const rows = await rowsOf();
          // A framework may answer before its handler has run: wait for both, not only the outbox's record.
          return rows.length === 2 * (NAMES.length + 1) && rows.every((r) => r.state === "delivered") && NAMES.every((n) => handled[n].length >= 2);
        },
        "every delivery delivered",
        20_000,
      ).catch(async (error: Error) => {
        const rows = (await rowsOf()).map((r) => `${String(r.url)} ${String(r.state)}`);
        throw new Error(`${error.message}: ${JSON.stringify(rows)} ${JSON.stringify(h.logs)}`);
      });

      const stored = [...(await outbox(db, trace)), ...(await outbox(db, older.trace))];
      const bodies = [...new Set(stored.map((r) => String(r.body)))].sort();
      expect(bodies).toHaveLength(2);
      for (const name of NAMES) {
        expect(handled[name].map((p) => JSON.stringify(p)).sort(), name).toEqual(bodies.map((b) => JSON.stringify(JSON.parse(b))).sort());
      }

      const delivery = recorded.deliveries.find((d) => d.body.includes(trace))!;
      // Change the trace's last character to one it is not (a trace may already end in "0").
      const last = trace.endsWith("0") ? "1" : "0";
      const tampered = delivery.body.replace(`"${trace}"`, `"${trace.slice(0, -1)}${last}"`);
      expect(tampered).not.toBe(delivery.body);
      const oversize = new Uint8Array(64 * 1024 + 1).fill(0x20);
      for (const name of NAMES) {
        const refused = await post(urls[name], tampered, signatureHeaders(delivery));
        expect(refused.status, `${name}: tampered`).toBe(400);
        if (name !== "fastify") expect(await refused.json(), name).toMatchObject({ error: "signature_mismatch" });
        expect((await post(urls[name], oversize, signatureHeaders(delivery))).status, `${name}: oversize`).toBe(413);
        // The re-sent original is a replay of a delivery already accepted: refused too.
        expect((await post(urls[name], delivery.body, signatureHeaders(delivery))).status, `${name}: replay`).toBe(400);
        expect(handled[name], name).toHaveLength(2);
      }
    } finally {
      await h.close();
      await db.close();
    }
  }, 60_000);
});

describe("docs/webhooks.md shows these receivers as written", () => {
  it.each(["express", "fastify", "hono"])("the %s receiver", (name) => {
    const source = readFileSync(join(import.meta.dirname, "frameworks", `${name}-receiver.ts`), "utf8")
      .replace('"../../../generated/webhooks.js"', '"verispec/webhooks"')
      .replace(`"../../../generated/runtime/webhooks/${name}.js"`, `"verispec/webhooks/${name}"`);
    expect(allDocs(ROOT)).toContain(`\`\`\`ts\n${source}\`\`\``);
  });
});
