/**
 * Webhook verification (issues 5, 14, 37 and 41): `verifyWebhook` with signature version 2 beside
 *  - the floor of any verifier that returns the parsed payload and reads its timestamp (seed: 6.4):
 *    one `createHmac("sha256", key).update(bytes).digest()` plus one `JSON.parse` of the body;
 *  - the bare digest alone (for scale: parsing a 2 kB body costs about twice the HMAC);
 *  - the `standardwebhooks` library's `verify` (HMAC-SHA256 too, over id.timestamp.body, returning
 *    the parsed payload), on the same bytes.
 *  - the floor computed as the runtime now can on every runtime: Web Crypto (`crypto.subtle.verify` HMAC,
 *    `crypto.subtle.digest` SHA-256) and @noble/hashes (HMAC and SHA-256 in JavaScript), each plus
 *    `JSON.parse`, to show what the choice between them costs;
 * Payloads: a v5 webhook padded with tags to about 2 kB, and a realistic v5 entity webhook (seed: 6.2)
 * with screening and risk, not padded.
 *
 * Measured by bench/lib/harness.ts (each pair in a fresh process): npm run bench -- webhooks
 */
import { createHmac, hash } from "node:crypto";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { Webhook } from "standardwebhooks";
import { createWebhookKit, type ReplayStore, type WebhookRules } from "../templates/webhooks/index.js";
import type { Batch, ThroughputSuite } from "./lib/suite.js";

const SECRET = "whsec_bench_0123456789abcdef";
/** standardwebhooks takes a base64 key after its `whsec_` prefix: the same key bytes. */
const STANDARD_SECRET = `whsec_${Buffer.from(SECRET).toString("base64")}`;

/** Only the tolerance and the signature headers matter here; statuses and transitions are not used by verification. */
const BENCH_RULES: WebhookRules = {
  toleranceMs: 300_000,
  signatures: {
    versionHeader: "X-Svc-Signature-version",
    v2: { name: "X-Svc-Signature", prefix: "sha256=", version: "2" },
    v1: {
      version: "1",
      sha: { name: "X-Svc-Signature-SHA", prefix: "svc_sec_sha256_" },
      keccak: { name: "X-Svc-Signature-KECCAK", prefix: "svc_sec_keccak256_" },
    },
  },
  statuses: {},
  outcomes: { processing: "", verified: "", retry_possible: "", final_rejection: "", fetch_details: "", stakeholder_removed: "", locked: "" },
  transitions: [],
  conditions: {},
  retryCondition: "canRetry",
  rejectionOutcomes: { retry: "retry_possible", final: "final_rejection" },
};

/** A v5 payload (seed: 6.2) padded with tags to about 2 kB. */
export function benchPayload(now: number, targetBytes = 2048): Buffer {
  const payload = {
    version: "v5",
    userId: "cust-42",
    onBehalfUid: "obo-1",
    tags: [] as string[],
    trace: "5b0c1e8a-0d7c-4e55-9a53-2f2a8c1f0a11",
    submissionId: "sub-77",
    name: "Acme Pty Ltd",
    country: "AUS",
    type: "company",
    subType: "none",
    verificationStatus: "verified",
    submissionStatus: "submitted",
    attempt: 1,
    maxAttempts: 5,
    timestamp: now,
  };
  while (Buffer.byteLength(JSON.stringify(payload)) < targetBytes - 24) payload.tags.push(`tag:${payload.tags.length}`);
  return Buffer.from(JSON.stringify(payload));
}

/** A realistic v5 entity webhook (seed: 6.2): screening has run, risk calculated, no padding. */
export function realisticPayload(now: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: "v5",
      userId: "customer-42",
      onBehalfUid: "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
      tags: ["segment:retail", "region:apac"],
      trace: "5b0c1e8a-0d7c-4e55-9a53-2f2a8c1f0a11",
      submissionId: "8d7e6f5a-4b3c-4d2e-9f1a-0b9c8d7e6f5a",
      name: "Example Family Trust",
      country: "AUS",
      type: "trust",
      subType: "discretionaryTrust",
      inputRisk: "low",
      idvRisk: "low",
      screening: { watchlist: { status: "clear", totalHits: 0, lastScreenedAt: now - 60_000, lastScreenedTime: new Date(now - 60_000).toISOString() } },
      verificationStatus: "rejected",
      submissionStatus: "submitted",
      attempt: 2,
      maxAttempts: 5,
      timestamp: now,
    }),
  );
}

/** A store that never refuses: the bench repeats one delivery and measures verification, not replay handling. */
const acceptAll: ReplayStore = { addIfAbsent: () => true };

const PAYLOADS: Readonly<Record<string, { readonly label: string; readonly body: (now: number) => Buffer }>> = {
  "2kb": { label: "v5 webhook padded to 2 kB", body: benchPayload },
  realistic: { label: "realistic v5 entity webhook", body: realisticPayload },
};

async function operation(impl: string, rawBody: Buffer, now: number): Promise<() => unknown> {
  switch (impl) {
    case "verispec": {
      const kit = createWebhookKit({ rules: BENCH_RULES, replayStore: acceptAll });
      const input = { rawBody, headers: kit.signWebhook({ version: "2", rawBody, secret: SECRET }), secret: SECRET, now };
      await kit.verifyWebhook(input); // fails loudly here if the setup is wrong
      return () => kit.verifyWebhook(input);
    }
    case "floor-webcrypto": {
      const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
      const bytes = new Uint8Array(rawBody);
      const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
      return async () => {
        const [ok, digest] = await Promise.all([crypto.subtle.verify("HMAC", key, signature, bytes), crypto.subtle.digest("SHA-256", bytes)]);
        return (ok ? 1 : 0) + digest.byteLength + (JSON.parse(rawBody.toString("utf8")) as { attempt: number }).attempt;
      };
    }
    case "floor-noble": {
      const key = new TextEncoder().encode(SECRET);
      return () => hmac(sha256, key, rawBody).length + sha256(rawBody).length + (JSON.parse(rawBody.toString("utf8")) as { attempt: number }).attempt;
    }
    case "floor":
      return () => createHmac("sha256", SECRET).update(rawBody).digest().length + (JSON.parse(rawBody.toString("utf8")) as { attempt: number }).attempt;
    case "floor-replay":
      // The floor plus the delivery identity every accepted webhook needs (SHA-256 of the bytes, the replay key).
      return () =>
        createHmac("sha256", SECRET).update(rawBody).digest().length +
        hash("sha256", rawBody, "hex").length +
        (JSON.parse(rawBody.toString("utf8")) as { attempt: number }).attempt;
    case "hmac":
      return () => createHmac("sha256", SECRET).update(rawBody).digest().length;
    case "standardwebhooks": {
      const wh = new Webhook(STANDARD_SECRET);
      const id = "msg_2aGx8nQ3Yp1vT0mK";
      const at = new Date();
      const headers = { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": wh.sign(id, at, rawBody) };
      wh.verify(rawBody, headers);
      return () => wh.verify(rawBody, headers);
    }
    default:
      throw new Error(`unknown implementation ${impl}`);
  }
}

export const throughput: ThroughputSuite = {
  kind: "throughput",
  id: "webhooks",
  title: "Webhook verification",
  notes: [
    "verispec: `createWebhookKit(...).verifyWebhook` with signature version 2 (headers, constant-time comparison, `JSON.parse`, timestamp",
    "tolerance, replay store), payload schema validation off. Floor: one HMAC-SHA256 of the body plus one `JSON.parse`; the bound",
    "adds a SHA-256 of the body (the replay key until issue 41; since then the key is derived from the HMAC: templates/webhooks/replay.ts). Since issue 37 the runtime imports no",
    "Node built-in: where the runtime gives out its crypto (process.getBuiltinModule: Node, Bun, Deno) HMAC and SHA-256 are native,",
    "elsewhere @noble/hashes (JavaScript). (The copy of the previous node:crypto runtime measured beside it until issue 40 is gone:",
    "the floor and the Web Crypto and @noble/hashes bounds are the peers.)",
  ],
  payloads: Object.entries(PAYLOADS).map(([id, p]) => ({ id, label: `${p.label}` })),
  impls: [
    { id: "verispec", label: "verispec `verifyWebhook` v2" },
    { id: "floor-noble", label: "@noble/hashes HMAC + SHA-256 + `JSON.parse` (this runtime's bound)" },
    { id: "floor-webcrypto", label: "Web Crypto `subtle.verify` + `subtle.digest` + `JSON.parse`" },
    { id: "floor", label: "floor: `createHmac` + `JSON.parse`" },
    { id: "floor-replay", label: "floor + a SHA-256 of the body (the replay key before issue 41: the old bound)" },
    { id: "hmac", label: "bare `createHmac` sha256 (for scale)" },
    { id: "standardwebhooks", label: "`standardwebhooks` `verify`" },
  ],
  ours: "verispec",
  targets: [
    { peer: "floor", min: 0.9 },
    { peer: "standardwebhooks", min: 1.5 },
  ],
  async load(payload, impl): Promise<Batch> {
    const p = PAYLOADS[payload];
    if (!p) throw new Error(`unknown payload ${payload}`);
    const now = Date.now();
    const op = await operation(impl, p.body(now), now);
    return async (n) => {
      let sink = 0;
      for (let i = 0; i < n; i++) {
        const out = op();
        sink += (out instanceof Promise ? await out : out) ? 1 : 0;
      }
      return sink;
    };
  },
};

export const suites = [throughput];
