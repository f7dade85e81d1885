// The package as users get it: `npm pack` (prepack builds dist/), install the tarball into a scratch
// project without network and with an empty npm cache, import every entry point from plain Node ESM and
// type-check a TypeScript consumer with tsc (Node's types: the @types/node that `npm ci` installed here).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFiles } from "../../generator/write.js";
import { lowerNameLimit } from "../generator/helpers.js";
import { needFound, needPython } from "../support/services.js";

const python = needPython(["jsonschema"], "apt-get install -y python3-jsonschema");
/** TypeScript 7 (the native compiler, @typescript/native-preview's `tsgo`), when its binary runs here. */
const TSGO = new URL("../../node_modules/@typescript/native-preview/bin/tsgo", import.meta.url).pathname;
const tsgo = needFound(
  "tsgo (TypeScript 7, @typescript/native-preview)",
  spawnSync(process.execPath, [TSGO, "--version"], { encoding: "utf8" }).status === 0 ? TSGO : undefined,
  "npm ci installs it; its native binary must run on this platform",
);

const root = new URL("../../", import.meta.url).pathname;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let dir: string;
let project: string;
let packed: { filename: string; files: { path: string }[] };

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_cache: join(dir, "npm-cache") },
  });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "verispec-pack-"));
  // --json prints the packed file list. dist/ is current (test/support/dist.ts, the global setup, built
  // it if needed), so prepack's `npm run build` is skipped here.
  const out = run(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], root);
  packed = JSON.parse(out.slice(out.indexOf("[")))[0];
  project = join(dir, "consumer");
  mkdirSync(project);
  // No network and no npm cache: the package's runtime dependencies (all of them, transitively, as the
  // lockfile lists them) are installed from the copies `npm ci` put in node_modules (--install-links
  // packs and copies them, as a registry install would), so npm has nothing to fetch or resolve.
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean; link?: boolean }> };
  const runtime = Object.entries(lock.packages).filter(
    ([path, m]) => path.startsWith("node_modules/") && !m.dev && !m.link && path !== "node_modules/verispec",
  );
  const nested = runtime.filter(([path]) => path.lastIndexOf("node_modules/") > 0);
  if (nested.length) throw new Error(`nested runtime dependencies need a layout here: ${nested.map(([p]) => p).join(", ")}`);
  const links = Object.fromEntries(runtime.map(([path]) => [path.slice("node_modules/".length), `file:${join(root, path)}`]));
  const manifest = (dependencies: Record<string, string>) => JSON.stringify({ name: "consumer", private: true, type: "module", dependencies });
  writeFileSync(join(project, "package.json"), manifest({ verispec: `file:${join(dir, packed.filename)}`, ...links }));
  run(npm, ["install", "--offline", "--install-links", "--no-audit", "--no-fund", "--ignore-scripts"], project);
  // Then the project as a user has it: it depends on verispec alone (so `npm ls` reads a plain tree).
  writeFileSync(
    join(project, "package.json"),
    manifest({ verispec: (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version }),
  );
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("npm pack", () => {
  it("ships the built entry points, the schemas and the OpenAPI document, and no tests", () => {
    const files = packed.files.map((f) => f.path);
    const d = "dist/generated/";
    for (const f of [
      "dist/templates/sandbox/api.js",
      "dist/templates/sandbox/api.d.ts",
      `${d}index.js`,
      `${d}index.d.ts`,
      `${d}client.js`,
      `${d}types.d.ts`,
      `${d}webhooks.js`,
      `${d}webhooks.d.ts`,
      `${d}validators/index.js`,
      `${d}validators/index.d.ts`,
      "dist/generator/cli/bin.js",
      "bin/verispec.js",
      "generated/openapi.json",
      "generated/schemas/v4.VerifyRequest.json",
      "generated/conformance/requests.json",
      "generated/conformance/webhooks.schema.json",
      "spec/meta/spec.schema.yaml",
      "templates/validators/abn.ts",
      "generated/conformance/run_conformance.py",
      "package.json",
      "README.md",
    ])
      expect(files, f).toContain(f);
    expect(files.filter((f) => f.startsWith("test/") || /\.test\.[jt]s$/.test(f) || f.startsWith("generator/"))).toEqual([]);
  });

  it("every entry point imports from plain Node ESM", () => {
    writeFileSync(
      join(project, "check.mjs"),
      `import * as root from "verispec";
import * as validators from "verispec/validators";
import * as webhooks from "verispec/webhooks";
import openapi from "verispec/openapi.json" with { type: "json" };
import schema from "verispec/schemas/v4.VerifyRequest.json" with { type: "json" };
import vectors from "verispec/conformance/lifecycle.json" with { type: "json" };
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
  vectors: vectors.format,
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
      vectors: "verispec-conformance-lifecycle",
    });
  });

  // Every entry point, without skipLibCheck: the package's own declarations are checked too.
  it("a TypeScript consumer type-checks with tsc against the installed package", () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          resolveJsonModule: true,
          types: ["node"],
          typeRoots: [join(root, "node_modules", "@types")],
        },
        include: ["consumer.ts"],
      }),
    );
    writeFileSync(
      join(project, "consumer.ts"),
      `import { createClient, ValidationError, type v4, type v5 } from "verispec";
import { validate } from "verispec/validators";
import { verifyWebhook } from "verispec/webhooks";
import { startSandbox, type RunningSandbox } from "verispec/sandbox";
import addVerispecVocabulary from "verispec/ajv-vocabulary";
import openapi from "verispec/openapi.json" with { type: "json" };

export const keywords: readonly string[] = addVerispecVocabulary({ addVocabulary: (d: string[]) => d }).addVocabulary([...addVerispecVocabulary.keywords]) as string[];
export const documentVersion: string = openapi.info.version;

const client = createClient({ baseUrl: "https://api.example.test", serviceUid: "u", secret: "s" });
export async function go(body: v4.VerifyBody): Promise<string | undefined> {
  if (body.type === "individual" && body.fields.country === "USA") body.fields.state satisfies v4.entities.IndividualUSAFields["state"];
  const res: v5.VerificationGetResponse = await client.v5.getVerification("t");
  // @ts-expect-error DC is not a USA state code (the service's specification, section 2.2): the installed types are real, not any.
  const bad: v4.entities.IndividualUSAFields["state"] = "DC";
  void bad;
  void validate;
  void verifyWebhook;
  const sandbox: RunningSandbox = await startSandbox({ processingMs: "manual", webhookUrls: ["http://127.0.0.1:9/hooks"] });
  await sandbox.close();
  // @ts-expect-error the processing delay is milliseconds or "manual"
  void startSandbox({ processingMs: "soon" });
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
    // tsc reports type errors on stdout and crashes on stderr: both must be empty, and the exit 0.
    const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project, encoding: "utf8" });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: "", stderr: "" });
  }, 120_000);

  // Issue 13: verispec is ESM only; a CommonJS TypeScript project uses it through `import()` and
  // `import type ... with { "resolution-mode": "import" }` (README, Install), compiled and run here.
  it("a CommonJS TypeScript consumer compiles with tsc (module node16) and runs with node", () => {
    const cjs = join(project, "cjs");
    mkdirSync(cjs);
    writeFileSync(join(cjs, "package.json"), JSON.stringify({ name: "cjs-consumer", private: true, type: "commonjs" }));
    writeFileSync(
      join(cjs, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "Node16",
          moduleResolution: "Node16",
          target: "ES2022",
          strict: true,
          skipLibCheck: false,
          outDir: "out",
          types: ["node"],
          typeRoots: [join(root, "node_modules", "@types")],
        },
        include: ["consumer.ts"],
      }),
    );
    writeFileSync(
      join(cjs, "consumer.ts"),
      `import type { v4 } from "verispec" with { "resolution-mode": "import" };
import type { WebhookPayload } from "verispec/webhooks" with { "resolution-mode": "import" };
import addVerispecVocabulary = require("verispec/ajv-vocabulary");

export async function check(): Promise<string> {
  const { validate, isValid } = await import("verispec/validators");
  const { interpretWebhook } = await import("verispec/webhooks");
  const gender: unknown = "female";
  const typed: v4.Gender | undefined = isValid("v4.Gender", gender) ? gender : undefined;
  const outcome = (p: WebhookPayload) => interpretWebhook(p).outcome;
  void outcome;
  return JSON.stringify({ typed, verdict: validate("v4.Gender", "unknown").valid, commonjs: typeof module === "object", keywords: addVerispecVocabulary.keywords.length });
}
`,
    );
    run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], cjs);
    const out = run(process.execPath, ["-e", `require("./out/consumer.js").check().then((r) => console.log(r))`], cjs);
    expect(JSON.parse(out)).toEqual({ typed: "female", verdict: false, commonjs: true, keywords: 5 });
  }, 180_000);

  // Issue 28: a test suite starts the sandbox in its own process (docs/sandbox.md, "In a test suite"),
  // from the installed package: its dist/, its shipped PGlite template, and the user's own PGlite.
  it("verispec/sandbox starts a sandbox in-process with generated credentials, from the shipped template", async () => {
    const pglite = join(project, "node_modules", "@electric-sql", "pglite");
    mkdirSync(join(project, "node_modules", "@electric-sql"), { recursive: true });
    symlinkSync(join(root, "node_modules", "@electric-sql", "pglite"), pglite, "dir");
    try {
      writeFileSync(
        join(project, "inprocess.mjs"),
        `import { startSandbox } from "verispec/sandbox";
const sandbox = await startSandbox();
const auth = "Basic " + Buffer.from(sandbox.serviceUid + ":" + sandbox.secret).toString("base64");
const post = (authorization) => fetch(sandbox.url + "/v5/verifications", { method: "POST", headers: { authorization, "content-type": "application/json" }, body: JSON.stringify({ type: "individual", subType: "data", country: "AUS", name: "Pat Example", website: "https://example.com" }) });
const created = await post(auth);
const trace = (await created.json()).trace;
const got = await fetch(sandbox.url + "/v5/verifications/" + trace, { headers: { authorization: auth } });
const wrong = await post("Basic " + Buffer.from(sandbox.serviceUid + ":wrong").toString("base64"));
const migrations = await fetch(sandbox.url + "/readyz");
await sandbox.close();
console.log(JSON.stringify({ url: /^http:\\/\\/127\\.0\\.0\\.1:\\d+$/.test(sandbox.url), created: created.status, got: got.status, wrong: wrong.status, ready: migrations.status, generated: [sandbox.serviceUid.startsWith("sandbox-"), sandbox.secret.length > 20, sandbox.signingSecret.length > 20] }));
`,
      );
      const out = JSON.parse(run(process.execPath, ["inprocess.mjs"], project));
      expect(out).toEqual({ url: true, created: 200, got: 200, wrong: 401, ready: 200, generated: [true, true, true] });
      const template = readdirSync(join(project, "node_modules/verispec/dist/pglite-template"));
      expect(template).toEqual([
        expect.stringMatching(/^pglite-\d+-[0-9a-f]{16}\.array-types\.json$/),
        expect.stringMatching(/^pglite-\d+-[0-9a-f]{16}\.tar$/),
      ]);
      expect(template[0]!.replace(".array-types.json", "")).toBe(template[1]!.replace(".tar", "")); // the list beside its archive
    } finally {
      rmSync(pglite, { force: true });
    }
  }, 120_000);

  it("npm ls --omit=dev --all lists neither typescript nor tsx (lean install)", () => {
    const tree = run(npm, ["ls", "--omit=dev", "--all", "--parseable"], project); // exit 0: nothing missing or invalid
    expect(tree).toContain("verispec");
    expect(tree).toContain("ajv");
    expect(tree.split("\n").filter((line) => /[\\/](typescript|tsx)$/.test(line))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(project, "node_modules/verispec/package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@noble/hashes", "ajv", "markdown-it", "yaml"]);
    expect(manifest.dependencies.ajv).toMatch(/^\d+\.\d+\.\d+$/); // exact: the validators' passes read Ajv's output text
  });

  it("installs the package's files, not the repository's", () => {
    const installed = readdirSync(join(project, "node_modules/verispec"));
    expect(installed).toContain("dist");
    expect(installed).not.toContain("test");
    expect(installed).not.toContain("node_modules");
  });
});

describe("the installed CLI (npx verispec in a scratch project)", () => {
  const npx = process.platform === "win32" ? "npx.cmd" : "npx";
  const cli = (args: string[], input?: string) => {
    const r = spawnSync(npx, ["--no-install", "verispec", ...args], {
      cwd: project,
      encoding: "utf8",
      input,
      env: { ...process.env, npm_config_update_notifier: "false", npm_config_cache: join(dir, "npm-cache") },
    });
    // npm's own warnings about this machine's npm configuration are not the CLI's output.
    return { ...r, stderr: r.stderr.replace(/^npm warn .*\n/gm, "") };
  };

  it("--help lists every command", () => {
    const r = cli(["--help"]);
    expect(r.status, r.stderr).toBe(0);
    for (const c of ["generate", "check", "schemas", "validate", "webhook verify", "docs"]) expect(r.stdout).toContain(c);
  });

  it("schemas lists the package's schema ids", () => {
    const r = cli(["schemas"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split("\n")).toContain("v5.VerificationCreateRequest");
  });

  it("validate uses the package's own validators", () => {
    writeFileSync(join(project, "doc.json"), '{"website":""}');
    const bad = cli(["validate", "v5.VerificationCreateRequest", "doc.json"]);
    expect(bad.status, bad.stderr).toBe(1);
    expect(JSON.parse(bad.stdout).errors[0]).toEqual({ message: "Website is required.", code: "too_small", path: ["website"] });
    expect(cli(["validate", "v4.Gender", "-"], '"female"').stdout).toBe('{"valid":true}\n');
  });

  it("webhook verify checks a signed delivery with the shipped webhook kit", () => {
    const sign = `import { signWebhook } from "verispec/webhooks";
const body = JSON.stringify({ trace: "t-1" });
process.stdout.write(JSON.stringify({ body, headers: signWebhook({ version: "2", rawBody: body, secret: "k" }) }));`;
    writeFileSync(join(project, "sign.mjs"), sign);
    const { body, headers } = JSON.parse(run(process.execPath, ["sign.mjs"], project)) as { body: string; headers: Record<string, string> };
    writeFileSync(join(project, "body.json"), body);
    writeFileSync(join(project, "key.txt"), "k\n");
    const args = [
      "webhook",
      "verify",
      "--body",
      "body.json",
      "--secret-file",
      "key.txt",
      ...Object.entries(headers).flatMap(([k, v]) => ["--header", `${k}: ${v}`]),
    ];
    const r = cli(args);
    // The signature holds; the payload is not a v5 webhook payload, which the kit reports as such.
    expect(r.stdout).toBe('{"valid":false,"reason":"invalid_payload"}\n');
    expect(r.status).toBe(1);
    writeFileSync(join(project, "key.txt"), "other\n");
    expect(cli(args).stdout).toBe('{"valid":false,"reason":"signature_mismatch"}\n');
  });

  it("generate --spec <copy> --out <dir> writes the same bytes as the repository's generated/", { timeout: 120_000 }, () => {
    cpSync(join(root, "spec"), join(project, "my-spec"), { recursive: true });
    const r = cli(["generate", "--spec", "my-spec", "--out", "out"]);
    expect(r.status, r.stderr).toBe(0);
    const mine = listFiles(join(project, "out"));
    expect(mine).toEqual(listFiles(join(root, "generated")).filter((p) => !p.startsWith("docs/")));
    const differing = mine.filter((p) => readFileSync(join(project, "out", p), "utf8") !== readFileSync(join(root, "generated", p), "utf8"));
    expect(differing).toEqual([]);
    expect(cli(["check", "--spec", "my-spec", "--out", "out"]).status).toBe(0);
  });

  it("a broken spec is one diagnostic line and exit 2, no stack trace", () => {
    writeFileSync(join(project, "my-spec", "limits.yaml"), "limits: [\n");
    const r = cli(["check", "--spec", "my-spec", "--out", "out"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^my-spec\/limits\.yaml:\d+:\d+: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("docs without @redocly/cli is one line naming the package, exit 2", () => {
    const r = cli(["docs", "--out", "out"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("verispec: docs needs the optional package @redocly/cli; install it: npm install --save-dev @redocly/cli\n");
  });
});

// Issue 36: a project with its own spec imports its own output (generated/: JavaScript, .d.ts beside it)
// from plain Node, from strict TypeScript (module nodenext and bundler, no skipLibCheck) and through a
// bundler (esbuild), with nothing of TypeScript installed in the project. Its spec lowers the v5 `name`
// maximum to 99, so that each import is seen to follow the project's spec, not the package's.
describe("a project's own spec, generated and imported", () => {
  const npx = process.platform === "win32" ? "npx.cmd" : "npx";
  let app: string;
  beforeAll(() => {
    app = join(project, "app");
    mkdirSync(app);
    cpSync(join(root, "spec"), join(app, "spec"), { recursive: true });
    lowerNameLimit({
      edit: (file, from, to) => {
        const path = join(app, "spec", file);
        writeFileSync(path, readFileSync(path, "utf8").replace(from, to));
      },
    });
    const r = spawnSync(npx, ["--no-install", "verispec", "generate"], {
      cwd: app,
      encoding: "utf8",
      env: { ...process.env, npm_config_update_notifier: "false", npm_config_cache: join(dir, "npm-cache") },
    });
    if (r.status !== 0) throw new Error(`generate: ${r.stderr}`);
  }, 120_000);

  const longName = "x".repeat(150);
  const program = (imports: string) => `${imports}
const body = { type: "individual", subType: "data", country: "AUS", name: ${JSON.stringify(longName)}, website: "https://example.com" };
// A secret that no message contains (the client redacts the secret from what it reports).
const client = createClient({ baseUrl: "http://127.0.0.1:9", serviceUid: "app-service", secret: "app-secret-value", validate: true });
const refused = await client.v5.createVerification(body).catch((e) => e);
// The spec's example payload, sent now (the timestamp is checked against the tolerance).
const payload = { ...JSON.parse(readFileSync(new URL("./generated/schemas/v5.WebhookPayload.json", import.meta.url), "utf8")).examples[0], timestamp: Date.now() };
const rawBody = JSON.stringify(payload);
const verified = await verifyWebhook({ rawBody, headers: signWebhook({ version: "2", rawBody, secret: "k" }), secret: "k" });
console.log(JSON.stringify({
  specHash, specVersion,
  validator: validate("v5.VerificationCreateRequest", body).errors,
  client: [refused instanceof ValidationError, refused.details?.[0]?.message],
  webhook: [verified.version, verified.payload.verificationStatus, interpretWebhook(verified.payload).outcome],
}));
`;

  it("plain JavaScript imports its own client, validators and webhook verification: the project's limit", () => {
    writeFileSync(
      join(app, "plain.js"),
      program(`import { readFileSync } from "node:fs";
import { createClient, specHash, specVersion, ValidationError } from "./generated/index.js";
import { validate } from "./generated/validators/index.js";
import { interpretWebhook, signWebhook, verifyWebhook } from "./generated/webhooks.js";`),
    );
    const out = JSON.parse(run(process.execPath, ["plain.js"], app)) as Record<string, unknown>;
    const manifest = JSON.parse(readFileSync(join(app, "generated", "manifest.json"), "utf8")) as { specHash: string };
    const own = JSON.parse(readFileSync(join(root, "generated", "manifest.json"), "utf8")) as { specHash: string };
    expect(manifest.specHash).not.toBe(own.specHash); // the project's spec, not the package's
    expect(out).toEqual({
      specHash: manifest.specHash,
      specVersion: "1.0.0",
      validator: [{ message: "Name must be less than 100 characters.", code: "too_big", path: ["name"] }],
      client: [true, "Name must be less than 100 characters."],
      webhook: ["2", "rejected", "retry_possible"],
    });
    // The package's own validators keep the package's limit: two contracts, each where it belongs.
    const pkg = run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { validate } from "verispec/validators"; console.log(validate("v5.VerificationCreateRequest", { name: ${JSON.stringify(longName)}, website: "https://example.com" }).valid);`,
      ],
      app,
    );
    expect(pkg.trim()).toBe("true");
  });

  // TypeScript cannot state a string's length: the types carry the limit in their documentation, and a
  // 150-character literal compiles; the validator (and the client with `validate: true`) refuses it.
  for (const mode of ["nodenext", "bundler"] as const) {
    it(`strict TypeScript (module ${mode}, no skipLibCheck) type-checks against its own output`, () => {
      const sub = join(app, `ts-${mode}`);
      mkdirSync(sub);
      writeFileSync(join(sub, "package.json"), JSON.stringify({ private: true, type: "module" }));
      const options = mode === "nodenext" ? { module: "NodeNext", moduleResolution: "NodeNext" } : { module: "ESNext", moduleResolution: "Bundler" };
      writeFileSync(
        join(sub, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            ...options,
            target: "ES2022",
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
            types: ["node"],
            typeRoots: [join(root, "node_modules", "@types")],
          },
          include: ["consumer.ts"],
        }),
      );
      const from = (p: string) => (mode === "nodenext" ? `../generated/${p}.js` : `../generated/${p === "index" ? "" : p}`.replace(/\/$/, ""));
      writeFileSync(
        join(sub, "consumer.ts"),
        `import { createClient, specHash, ValidationError, type v5 } from "${from("index")}";
import { isValid, validate } from "${from("validators/index")}";
import { verifyWebhook, type WebhookPayload } from "${from("webhooks")}";

export const hash: string = specHash;
// A name over the project's limit compiles (types cannot state a length); validate() refuses it.
const body: v5.VerificationCreateRequest = { type: "individual", subType: "data", country: "AUS", name: ${JSON.stringify(longName)}, website: "https://example.com" };
export const verdict: boolean = validate("v5.VerificationCreateRequest", body).valid;
// @ts-expect-error the country is an ISO 3166-1 alpha-3 code of the project's spec, typed
export const wrong: v5.VerificationCreateRequest = { country: "XX", website: "https://example.com" };
export async function go(raw: string, headers: Record<string, string>): Promise<string> {
  const client = createClient({ baseUrl: "https://api.example.test", serviceUid: "u", secret: "s" });
  const doc: unknown = JSON.parse(raw);
  if (isValid("v5.VerificationCreateRequest", doc)) await client.v5.createVerification(doc).catch((e: unknown) => e instanceof ValidationError);
  const { payload }: { payload: WebhookPayload } = await verifyWebhook({ rawBody: raw, headers, secret: "k" });
  return payload.verificationStatus ?? "";
}
`,
      );
      const r = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: sub, encoding: "utf8" });
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: "", stderr: "" });
      expect(readFileSync(join(app, "generated", "types.d.ts"), "utf8")).toContain("/** Fewer than 100 characters. */\n    name?: string;");
    }, 180_000);

    // TypeScript 7 includes no @types package it is not told of, and the output needs none: the same
    // program, `types: []`, no @types/node anywhere it could look.
    it.skipIf(!tsgo.found)(
      `TypeScript 7 (tsgo, module ${mode}) and TypeScript 5.9 type-check it without @types/node`,
      () => {
        const sub = join(app, `ts-${mode}`);
        const config = JSON.parse(readFileSync(join(sub, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
        const { typeRoots: _, ...bare } = config.compilerOptions;
        writeFileSync(join(sub, "tsconfig.bare.json"), JSON.stringify({ ...config, compilerOptions: { ...bare, types: [] } }));
        for (const compiler of [tsgo.path, join(root, "node_modules/typescript/bin/tsc")]) {
          for (const project of ["tsconfig.json", "tsconfig.bare.json"]) {
            const r = spawnSync(process.execPath, [compiler, "-p", project], { cwd: sub, encoding: "utf8" });
            expect({ compiler, project, status: r.status, stdout: r.stdout }).toEqual({ compiler, project, status: 0, stdout: "" });
          }
        }
        // The check is real: a wrong country fails under tsgo as under tsc.
        writeFileSync(
          join(sub, "wrong.ts"),
          `import type { v5 } from "${mode === "nodenext" ? "../generated/index.js" : "../generated"}";\nexport const w: v5.VerificationCreateRequest = { country: "XX", website: "https://example.com" };\n`,
        );
        writeFileSync(join(sub, "tsconfig.wrong.json"), JSON.stringify({ compilerOptions: { ...bare, types: [] }, include: ["wrong.ts"] }));
        const wrong = spawnSync(process.execPath, [tsgo.path, "-p", "tsconfig.wrong.json"], { cwd: sub, encoding: "utf8" });
        expect(wrong.status).not.toBe(0);
        expect(wrong.stdout).toContain("wrong.ts");
      },
      180_000,
    );
  }

  it("esbuild tree-shakes it: the client leaves the validators to a chunk loaded on demand, one schema's module is a fraction of all (sizes printed)", async () => {
    const { build } = await import("esbuild");
    const entries = {
      client: `import { createClient } from "./generated/index.js";\nexport const client = createClient({ baseUrl: "https://api.example.test", serviceUid: "u", secret: "s" });\n`,
      one: `import { validateV5VerificationCreateRequest } from "./generated/validators/v5.VerificationCreateRequest.js";\nexport const check = validateV5VerificationCreateRequest;\n`,
      all: `import { validate } from "./generated/validators/index.js";\nexport { validate };\n`,
      webhooks: `import { verifyWebhook } from "./generated/webhooks.js";\nexport { verifyWebhook };\n`,
    };
    const sizes: Record<string, number> = {};
    const texts: Record<string, string> = {};
    let chunks = 0;
    for (const [name, code] of Object.entries(entries)) {
      writeFileSync(join(app, `bundle-${name}.js`), code);
      const result = await build({
        entryPoints: [join(app, `bundle-${name}.js`)],
        absWorkingDir: app,
        bundle: true,
        splitting: true,
        format: "esm",
        platform: "node",
        minify: true,
        write: false,
        outdir: join(app, "out"),
        logLevel: "silent",
      });
      const entry = result.outputFiles.find((f) => f.path.endsWith(`/out/bundle-${name}.js`))!;
      sizes[name] = entry.contents.length;
      texts[name] = entry.text;
      if (name === "client") chunks = result.outputFiles.length - 1;
    }
    process.stdout.write(
      `esbuild, minified, a project's own output: client entry ${sizes.client} B (+${chunks} chunk(s) loaded with validation), one schema's validator ${sizes.one} B, every validator ${sizes.all} B, webhooks entry ${sizes.webhooks} B\n`,
    );
    const message = "Name must be less than 100 characters.";
    expect(texts.client).not.toContain(message); // the validators stay out of the client's entry...
    expect(chunks).toBeGreaterThan(0); // ...in a chunk of their own
    expect(texts.one).toContain(message);
    expect(sizes.one! * 3).toBeLessThan(sizes.all!); // one schema's module does not pull in the others
  }, 120_000);

  // The validators' index marks every top-level call pure: an app that imports one validator from it
  // carries that one only, through Vite (Rollup's tree-shaking, here Rolldown) as through esbuild.
  it("Vite tree-shakes it: one validator imported from the index carries only its own checks (sizes printed)", async () => {
    const { build } = await import("vite");
    const { build: esbuild } = await import("esbuild");
    const entries = {
      oneFromIndex: `import { validateV5VerificationCreateRequest } from "./generated/validators/index.js";\nexport const check = validateV5VerificationCreateRequest;\n`,
      oneModule: `import { validateV5VerificationCreateRequest } from "./generated/validators/v5.VerificationCreateRequest.js";\nexport const check = validateV5VerificationCreateRequest;\n`,
      all: `import { validate } from "./generated/validators/index.js";\nexport { validate };\n`,
      client: `import { createClient } from "./generated/index.js";\nexport const client = createClient({ baseUrl: "https://api.example.test", serviceUid: "u", secret: "s" });\n`,
    };
    const vite: Record<string, string> = {};
    const viteEntry: Record<string, number> = {};
    const viaEsbuild: Record<string, number> = {};
    for (const [name, code] of Object.entries(entries)) {
      const file = join(app, `vite-${name}.js`);
      writeFileSync(file, code);
      const out = (await build({
        root: app,
        configFile: false,
        logLevel: "silent",
        build: { write: false, minify: true, lib: { entry: file, formats: ["es"], fileName: name }, rollupOptions: { external: [/^node:/] } },
      })) as { output: { type: string; code?: string; isEntry?: boolean }[] }[] | { output: { type: string; code?: string; isEntry?: boolean }[] };
      const chunks = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output).filter((c) => c.type === "chunk");
      vite[name] = chunks.map((c) => c.code ?? "").join("\n");
      viteEntry[name] = chunks.filter((c) => c.isEntry).reduce((n, c) => n + (c.code ?? "").length, 0);
      const e = await esbuild({
        entryPoints: [file],
        absWorkingDir: app,
        bundle: true,
        format: "esm",
        platform: "node",
        minify: true,
        write: false,
        logLevel: "silent",
      });
      viaEsbuild[name] = e.outputFiles[0]!.contents.length;
    }
    const size = (n: string) => vite[n]!.length;
    process.stdout.write(
      `vite 8, minified, a project's own output: one validator from the index ${size("oneFromIndex")} B, from its own module ${size("oneModule")} B, every validator ${size("all")} B, client entry ${viteEntry.client} B (${size("client")} B with the validators' lazy chunk); esbuild: one from the index ${viaEsbuild.oneFromIndex} B, every validator ${viaEsbuild.all} B\n`,
    );
    const own = "Name must be less than 100 characters.";
    // A word only other schemas' compiled checks hold (the older interface's watchlist entries), not the
    // shared error table every validator imports.
    const other = "watchlist";
    expect(vite.oneFromIndex).toContain(own);
    expect(vite.all).toContain(other);
    expect(vite.oneFromIndex).not.toContain(other);
    expect(size("oneFromIndex") * 3).toBeLessThan(size("all"));
    expect(size("oneFromIndex")).toBeLessThan(size("oneModule") * 1.1);
    expect(viaEsbuild.oneFromIndex! * 3).toBeLessThan(viaEsbuild.all!);
    expect(viteEntry.client! * 10).toBeLessThan(size("all"));
  }, 240_000);

  it.skipIf(!python.found)(
    "the Python conformance runner from the tarball agrees with the package's vectors and with the project's own",
    () => {
      // The package's copy, and the copy `generate` wrote into the project's own generated/conformance/:
      // each reads the generated/ it sits in.
      for (const [runner, own] of [
        [join(project, "node_modules", "verispec", "generated", "conformance", "run_conformance.py"), false],
        [join(app, "generated", "conformance", "run_conformance.py"), true],
      ] as const) {
        const args = own ? ["--root", app] : [];
        const r = spawnSync(python.path, [runner, "--json"], { cwd: project, encoding: "utf8" });
        expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
        const report = JSON.parse(r.stdout) as Record<"requests" | "webhooks", { total: number; agreed: number; skipped: number; disagreed: string[] }>;
        const cases = (
          JSON.parse(
            readFileSync(join(args.length ? app : join(project, "node_modules", "verispec"), "generated", "conformance", "requests.json"), "utf8"),
          ) as { cases: unknown[] }
        ).cases.length;
        expect(report.requests).toEqual({ total: cases, agreed: cases, skipped: 0, disagreed: [] });
        expect(report.webhooks.disagreed).toEqual([]);
        expect(report.webhooks.agreed).toBeGreaterThan(50);
      }
    },
    120_000,
  );
});
