// Issue 27: the TypeScript runtime passes every conformance vector of generated/conformance/: the
// generated validators give each request case's exact issues, verifyWebhook each webhook verdict and
// reason, and the generated transition rules each life cycle outcome. The vectors are derived from the
// spec's rules and messages (generator/emit/conformance/), not from these runtimes, so this is a check.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { validate, type SchemaId } from "../../generated/validators/index.js";
import { findTransitions } from "../../generated/runtime/webhooks/index.js";
import { MemoryReplayStore, verifyWebhook, webhookRules, type WebhookVerificationError } from "../../generated/webhooks.js";
import { emitConformance } from "../../generator/emit/conformance/index.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { ROOT } from "../validators/helpers.js";
import { lifecycleOutcome, sortIssues, type LifecycleVector, type WebhookVector } from "./runner.js";
import type { Loose } from "../support/loose.js";

const DIR = join(ROOT, "generated", "conformance");
const load = (name: string) => JSON.parse(readFileSync(join(DIR, `${name}.json`), "utf8")) as { specVersion: string; cases: Loose[]; sequences?: Loose[] };

interface RequestVector {
  id: string;
  schema: SchemaId;
  payload: unknown;
  valid: boolean;
  errors: { message: string; code: string; path: (string | number)[] }[];
}

async function verdict(d: WebhookVector, store = new MemoryReplayStore({ now: () => d.now })): Promise<{ verdict: string; reason?: string }> {
  try {
    await verifyWebhook({
      rawBody: Buffer.from(d.body, "utf8"),
      headers: d.headers,
      secret: d.secrets,
      now: d.now,
      replayStore: store,
      ...(d.allowBodySignature ? { allowBodySignature: true } : {}),
    });
    return { verdict: "accept" };
  } catch (e) {
    const reason = (e as WebhookVerificationError).reason;
    if (reason === undefined) throw e;
    return { verdict: "reject", reason };
  }
}

describe("conformance vectors: the files", () => {
  it("each file validates against the JSON Schema of its own format and carries the spec's version", () => {
    const model = modelFromSpec(join(ROOT, "spec"));
    for (const name of ["requests", "webhooks", "lifecycle"]) {
      const schema = JSON.parse(readFileSync(join(DIR, `${name}.schema.json`), "utf8")) as object;
      const check = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
      const file = load(name);
      expect(check(file), `${name}: ${JSON.stringify(check.errors?.slice(0, 3))}`).toBe(true);
      expect(file.specVersion).toBe(model.versions.specVersion);
      expect(new Set(file.cases.map((c: { id: string }) => c.id)).size, `${name}: ids are unique`).toBe(file.cases.length);
    }
  });

  it("are the same bytes on every run (the emitter is pure)", () => {
    const model = modelFromSpec(join(ROOT, "spec"));
    const a = emitConformance(model, { root: ROOT });
    const b = emitConformance(modelFromSpec(join(ROOT, "spec")), { root: ROOT });
    expect(a.map((f) => f.contents)).toEqual(b.map((f) => f.contents));
    for (const f of a) expect(readFileSync(join(ROOT, "generated", f.path), "utf8")).toBe(f.contents);
  });

  it("cover what the issue asks: every request schema of an endpoint, both verdicts, boundaries, conditions, requirements", () => {
    const cases = load("requests").cases as RequestVector[];
    const model = modelFromSpec(join(ROOT, "spec"));
    for (const e of model.endpoints.filter((x) => x.request)) {
      const mine = cases.filter((c) => c.schema === e.request);
      expect(
        mine.some((c) => c.valid),
        `${e.request} has valid cases`,
      ).toBe(true);
      expect(
        mine.some((c) => !c.valid),
        `${e.request} has invalid cases`,
      ).toBe(true);
    }
    const ids = cases.map((c) => c.id);
    for (const part of [
      "/missing",
      "/not-allowed",
      "/max-length",
      "/over-max-length",
      "/digits-min",
      "/digits-over-max",
      "/holds",
      "/broken",
      "requirement/",
      "valid/minimal/",
      "valid/complete/",
    ]) {
      expect(
        ids.some((id) => id.includes(part)),
        part,
      ).toBe(true);
    }
  });
});

describe("conformance vectors: the TypeScript runtime passes every one", () => {
  it("requests: the generated validators give each verdict and exactly the expected issues", () => {
    const failed: string[] = [];
    const cases = load("requests").cases as RequestVector[];
    for (const c of cases) {
      const r = validate(c.schema, c.payload, { maxErrors: Infinity });
      const got = r.valid ? [] : sortIssues(r.errors);
      if (r.valid !== c.valid || JSON.stringify(got) !== JSON.stringify(c.errors))
        failed.push(`${c.id}: want ${JSON.stringify(c.errors)} got ${JSON.stringify(got)}`);
    }
    expect(failed).toEqual([]);
    expect(cases.length).toBeGreaterThan(500);
  });

  it("webhooks: verifyWebhook gives each case's verdict and reason", async () => {
    const failed: string[] = [];
    const file = load("webhooks");
    for (const c of file.cases as (WebhookVector & { id: string })[]) {
      const got = await verdict(c);
      if (JSON.stringify(got) !== JSON.stringify(c.expect)) failed.push(`${c.id}: want ${JSON.stringify(c.expect)} got ${JSON.stringify(got)}`);
    }
    for (const s of file.sequences as { id: string; steps: WebhookVector[] }[]) {
      let clock = 0;
      const store = new MemoryReplayStore({ now: () => clock });
      for (const [i, step] of s.steps.entries()) {
        clock = step.now;
        const got = await verdict(step, store);
        if (JSON.stringify(got) !== JSON.stringify(step.expect))
          failed.push(`${s.id} step ${i}: want ${JSON.stringify(step.expect)} got ${JSON.stringify(got)}`);
      }
    }
    expect(failed).toEqual([]);
  });

  it("webhooks: both digests of version 1, the body variant, version 2, tolerance edges and replays are all there", () => {
    const file = load("webhooks");
    const ids = (file.cases as { id: string }[]).map((c) => c.id).join(" ");
    for (const part of [
      "v1/digest/sha3-256-only",
      "v1/digest/keccak-256-only",
      "v1/body-variant/valid",
      "v2/valid",
      "tolerance/exactly-past",
      "tolerance/past-plus-1ms",
      "tolerance/future-plus-1ms",
      "tamper/body",
      "prefix/",
    ])
      expect(ids).toContain(part);
    expect((file.sequences as { id: string }[]).map((s) => s.id)).toEqual(
      expect.arrayContaining(["replay/same-delivery-twice", "replay/across-versions", "replay/across-rotated-keys"]),
    );
  });

  it("lifecycle: the generated transition rules give each outcome (474 after the cap, 475 in flight)", () => {
    const failed: string[] = [];
    const cases = load("lifecycle").cases as (LifecycleVector & { id: string })[];
    for (const c of cases) {
      const got = lifecycleOutcome(webhookRules, findTransitions, c);
      const { why: _prose, ...want } = c.expect;
      if (JSON.stringify(got) !== JSON.stringify(want)) failed.push(`${c.id}: want ${JSON.stringify(c.expect)} got ${JSON.stringify(got)}`);
    }
    expect(failed).toEqual([]);
    const outcomes = cases.map((c) => (c.expect.outcome === "error" ? c.expect.httpStatus : c.expect.outcome));
    expect(outcomes).toEqual(expect.arrayContaining([474, 475, "refused", "transition"]));
  });
});
