// The bundle's entry (bundle.ts): the vectors and the runner in one module with no import left, for
// Deno, Bun, workerd and Chromium. `runtimeName` says which runtime ran it, from what it exposes.
import vectors from "../../../generated/conformance/webhooks.json" with { type: "json" };
import { runWebhookVectors, verifyDeliveryRequest, type VectorReport, type WebhookVectorFile } from "./vectors-runner.js";
import { MemoryReplayStore } from "../../../generated/webhooks.js";

export function runtimeName(): string {
  const g = globalThis as Record<string, unknown>;
  if (typeof g["Deno"] === "object") return "deno";
  if (typeof g["Bun"] === "object") return "bun";
  if (typeof navigator !== "undefined" && navigator.userAgent === "Cloudflare-Workers") return "workerd";
  if (typeof g["window"] === "object") return "browser";
  return typeof g["process"] === "object" ? "node" : "unknown";
}

export function runAll(): Promise<VectorReport> {
  return runWebhookVectors(vectors as unknown as WebhookVectorFile, runtimeName());
}

export { MemoryReplayStore, verifyDeliveryRequest };
