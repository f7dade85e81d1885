// Issue 27: an independent Python runner (generated/conformance/run_conformance.py from templates/, in the package
// (issue 36): standard library + jsonschema, its own Keccak-256) agrees with every conformance vector it
// can decide: the verdict of every request case against generated/schemas/, and the verdict and reason of
// every webhook case and replay step. Without jsonschema it still decides what the standard library can.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, run } from "../outputs/helpers.js";
import { needPython } from "../support/services.js";

const python = needPython(["jsonschema"], "apt-get install -y python3-jsonschema");
const SCRIPT = join(ROOT, "generated", "conformance", "run_conformance.py");

interface Part {
  total: number;
  agreed: number;
  disagreed: string[];
}

describe.skipIf(!python.found)("conformance vectors in Python", () => {
  it("agrees on every request verdict and every webhook vector", async () => {
    const r = await run(python.path, [SCRIPT, "--json"]);
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout.trim().split("\n").pop()!) as { requests: Part; webhooks: Part };
    const file = (name: string) =>
      JSON.parse(readFileSync(join(ROOT, "generated", "conformance", `${name}.json`), "utf8")) as { cases: unknown[]; sequences?: { steps: unknown[] }[] };
    const webhooks = file("webhooks");
    expect(report.requests).toEqual({ total: file("requests").cases.length, agreed: file("requests").cases.length, skipped: 0, disagreed: [] });
    const deliveries = webhooks.cases.length + webhooks.sequences!.reduce((n, s) => n + s.steps.length, 0);
    expect(report.webhooks).toEqual({ total: deliveries, agreed: deliveries, skipped: 0, disagreed: [] });
    expect(r.code).toBe(0);
  }, 120_000);

  it("with the standard library alone (python3 -S: no site packages, so no jsonschema), decides every webhook case but the schema's and says what it skipped", async () => {
    const r = await run(python.path, ["-S", SCRIPT, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout.trim()) as { requests: Part & { skipped: number }; webhooks: Part & { skipped: number } };
    const file = (name: string) =>
      JSON.parse(readFileSync(join(ROOT, "generated", "conformance", `${name}.json`), "utf8")) as {
        cases: { expect?: { reason?: string } }[];
        sequences?: { steps: { expect: { reason?: string } }[] }[];
      };
    const webhooks = file("webhooks");
    const deliveries = [...webhooks.cases, ...webhooks.sequences!.flatMap((s) => s.steps)];
    const schemaBound = deliveries.filter((d) => d.expect?.reason === "invalid_payload").length;
    expect(report.requests).toEqual({ total: 0, agreed: 0, skipped: file("requests").cases.length, disagreed: [] });
    expect(report.webhooks).toEqual({ total: deliveries.length - schemaBound, agreed: deliveries.length - schemaBound, skipped: schemaBound, disagreed: [] });
    expect(deliveries.length - schemaBound).toBeGreaterThan(50);
    const text = await run(python.path, ["-S", SCRIPT]);
    expect(text.stdout).toContain("skipped: the Python package jsonschema is not installed");
  }, 120_000);

  it("disagrees, and says where, when a vector is wrong", async () => {
    // A copy of the package tree whose webhooks file claims a tampered body is accepted.
    const dir = mkdtempSync(join(tmpdir(), "verispec-conformance-"));
    try {
      mkdirSync(join(dir, "generated", "conformance"), { recursive: true });
      cpSync(join(ROOT, "generated", "schemas"), join(dir, "generated", "schemas"), { recursive: true });
      cpSync(join(ROOT, "generated", "conformance", "requests.json"), join(dir, "generated", "conformance", "requests.json"));
      const webhooks = JSON.parse(readFileSync(join(ROOT, "generated", "conformance", "webhooks.json"), "utf8")) as {
        cases: { id: string; expect: unknown }[];
      };
      webhooks.cases.find((c) => c.id === "v1/tamper/body")!.expect = { verdict: "accept" };
      writeFileSync(join(dir, "generated", "conformance", "webhooks.json"), JSON.stringify(webhooks));
      const r = await run(python.path, [SCRIPT, "--root", dir]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("DISAGREE v1/tamper/body");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
