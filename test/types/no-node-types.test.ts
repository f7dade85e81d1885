// Issue 36: the published declarations of the client, the validators and webhook verification compile in a
// project without @types/node (a browser or edge project), strict, without skipLibCheck; the sandbox's
// too (docs/client-and-types.md).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "verispec-no-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorsOf(source: string): string[] {
  const file = join(dir, "program.ts");
  writeFileSync(file, source);
  const options: ts.CompilerOptions = {
    strict: true, noEmit: true, skipLibCheck: false, types: [], target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    paths: { "verispec/sandbox": [join(root, "dist/templates/sandbox/api.d.ts")], "verispec/validators": [join(root, "dist/generated/validators/index.d.ts")], "verispec/webhooks": [join(root, "dist/generated/webhooks.d.ts")], verispec: [join(root, "dist/generated/index.d.ts")] },
  };
  const program = ts.createProgram([file], options);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName.replace(root, "") ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("the declarations without @types/node", () => {
  it("the client, the validators, webhook verification and the sandbox's start type-check with lib es2022 + dom only", () => {
    expect(errorsOf(`
import { createClient, createClientFromEnv, type v5 } from "verispec";
import { validate } from "verispec/validators";
import { verifyWebhook } from "verispec/webhooks";
import { startSandbox } from "verispec/sandbox";
export const started = startSandbox({ db: "memory" }).then((s) => s.url);
const client = createClient({ baseUrl: "https://example.test", serviceUid: "u", secret: "s" });
const fromEnv = createClientFromEnv({ baseUrl: "https://example.test", env: { VERISPEC_SANDBOX_SERVICE_UID: "u", VERISPEC_SANDBOX_SECRET: "s" } });
export async function run(rawBody: Uint8Array, headers: Headers, envelope: v5.Envelope): Promise<string> {
  const created = await client.v5.createVerification({ website: "https://example.com" });
  const { data } = await fromEnv.v5.getVerification(created.trace);
  const issues = envelope.status === "success" ? [] : envelope.error.details ?? [];
  const { payload } = await verifyWebhook({ rawBody, headers, secret: "k" });
  return [data.verificationStatus, issues.length, validate("v5.Envelope", envelope).valid, JSON.stringify(payload)].join(" ");
}
`)).toEqual([]);
  });

  it("the check can fail: a Node-only name in a program is reported", () => {
    expect(errorsOf("export const b: Buffer = null!;").join("\n")).toMatch(/Cannot find name 'Buffer'/);
  });
});
