/**
 * Validators through Standard Schema (issue 37): `validator["~standard"].validate(data)` beside
 * `validator(data)` on the same validator and payloads as bench/validators.bench.ts (a v5 trust, valid and
 * with 4 errors). The target: the Standard Schema path within 1.1x of the direct call's time.
 *
 * Measured by bench/lib/harness.ts (each pair in a fresh process): npm run bench -- standard-schema
 */
import type { Batch, ThroughputSuite } from "./lib/suite.js";
import { trustValid } from "./validators.bench.js";

const trustInvalid = {
  ...trustValid,
  name: "n".repeat(200),
  website: "",
  identifiers: { abn: "123" },
  documents: [{ ...trustValid.documents[0]!, source: "url", data: "https://x.example/d.pdf" }],
};
const PAYLOADS: Readonly<Record<string, { label: string; data: unknown }>> = {
  "trust-valid": { label: "v5 trust, valid", data: trustValid },
  "trust-invalid": { label: "v5 trust, invalid (4 errors)", data: trustInvalid },
};

export const standardSchema: ThroughputSuite = {
  kind: "throughput",
  id: "standard-schema",
  title: "Validators through Standard Schema",
  notes: ["The same generated validator (v5.VerificationCreateRequest) called directly and through its `~standard.validate`; both collect every error."],
  payloads: Object.entries(PAYLOADS).map(([id, p]) => ({ id, label: p.label })),
  impls: [
    { id: "standard", label: "verispec through `~standard.validate`" },
    { id: "validate", label: "verispec called directly" },
  ],
  ours: "standard",
  // Within 1.1x of the direct call's time: its speed at least 1 / 1.1 of the direct call's.
  targets: [{ peer: "validate", min: 1 / 1.1 }],
  async load(payload, impl): Promise<Batch> {
    const p = PAYLOADS[payload];
    if (!p) throw new Error(`unknown payload ${payload}`);
    const { validateV5VerificationCreateRequest: validator } = await import("../generated/validators/v5.VerificationCreateRequest.js");
    const standard = validator["~standard"];
    const data = p.data;
    const valid = payload.endsWith("-valid");
    const check = impl === "standard" ? () => standard.validate(data).issues === undefined : impl === "validate" ? () => validator(data).valid : undefined;
    if (!check) throw new Error(`unknown implementation ${impl}`);
    if (check() !== valid) throw new Error(`${impl} gives the wrong verdict on ${payload}`);
    return (n) => {
      let sink = 0;
      for (let i = 0; i < n; i++) sink += check() ? 1 : 0;
      return sink;
    };
  },
};

export const suites = [standardSchema];
