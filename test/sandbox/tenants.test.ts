// Tenants on PGlite: the isolation suite (tenants-isolation.ts) over a database in memory, and the signing
// of a row whose tenant is no longer configured.
import { describe, expect, it } from "vitest";
import { signer } from "../../templates/sandbox/index.js";
import { binding } from "./inprocess.js";
import { isolationSuite, TENANT_A, TENANT_B } from "./tenants-isolation.js";

describe("tenants on PGlite: each sees only its own data", () => isolationSuite(() => "memory"));

describe("signing a tenant's webhook", () => {
  const sign = signer(binding, [{ ...TENANT_A, webhookUrls: [], signatureVersion: "2" }]);
  it("with the tenant's signing secret; a tenant no longer configured is not signed (the delivery fails and is retried)", () => {
    // Version 1's digest headers carry no time: the same body and secret give the same headers.
    const headers = sign("1", "{}", TENANT_A.name);
    expect(headers).toEqual(binding.signWebhook({ version: "1", rawBody: "{}", secret: TENANT_A.signingSecret }));
    expect(headers).not.toEqual(binding.signWebhook({ version: "1", rawBody: "{}", secret: TENANT_B.signingSecret }));
    expect(() => sign("2", "{}", "team-gone")).toThrow("no tenant team-gone in this sandbox's configuration: not signed, not sent");
  });
});
