// Runs the conformance vectors' webhook cases (generated/conformance/webhooks.json) through the generated
// kit, with nothing but the Web platform: the same module runs on Node, Deno, Bun, workerd and in
// Chromium (bundled by bundle.ts). The body takes each accepted form in turn (Uint8Array, ArrayBuffer,
// string) and the headers a plain object or a fetch `Headers`, so each runtime sees every form.
import { MemoryReplayStore, verifyWebhook, verifyWebhookRequest } from "../../../generated/webhooks.js";

export interface WebhookDelivery {
  readonly secrets: string[];
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly now: number;
  readonly allowBodySignature?: boolean;
  readonly expect: { readonly verdict: string; readonly reason?: string };
}

export interface WebhookVectorFile {
  readonly cases: ReadonlyArray<WebhookDelivery & { readonly id: string }>;
  readonly sequences: ReadonlyArray<{ readonly id: string; readonly steps: readonly WebhookDelivery[] }>;
}

export interface VectorReport {
  readonly runtime: string;
  readonly cases: number;
  readonly sequences: number;
  readonly deliveries: number;
  readonly failures: string[];
}

type Verdict = { verdict: string; reason?: string };

const encoder = new TextEncoder();

function bodyForm(body: string, turn: number): Uint8Array | ArrayBuffer | string {
  const bytes = encoder.encode(body);
  if (turn % 3 === 0) return bytes;
  if (turn % 3 === 1) return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return body;
}

/** A `Headers` merges names differing only in case: kept as a plain object when the vector has such names. */
function headerForm(headers: Record<string, string>, turn: number): Record<string, string> | Headers {
  const names = Object.keys(headers).map((n) => n.toLowerCase());
  if (turn % 2 === 0 || new Set(names).size !== names.length) return headers;
  return new Headers(headers);
}

async function verdictOf(run: () => Promise<unknown>): Promise<Verdict> {
  try {
    await run();
    return { verdict: "accept" };
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    if (typeof reason !== "string") throw error;
    return { verdict: "reject", reason };
  }
}

function inputOf(d: WebhookDelivery, store: MemoryReplayStore) {
  return { secret: d.secrets, now: d.now, replayStore: store, ...(d.allowBodySignature ? { allowBodySignature: true } : {}) };
}

/** One delivery through `verifyWebhook`, in the body and header forms of `turn`. */
export function verifyDelivery(d: WebhookDelivery, store: MemoryReplayStore, turn: number): Promise<Verdict> {
  return verdictOf(() => verifyWebhook({ ...inputOf(d, store), rawBody: bodyForm(d.body, turn), headers: headerForm(d.headers, turn) }));
}

/** One delivery as a Fetch API `Request` through `verifyWebhookRequest`. */
export function verifyDeliveryRequest(request: Request, d: Omit<WebhookDelivery, "body" | "headers">, store: MemoryReplayStore): Promise<Verdict> {
  return verdictOf(() => verifyWebhookRequest(request, inputOf({ ...d, body: "", headers: {} }, store)));
}

function same(got: Verdict, want: WebhookDelivery["expect"]): boolean {
  return got.verdict === want.verdict && (want.verdict === "accept" || got.reason === want.reason);
}

/** Every case and every replay sequence (one store per sequence); failures name the case and what it got. */
export async function runWebhookVectors(file: WebhookVectorFile, runtime: string): Promise<VectorReport> {
  const failures: string[] = [];
  let turn = 0;
  for (const c of file.cases) {
    const got = await verifyDelivery(c, new MemoryReplayStore({ now: () => c.now }), turn++);
    if (!same(got, c.expect)) failures.push(`${c.id}: got ${JSON.stringify(got)}, want ${JSON.stringify(c.expect)}`);
  }
  let deliveries = file.cases.length;
  for (const sequence of file.sequences) {
    let now = 0;
    const store = new MemoryReplayStore({ now: () => now });
    for (const [i, step] of sequence.steps.entries()) {
      now = step.now;
      deliveries++;
      const got = await verifyDelivery(step, store, turn++);
      if (!same(got, step.expect)) failures.push(`${sequence.id} step ${i + 1}: got ${JSON.stringify(got)}, want ${JSON.stringify(step.expect)}`);
    }
  }
  return { runtime, cases: file.cases.length, sequences: file.sequences.length, deliveries, failures };
}
