/** Shared test data: the Python-made vectors and small builders. */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { WebhookVerificationError, type WebhookVerificationReason } from "../../templates/webhooks/index.js";

export interface VectorCase {
  readonly name: string;
  readonly key: string;
  readonly body: string;
  readonly v1: { readonly sha3_256: string; readonly keccak_256: string };
  readonly v2: string;
}

export interface Vectors {
  readonly now: number;
  readonly secret: string;
  readonly oldSecret: string;
  readonly keccak256Empty: string;
  readonly sha3_256Empty: string;
  readonly cases: readonly VectorCase[];
  readonly bodySignature: {
    readonly body: string;
    readonly hashedText: string;
    readonly digests: { readonly sha3_256: string; readonly keccak_256: string };
  };
}

export const vectors: Vectors = JSON.parse(readFileSync(new URL("./vectors.json", import.meta.url), "utf8")) as Vectors;

export function vectorCase(name: string): VectorCase {
  const found = vectors.cases.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no vector ${name}`);
  return found;
}

export function v2Headers(c: VectorCase): Record<string, string> {
  return { "X-Svc-Signature": `sha256=${c.v2}`, "X-Svc-Signature-version": "2" };
}

export function v1Headers(c: VectorCase): Record<string, string> {
  return {
    "X-Svc-Signature-SHA": `svc_sec_sha256_${c.v1.sha3_256}`,
    "X-Svc-Signature-KECCAK": `svc_sec_keccak256_${c.v1.keccak_256}`,
    "X-Svc-Signature-version": "1",
  };
}

/** A v5 payload (seed: 6.2) with the given timestamp and overrides, as compact JSON. */
export function v5Body(timestamp: number, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: "v5",
    userId: null,
    tags: [],
    trace: "trace-1",
    submissionId: "sub-1",
    verificationStatus: "pending",
    submissionStatus: "submitted",
    attempt: 1,
    timestamp,
    ...overrides,
  });
}

export async function expectReason(promise: Promise<unknown>, reason: WebhookVerificationReason): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected a refusal with reason ${reason}`).toBeInstanceOf(WebhookVerificationError);
  expect((error as WebhookVerificationError).reason).toBe(reason);
  return error as WebhookVerificationError;
}
