// Every generated validator is a Standard Schema v1 (templates/validators/standard.ts): its `~standard`
// props, its types against the published `@standard-schema/spec`, the conformance request vectors' verdicts
// and issues through it, and two real consumers: Hono's standard validator and TanStack Form.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sValidator } from "@hono/standard-validator";
import type { StandardSchemaV1 as Published } from "@standard-schema/spec";
import { FormApi } from "@tanstack/form-core";
import { Hono } from "hono";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { v5 } from "../../generated/types.js";
import * as validators from "../../generated/validators/index.js";
import { validateV5Document } from "../../generated/validators/v5.Document.js";
import { validateV5VerificationCreateRequest } from "../../generated/validators/v5.VerificationCreateRequest.js";
import type { StandardSchemaV1 } from "../../templates/validators/standard.js";
import { validatorName } from "../../generator/emit/names.js";
import { sortIssues } from "../conformance/runner.js";

const ROOT = join(import.meta.dirname, "..", "..");
interface RequestCase {
  readonly id: string;
  readonly schema: validators.SchemaId;
  readonly payload: unknown;
  readonly valid: boolean;
  readonly errors: readonly unknown[];
}
const cases = (JSON.parse(readFileSync(join(ROOT, "generated", "conformance", "requests.json"), "utf8")) as { cases: RequestCase[] }).cases;
const byId = validators as unknown as Record<string, validators.Validator & Published>;

const document = { kind: "trustDeed", mimeType: "application/pdf", source: "base64", data: "data:application/pdf;base64,JVBERi0xLjQK" };

describe("the ~standard props", () => {
  it("say version 1 and vendor verispec on every exported validator", () => {
    const exported = validators.schemaIds.map((id) => byId[validatorName(id)]);
    expect(exported.every((v) => typeof v === "function")).toBe(true);
    for (const v of exported) {
      expect(v!["~standard"].version).toBe(1);
      expect(v!["~standard"].vendor).toBe("verispec");
    }
  });

  it("answer a valid value as { value } (the same value) and an invalid one with the service's issues", () => {
    const ok = validateV5Document["~standard"].validate(document);
    expect(ok).toEqual({ value: document });
    expect("value" in ok && ok.value).toBe(document);
    const bad = { ...document, source: "base64", data: "not a data uri" };
    const failed = validateV5Document["~standard"].validate(bad);
    const direct = validateV5Document(bad);
    expect(direct.valid).toBe(false);
    expect(failed.issues).toEqual(direct.valid ? [] : direct.errors);
    expect(failed.issues![0]).toMatchObject({ path: ["data"], code: expect.any(String), message: expect.any(String) });
  });

  it("take the validator's options as libraryOptions", () => {
    const typo = { ...document, fileNmae: "deed.pdf" };
    expect(validateV5Document["~standard"].validate(typo).issues).toBeUndefined();
    const issues = validateV5Document["~standard"].validate(typo, { libraryOptions: { unknownKeys: "report" } }).issues;
    expect(issues?.map((i) => [i.code, i.path])).toEqual([["unrecognized_keys", []]]);
  });

  it("leave the validator's own call unchanged", () => {
    expect(validateV5Document(document)).toEqual({ valid: true });
  });
});

describe("the types", () => {
  it("are the published Standard Schema's, inferring the schema's type as input and output", () => {
    // Assignable both ways: the inlined interface is the published one.
    const asPublished: Published<v5.Document, v5.Document> = validateV5Document;
    const inlined: StandardSchemaV1<v5.Document> = asPublished;
    expect(inlined).toBe(validateV5Document);
    expectTypeOf<Published.InferInput<typeof validateV5Document>>().toEqualTypeOf<v5.Document>();
    expectTypeOf<Published.InferOutput<typeof validateV5VerificationCreateRequest>>().toEqualTypeOf<v5.VerificationCreateRequest>();
    expectTypeOf<StandardSchemaV1.InferOutput<typeof validateV5Document>>().toEqualTypeOf<v5.Document>();
  });
});

describe("the conformance request vectors through ~standard", () => {
  it(`give the verdicts and issues of validate (${cases.length} cases)`, () => {
    expect(cases.length).toBeGreaterThan(100);
    const disagreements: string[] = [];
    for (const c of cases) {
      const v = byId[validatorName(c.schema)]!;
      const direct = v(c.payload);
      const result = v["~standard"].validate(c.payload) as Published.Result<unknown>;
      const verdict = result.issues === undefined;
      if (verdict !== c.valid || verdict !== direct.valid) disagreements.push(`${c.id}: verdict`);
      // The vectors list issues in a fixed order (as test/conformance/vectors.test.ts compares them).
      else if (!verdict && JSON.stringify(sortIssues(result.issues as validators.ValidationIssue[])) !== JSON.stringify(c.errors))
        disagreements.push(`${c.id}: issues`);
      else if (!verdict && !direct.valid && result.issues !== direct.errors && JSON.stringify(result.issues) !== JSON.stringify(direct.errors))
        disagreements.push(`${c.id}: issues differ from validate's`);
    }
    expect(disagreements).toEqual([]);
  });
});

describe("Hono's standard validator", () => {
  /** A route that validates its JSON body with the generated validator and answers a refusal as the service does. */
  function app() {
    return new Hono().post(
      "/v5/verifications",
      sValidator("json", validateV5VerificationCreateRequest, (result, c) => {
        if (!result.success) {
          const status = 422;
          return c.json(
            {
              path: c.req.path,
              statusCode: status,
              status: "error",
              message: "Validation error",
              data: null,
              error: { type: "validation_error", details: result.error },
            },
            status,
          );
        }
      }),
      (c) => {
        const body = c.req.valid("json");
        expectTypeOf(body).toEqualTypeOf<v5.VerificationCreateRequest>();
        return c.json({ received: body.type });
      },
    );
  }
  const post = (body: unknown) =>
    app().request("/v5/verifications", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

  it("answers a refused body 422 with the service's issues", async () => {
    const bad = { type: "trust", name: "n".repeat(200), website: "" };
    const res = await post(bad);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { type: string; details: unknown } };
    const direct = validateV5VerificationCreateRequest(bad);
    expect(direct.valid).toBe(false);
    expect(body.error.type).toBe("validation_error");
    expect(body.error.details).toEqual(direct.valid ? [] : direct.errors);
  });

  it("hands a valid body to the handler, typed", async () => {
    const good = cases.find((c) => c.schema === "v5.VerificationCreateRequest" && c.valid)!;
    const res = await post(good.payload);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: (good.payload as { type: string }).type });
  });
});

describe("TanStack Form", () => {
  it("shows the service's messages on the fields they are about, and none once the values are valid", async () => {
    const form = new FormApi({
      defaultValues: { ...document, data: "not a data uri" } as v5.Document,
      validators: { onChange: validateV5Document, onMount: validateV5Document },
    });
    form.mount();
    await form.validateAllFields("change");
    await form.validate("change");
    const expected = validateV5Document({ ...document, data: "not a data uri" });
    expect(expected.valid).toBe(false);
    const messages = expected.valid ? [] : expected.errors.map((e) => e.message);
    const fieldErrors = form.getFieldMeta("data")?.errorMap.onChange;
    expect(JSON.stringify(fieldErrors)).toContain(messages[0]!);
    form.setFieldValue("data", document.data);
    await form.validate("change");
    expect(form.state.isValid).toBe(true);
    expect(form.getFieldMeta("data")?.errors ?? []).toEqual([]);
  });
});
