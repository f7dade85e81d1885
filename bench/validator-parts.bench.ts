/**
 * Where the v5 trust payload's time goes, against TypeBox compiled: the valid trust payload of
 * validators.bench.ts whole and with one part left out, each pair in a fresh process. A part's cost is
 * the difference of two rows; the ratio per row shows which part holds the gap between the two.
 *
 *   npm run bench -- validator-parts
 */
import type { Batch, ThroughputSuite } from "./lib/suite.js";
import { tTrust, trustValid, typebox } from "./validators.bench.js";

const without = (key: keyof typeof trustValid) => Object.fromEntries(Object.entries(trustValid).filter(([k]) => k !== key));
const PAYLOADS: Readonly<Record<string, { readonly label: string; readonly data: unknown }>> = {
  whole: { label: "v5 trust, valid (as in the table above)", data: trustValid },
  "no-stakeholders": { label: "the same without its 2 stakeholders", data: without("stakeholders") },
  "no-identifiers": { label: "the same without its ABN", data: without("identifiers") },
};

export const parts: ThroughputSuite = {
  kind: "throughput",
  id: "validator-parts",
  title: "Validators: the v5 trust payload in parts",
  notes: ["Each row the valid v5 trust payload or that payload less one part; every row valid for both implementations."],
  payloads: Object.entries(PAYLOADS).map(([id, p]) => ({ id, label: p.label })),
  impls: [
    { id: "verispec", label: "verispec (generated)" },
    { id: "typebox", label: "TypeBox compiled" },
  ],
  ours: "verispec",
  targets: [],
  async load(payload, impl): Promise<Batch> {
    const data = PAYLOADS[payload]?.data;
    if (data === undefined) throw new Error(`unknown payload ${payload}`);
    const check =
      impl === "verispec" ? (await import("../generated/validators/v5.VerificationCreateRequest.js")).validateV5VerificationCreateRequest : typebox(tTrust);
    const valid = (r: unknown) => (impl === "verispec" ? (r as { valid: boolean }).valid : r === 0);
    if (!valid(check(data))) throw new Error(`${impl} rejects ${payload}`);
    return (n) => {
      let sink = 0;
      for (let i = 0; i < n; i++) sink += check(data) ? 1 : 0;
      return sink;
    };
  },
};

export const suites = [parts];
