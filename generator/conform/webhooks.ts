// The webhook checks of `verispec conform --receive-on`: after the run, every delivery the receiver recorded
// is verified with the runtime's own kit, and read for what the kit does not judge: its Content-Type, the
// signature version header (never inferred here), a status the life cycle sends no webhook for, which v1
// digest failed, and, per trace, an order that never goes back (section 6.1).
import type { Model } from "../model/types.js";
import { digestsEqual, keccakDigest, parseDigest, sha3Digest } from "../../templates/webhooks/signature.js";
import type { Received, Receiver } from "./receiver.js";
import type { CheckResult } from "./report.js";
import { isMediaType, presenceChecks } from "./judge.js";
import type { Runtime } from "./runtime.js";

export interface WebhookChecks {
  readonly receiver?: Receiver | undefined;
  readonly signingSecret?: string | undefined;
  readonly webhookWaitMs: number;
}

type Obj = Record<string, unknown>;
const OP = "webhook";
/** At most this many traces are named in one check's text. */
const NAMED_TRACES = 20;

const header = (d: Received, name: string) => {
  const v = d.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

function parsed(body: Buffer): Obj | undefined {
  try {
    const p = JSON.parse(body.toString("utf8")) as unknown;
    return p !== null && typeof p === "object" && !Array.isArray(p) ? (p as Obj) : undefined;
  } catch {
    return undefined;
  }
}

const DIGESTS = { "sha3-256": { name: "SHA3-256", of: sha3Digest }, "keccak-256": { name: "Keccak-256", of: keccakDigest } } as const;

/** Of a version 1 delivery, the digests (by header) that do not match the body with the signing key. */
export function v1Mismatches(model: Model, d: Received, secret: string): string[] {
  const v1 = model.signatures.find((s) => s.version === "1");
  const out: string[] = [];
  for (const h of v1?.headers ?? []) {
    if (h.digest !== "sha3-256" && h.digest !== "keccak-256") continue;
    const value = header(d, h.name);
    if (value === undefined) continue;
    const got = parseDigest(value, h.prefix ?? "");
    const { name, of } = DIGESTS[h.digest];
    if (got === undefined || !digestsEqual(of(secret, d.body), got)) out.push(`${h.name} (${name}) did not match`);
  }
  return out;
}

/** The header every scheme sends with a fixed value: the signature version's (one name across versions, VS439). */
const versionHeader = (model: Model) => model.signatures[0]?.versionHeader.name;

/** One delivery's checks (results pushed); its verified payload, or undefined. */
export async function checkDelivery(model: Model, rt: Runtime, secret: string, d: Received, n: number, results: CheckResult[]): Promise<Obj | undefined> {
  const id = `webhook:delivery-${n}`;
  const push = (what: string, ok: boolean, expected: string, got: string) =>
    results.push(
      ok ? { id: `${id}#${what}`, operation: OP, outcome: "held", expected } : { id: `${id}#${what}`, operation: OP, outcome: "failed", expected, got },
    );
  const type = header(d, "content-type");
  push(
    "content-type",
    isMediaType(type, model.bodyMediaType),
    `Content-Type ${model.bodyMediaType} (a webhook's payload is JSON, the service's specification, section 6)`,
    type === undefined ? "no Content-Type" : `Content-Type ${type}`,
  );
  const vh = versionHeader(model);
  if (vh !== undefined) push("version-header", header(d, vh) !== undefined, `a ${vh} header (the service's specification, section 6.4)`, `no ${vh} header`);
  const body = parsed(d.body);
  const silent = model.verificationStatuses.filter((s) => s.sendsWebhook === false).map((s) => s.value);
  const v5 = model.webhookPayloads.find((p) => p.format === "v5");
  // The current payload's `version` is its format's name, `v5` (the service's specification, section 6.2).
  if (body && v5 && body["version"] === v5.format && typeof body["verificationStatus"] === "string") {
    const status = body["verificationStatus"];
    push(
      "status-sent",
      !silent.includes(status),
      `no webhook for ${silent.join(", ")} (the service's specification, section 3: webhooks for it are currently not sent)`,
      `a webhook for status ${status}`,
    );
  }
  const format = body && v5 && body["version"] === v5.format ? "v5" : "older";
  const schema = body && model.webhookPayloads.find((p) => p.format === format)?.schema;
  if (schema && rt.schemaOf) results.push(...presenceChecks(rt.schemaOf, id, OP, schema, body));
  try {
    const headers = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, v]));
    const { payload } = await rt.verifyWebhook({ rawBody: d.body, headers, secret, now: d.at, replayStore: { addIfAbsent: () => true } });
    push("verified", true, "signature, payload and timestamp verified", "");
    return payload as Obj;
  } catch (e) {
    const reason = (e as { reason?: string }).reason;
    if (reason === undefined) throw e;
    const issues = (e as { errors?: readonly { path: readonly unknown[]; message: string }[] }).errors;
    const digests = reason === "signature_mismatch" && header(d, vh ?? "") !== "2" ? v1Mismatches(model, d, secret) : [];
    const detail = digests.length
      ? `: ${digests.join("; ")}`
      : issues?.length
        ? `: ${issues
            .slice(0, 2)
            .map((x) => `${x.path.join(".")}: ${x.message}`)
            .join("; ")}`
        : "";
    push("verified", false, "signature, payload and timestamp verified with the signing key of VERISPEC_SIGNING_SECRET", `${reason}${detail}`);
    return undefined;
  }
}

/** Section 6.1: for a verification, timestamp always increases; a re-delivery keeps it. The attempt never goes back. */
function checkOrder(byTrace: Map<string, Obj[]>, results: CheckResult[]): void {
  const expected = "timestamps and attempts never decrease (the service's specification, section 6.1)";
  for (const [trace, list] of byTrace) {
    const bad: string[] = [];
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1]!, list[i]!];
      if (typeof a["timestamp"] === "number" && typeof b["timestamp"] === "number" && b["timestamp"] < a["timestamp"])
        bad.push(`timestamp ${b["timestamp"]} after ${a["timestamp"]}`);
      if (typeof a["attempt"] === "number" && typeof b["attempt"] === "number" && b["attempt"] < a["attempt"])
        bad.push(`attempt ${b["attempt"]} after ${a["attempt"]}`);
    }
    results.push(
      bad.length === 0
        ? { id: `webhook:order:${trace}`, operation: OP, outcome: "held", expected }
        : { id: `webhook:order:${trace}`, operation: OP, outcome: "failed", expected, got: bad.slice(0, 3).join("; ") },
    );
  }
}

export async function checkWebhooks(model: Model, rt: Runtime, o: WebhookChecks, traces: readonly string[], results: CheckResult[]): Promise<void> {
  if (!o.receiver || o.signingSecret === undefined) {
    results.push({ id: "webhook:deliveries", operation: OP, outcome: "skipped", reason: "no --receive-on: webhooks are not checked" });
    return;
  }
  const r = o.receiver;
  const missing = () => traces.filter((t) => !r.deliveries.some((d) => parsed(d.body)?.["trace"] === t));
  await r.until(() => missing().length === 0, o.webhookWaitMs);
  const lost = missing();
  const expected = `a delivery for each of ${traces.length} created verifications within ${o.webhookWaitMs} ms`;
  const named = `${lost.slice(0, NAMED_TRACES).join(", ")}${lost.length > NAMED_TRACES ? `, and ${lost.length - NAMED_TRACES} more` : ""}`;
  results.push(
    lost.length === 0
      ? { id: "webhook:each-creation-delivered", operation: OP, outcome: "held", expected }
      : { id: "webhook:each-creation-delivered", operation: OP, outcome: "failed", expected, got: `${lost.length} without one: ${named}` },
  );
  const byTrace = new Map<string, Obj[]>();
  for (const [i, d] of r.deliveries.entries()) {
    const p = await checkDelivery(model, rt, o.signingSecret, d, i + 1, results);
    if (p && typeof p["trace"] === "string") byTrace.set(p["trace"], [...(byTrace.get(p["trace"]) ?? []), p]);
  }
  checkOrder(byTrace, results);
}
