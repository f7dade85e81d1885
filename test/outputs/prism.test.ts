// Issue 6, part 5: the mock server. Prism (@stoplight/prism-cli 5.14) serves generated/openapi.json on
// 127.0.0.1; the generated client calls every operation against it and every response passes the
// generated validators. What Prism cannot do with this document is pinned here and named in the README.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPENAPI, ROOT, freePort } from "./helpers.js";
import type { LooseJson } from "../support/loose.js";

type Json = LooseJson;
type Validate = (id: string, data: unknown) => { valid: boolean; errors?: readonly unknown[] };
const doc = JSON.parse(readFileSync(OPENAPI, "utf8")) as Json;
const PRISM = join(ROOT, "node_modules", "@stoplight", "prism-cli", "dist", "index.js");
const CREDENTIALS = { serviceUid: "<SERVICE_UID>", secret: "<API_SECRET>" };
const BASIC = `Basic ${Buffer.from(`${CREDENTIALS.serviceUid}:${CREDENTIALS.secret}`).toString("base64")}`;

const requestExample = (path: string) => structuredClone(doc.paths[path].post.requestBody.content["application/json"].example) as Json;
/** An older request body without the credentials the client adds itself. */
const olderBody = (path: string) => {
  const { metadata_version: _v, metadata_serviceUid: _u, metadata_secretKey: _s, ...rest } = requestExample(path);
  return rest;
};

let prism: ChildProcess | undefined;
let baseUrl = "";
let prismLog = "";
let validate: Validate;
let client: typeof import("../../generated/client.js");
let errors: typeof import("../../generated/runtime/client/errors.js");

/** Starts Prism on a free port; resolves once it says it is listening. */
async function startPrism(): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [PRISM, "mock", "-h", "127.0.0.1", "-p", String(port), OPENAPI], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 90_000);
      const onData = (chunk: Buffer) => {
        prismLog += chunk.toString("utf8");
        if (prismLog.includes(`Prism is listening on http://127.0.0.1:${port}`)) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.on("exit", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      prism = child;
      baseUrl = `http://127.0.0.1:${port}`;
      return;
    }
    child.kill("SIGKILL");
  }
  throw new Error(`Prism did not start:\n${prismLog.slice(-3000)}`);
}

beforeAll(async () => {
  validate = ((await import(pathToFileURL(join(ROOT, "generated", "validators", "index.js")).href)) as { validate: Validate }).validate;
  client = await import("../../generated/client.js");
  errors = await import("../../generated/runtime/client/errors.js");
  await startPrism();
}, 120_000);

afterAll(async () => {
  if (!prism || prism.exitCode !== null) return;
  const exited = new Promise((resolve) => prism!.once("exit", resolve));
  prism.kill("SIGTERM");
  const timer = setTimeout(() => prism!.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}, 30_000);

const makeClient = (headers?: Record<string, string>) =>
  client.createClient({ baseUrl, ...CREDENTIALS, validateResponses: true, retry: false, ...(headers ? { headers } : {}) });

function expectValid(id: string, data: unknown): void {
  const result = validate(id, data);
  expect(result, `${id}: ${JSON.stringify(result).slice(0, 500)}`).toEqual({ valid: true });
}

describe("Prism mock server on generated/openapi.json, called with the generated client", () => {
  it("serves every operation of the document that has a path", () => {
    const served = [...prismLog.matchAll(/info\s+(GET|POST)\s+http:\/\/127\.0\.0\.1:\d+(\S+)/g)].map((m) => `${m[1]} ${m[2]}`);
    const expected = Object.entries(doc.paths as Json).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(expected).toHaveLength(5);
    // Prism prints path parameters filled with an example value.
    expect(served.map((s) => s.replace(/\/v5\/verifications\/[^/]+$/, "/v5/verifications/{trace}")).sort()).toEqual(expected.sort());
  });

  // Static responses (the document's examples, or values made from the schema), then dynamic ones
  // (Prism's json-schema-faker), which exercise the schemas rather than our examples.
  for (const mode of ["static", "dynamic"] as const) {
    it(`every operation answers 200 and the response passes the generated validators (${mode})`, async () => {
      const c = makeClient(mode === "dynamic" ? { Prefer: "dynamic=true" } : undefined);
      const rounds = mode === "dynamic" ? 5 : 1;
      for (let i = 0; i < rounds; i++) {
        expectValid("v4.VerifyResponse", await c.verify(olderBody("/verify") as never));
        expectValid("v4.IdFormResponse", await c.idForm(olderBody("/idform") as never));
        expectValid("v4.GetVerificationStatusResponse", await c.getVerificationStatus(olderBody("/getVerificationStatus") as never));
        expectValid("v5.VerificationCreateResponse", await c.v5.createVerification(requestExample("/v5/verifications") as never));
        expectValid("v5.VerificationGetResponse", await c.v5.getVerification("7f0c2a9e-3b8d-4c55-9d1e-2f4b6a8c0d12"));
      }
    }, 60_000);
  }

  it("each error status of POST /v5/verifications reaches the client as its typed error, with a valid error envelope", async () => {
    const cases = [
      [422, errors.ValidationError, "validation_error"],
      [474, errors.TooManyAttemptsError, "too_many_attempts"],
      [475, errors.SubmissionConflictError, "submission_conflict"],
    ] as const;
    for (const [status, type, errorType] of cases) {
      const c = makeClient({ Prefer: `code=${status}` });
      const err = await c.v5.createVerification(requestExample("/v5/verifications") as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(type);
      expect((err as InstanceType<typeof errors.VerispecError>).status).toBe(status);
      const body = (err as InstanceType<typeof errors.VerispecError>).body as Json;
      expect(body.error.type).toBe(errorType);
      expectValid("v5.ErrorEnvelope", body);
    }
  }, 60_000);

  it("validates requests against the document (an invalid ABN is refused with 422)", async () => {
    // Regression: with `jsonSchemaDialect` in the document, Prism 5.14 accepted any body; the emitter
    // leaves the field out (its default is the same dialect).
    expect(doc.jsonSchemaDialect).toBeUndefined();
    const body = { ...requestExample("/v5/verifications"), identifiers: { abn: "123" } };
    const r = await fetch(`${baseUrl}/v5/verifications`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: BASIC },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(422);
    expect(JSON.parse(r.headers.get("sl-violations") ?? "[]")).toEqual([
      expect.objectContaining({ location: ["request", "body", "identifiers", "abn"], code: "pattern" }),
    ]);
    await r.arrayBuffer();
  });
});

describe("Prism limitations, pinned (README: For other languages)", () => {
  it("the follow-up request (seed 4.4) has no path in the seed, so Prism cannot serve it", async () => {
    expect(doc["x-verispec"].unshownOperations.map((o: Json) => o.operationId)).toEqual(["submitRequestedActions"]);
    const err = await makeClient()
      .submitRequestedActions({ verificationUuid: "7f0c2a9e-3b8d-4c55-9d1e-2f4b6a8c0d12", requestedActions: [] } as never, { path: "/requested-actions" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(errors.HttpError);
    expect((err as InstanceType<typeof errors.HttpError>).status).toBe(404);
  });

  it("discriminators are ignored (prism#2345): a bad field of one entity kind is reported against every kind", async () => {
    const body = requestExample("/verify");
    body.fields.dateOfBirth = "31/02/2000"; // an individual's date that is not a date
    const r = await fetch(`${baseUrl}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(r.status).toBe(422);
    const violations = r.headers.get("sl-violations") ?? "";
    // With `discriminator` honoured, the one violation would be fields.dateOfBirth of the individual
    // branch; Prism validates the `oneOf` alone and lists the other kinds' requirements instead.
    expect(violations).toContain("Too many violations!");
    expect(violations).toContain("associationNumber");
    await r.arrayBuffer();
  });

  it("an error response is the document's example, not the actual error", async () => {
    const body = { ...requestExample("/v5/verifications"), identifiers: { abn: "123" } };
    const r = await fetch(`${baseUrl}/v5/verifications`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: BASIC },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(422);
    expect(await r.json()).toEqual(doc.paths["/v5/verifications"].post.responses["422"].content["application/json"].example);
  });

  it("an older endpoint's error body is `{}` at a status Prism picks (shape and status: not shown in the seed)", async () => {
    const r = await fetch(`${baseUrl}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({}) });
    expect(r.status).toBe(422);
    expect(await r.json()).toEqual({});
  });

  it("missing Basic credentials get 401, a status Prism invents (seed 7: not shown)", async () => {
    const r = await fetch(`${baseUrl}/v5/verifications/7f0c2a9e-3b8d-4c55-9d1e-2f4b6a8c0d12`);
    expect(r.status).toBe(401);
    await r.arrayBuffer();
  });
});
