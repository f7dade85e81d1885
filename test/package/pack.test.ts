// The package as users get it: `npm pack` (prepack builds dist/), install the tarball into a scratch
// project without network and with an empty npm cache, import every entry point from plain Node ESM and
// type-check a TypeScript consumer with tsc (Node's types: the @types/node that `npm ci` installed here).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let dir: string;
let project: string;
let packed: { filename: string; files: { path: string }[] };

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_update_notifier: "false", npm_config_cache: join(dir, "npm-cache") } });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "verispec-pack-"));
  // --json prints the packed file list; prepack (npm run build) runs first.
  const out = run(npm, ["pack", "--json", "--pack-destination", dir], root);
  packed = JSON.parse(out.slice(out.indexOf("[")))[0];
  project = join(dir, "consumer");
  mkdirSync(project);
  // No network and no npm cache: the runtime dependencies are linked from what `npm ci` installed here
  // (file: directories are symlinked), so npm resolves nothing. The package's own ranges must accept them.
  const { dependencies = {} } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const links = Object.fromEntries(Object.keys(dependencies).map((name) => [name, `file:${join(root, "node_modules", name)}`]));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module", dependencies: { verispec: `file:${join(dir, packed.filename)}`, ...links } }));
  run(npm, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], project);
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("npm pack", () => {
  it("ships the built entry points, the schemas and the OpenAPI document, and no tests", () => {
    const files = packed.files.map((f) => f.path);
    for (const f of ["dist/index.js", "dist/index.d.ts", "dist/client.js", "dist/types.d.ts", "dist/webhooks.js", "dist/webhooks.d.ts", "dist/validators/index.js", "dist/validators/index.d.ts", "generated/openapi.json", "generated/schemas/v4.VerifyRequest.json", "package.json", "README.md"])
      expect(files, f).toContain(f);
    expect(files.filter((f) => f.startsWith("test/") || f.endsWith(".test.ts"))).toEqual([]);
  });

  it("every entry point imports from plain Node ESM", () => {
    writeFileSync(
      join(project, "check.mjs"),
      `import * as root from "verispec";
import * as validators from "verispec/validators";
import * as webhooks from "verispec/webhooks";
import openapi from "verispec/openapi.json" with { type: "json" };
import schema from "verispec/schemas/v4.VerifyRequest.json" with { type: "json" };
const client = root.createClient({ baseUrl: "http://127.0.0.1:9", serviceUid: "u", secret: "s" });
console.log(JSON.stringify({
  createClient: typeof root.createClient,
  methods: [...Object.keys(client), ...Object.keys(client.v5).map((k) => "v5." + k)],
  errors: [new root.ValidationError("m").name, new root.SubmissionConflictError("m") instanceof root.VerispecError],
  olderVersion: root.specConstants.olderVersion,
  validate: typeof validators.validate,
  verdict: validators.validate("v4.Gender", "female").valid,
  verifyWebhook: typeof webhooks.verifyWebhook,
  openapi: openapi.openapi,
  schemaId: schema.$id,
}));
`,
    );
    const out = JSON.parse(run(process.execPath, ["check.mjs"], project));
    expect(out).toEqual({
      createClient: "function",
      methods: ["verify", "idForm", "getVerificationStatus", "submitRequestedActions", "v5", "v5.createVerification", "v5.getVerification"],
      errors: ["ValidationError", true],
      olderVersion: "4",
      validate: "function",
      verdict: true,
      verifyWebhook: "function",
      openapi: expect.stringMatching(/^3\.1/),
      schemaId: "https://verispec.dev/schemas/v4.VerifyRequest.json",
    });
  });

  it("a TypeScript consumer type-checks with tsc against the installed package", () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true, noEmit: true, skipLibCheck: false, resolveJsonModule: true, types: ["node"], typeRoots: [join(root, "node_modules", "@types")] }, include: ["consumer.ts"] }),
    );
    writeFileSync(
      join(project, "consumer.ts"),
      `import { createClient, ValidationError, type v4, type v5 } from "verispec";
import { validate } from "verispec/validators";
import { verifyWebhook } from "verispec/webhooks";

const client = createClient({ baseUrl: "https://api.example.test", serviceUid: "u", secret: "s" });
export async function go(body: v4.VerifyBody): Promise<string | undefined> {
  if (body.type === "individual" && body.fields.country === "USA") body.fields.state satisfies v4.entities.IndividualUSAFields["state"];
  const res: v5.VerificationGetResponse = await client.v5.getVerification("t");
  // @ts-expect-error DC is not a USA state code (seed 2.2): the installed types are real, not any.
  const bad: v4.entities.IndividualUSAFields["state"] = "DC";
  void bad;
  void validate;
  void verifyWebhook;
  try {
    await client.verify(body);
  } catch (e) {
    if (e instanceof ValidationError) return e.details[0]?.message;
  }
  return res.data?.verificationStatus;
}
`,
    );
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    let output = "";
    try {
      run(process.execPath, [tsc, "-p", "tsconfig.json"], project);
    } catch (e) {
      output = String((e as { stdout?: string }).stdout ?? e);
    }
    expect(output).toBe("");
  });

  it("installs the package's files, not the repository's", () => {
    const installed = readdirSync(join(project, "node_modules/verispec"));
    expect(installed).toContain("dist");
    expect(installed).not.toContain("test");
    expect(installed).not.toContain("node_modules");
  });
});
