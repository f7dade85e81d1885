// `verispec sandbox --tenants <file>`: the file is refused before anything listens (exit 2, one line naming
// the file and, where it can, line:col) when group or others may read or write it, and for every mistake in
// it; no refusal quotes a secret in any encoding. A good file starts a sandbox whose tenants (and the
// environment's account, as tenant default) each authenticate, with no test value made or printed.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { permissionProblem, readTenantsFile } from "../../generator/cli/commands/sandbox-tenants.js";
import { main } from "../../generator/cli/main.js";
import { basic, startSandbox, until } from "./helpers.js";
import { encodings } from "./tenants-isolation.js";

const dir = mkdtempSync(join(tmpdir(), "verispec-tenants-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET_A = "tenant-a-secret-7c0e2b9d41f3";
const SIGN_A = "tenant-a-signing-5b8f1e6a02d7";
const SECRET_B = "tenant-b-secret-e94a0c3d8b21";
const SIGN_B = "tenant-b-signing-0d6c4f9a1e57";
const ENV_SECRET = "env-account-secret-3f9a2c7e1b";
const ENV_SIGN = "env-account-signing-8e1d5a0c6f";
const ALL_SECRETS = [SECRET_A, SIGN_A, SECRET_B, SIGN_B, ENV_SECRET, ENV_SIGN];

const GOOD = `# the accounts of the shared sandbox
tenants:
  - name: team-a
    serviceUid: uid-team-a
    secret: ${SECRET_A}
    signingSecret: ${SIGN_A}
    webhookUrls: [https://team-a.example/webhooks]
  - name: team-b
    serviceUid: uid-team-b
    secret: ${SECRET_B}
    signingSecret: ${SIGN_B}
    signatureVersion: "1"
`;

let n = 0;
/** A tenants file with `text`, mode 600 unless told. */
function file(text: string, mode = 0o600): string {
  const path = join(dir, `tenants-${++n}.yaml`);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(["sandbox", "--port", "0", "--db", "memory", ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env,
    cwd: process.cwd(),
    stdin: async () => "",
  });
  return { code, stdout, stderr };
}

/** Exit 2, the first line matching `message`, no stack, nothing listening, no secret in any encoding. */
function refused(r: { code: number; stdout: string; stderr: string }, message: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stderr.split("\n")[0]).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).not.toContain("listening");
  for (const secret of ALL_SECRETS) for (const form of encodings(secret)) expect(r.stdout + r.stderr).not.toContain(form);
}

describe("verispec sandbox --tenants: a file refused, before listening", () => {
  it("readable by group or others (like ssh with a key): mode named, chmod 600 asked", async () => {
    for (const mode of [0o644, 0o640, 0o604, 0o620, 0o602]) {
      const path = file(GOOD, mode);
      refused(
        await run(["--tenants", path]),
        new RegExp(
          `--tenants ${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&")}: readable or writable by group or others \\(mode 0${mode.toString(8)}\\).*chmod 600`,
        ),
      );
    }
    expect(permissionProblem(0o100600)).toBeUndefined();
    expect(permissionProblem(0o100400)).toBeUndefined();
    expect(permissionProblem(0o100644, "win32")).toBeUndefined();
  });

  it("missing, or not a file", async () => {
    refused(await run(["--tenants", join(dir, "no-such.yaml")]), /--tenants .*no-such\.yaml: cannot read it \(ENOENT\)/);
    refused(await run(["--tenants", dir]), /not a regular file/);
    refused(await run(["--tenants", ""]), /--tenants must name a file/);
  });

  const mistakes: Array<[string, string, RegExp]> = [
    ["two tenants with one name", GOOD.replace("name: team-b", "name: team-a"), /: two tenants are named team-a$/],
    [
      "two tenants with one service UID",
      GOOD.replace("serviceUid: uid-team-b", "serviceUid: uid-team-a"),
      /: tenants team-a and team-b have the same serviceUid$/,
    ],
    ["a missing secret", GOOD.replace(`    secret: ${SECRET_B}\n`, ""), /:8:5: tenant team-b: secret is missing$/],
    ["a missing signing secret", GOOD.replace(`    signingSecret: ${SIGN_A}\n`, ""), /:3:5: tenant team-a: signingSecret is missing$/],
    ["a missing name", GOOD.replace("  - name: team-a\n    serviceUid", "  - serviceUid"), /:3:5: tenants\[0\]: name is missing$/],
    ["a name that is not plain", GOOD.replace("name: team-a", "name: team a!"), /:3:11: tenants\[0\]: name must be 1 to 63 letters/],
    [
      "a bad webhook URL",
      GOOD.replace("https://team-a.example/webhooks", "ftp://user:pw@x.example/"),
      /:7:19: tenant team-a: webhookUrls\[0\] is not an http or https URL$/,
    ],
    [
      "webhookUrls not a list",
      GOOD.replace("webhookUrls: [https://team-a.example/webhooks]", "webhookUrls: https://team-a.example/webhooks"),
      /:7:18: tenant team-a: webhookUrls must be a list of URLs$/,
    ],
    ["a short secret", GOOD.replace(SECRET_A, "short"), /:5:13: tenant team-a: secret must be at least 16 characters$/],
    ["a service UID with a colon", GOOD.replace("uid-team-a", "uid:team-a"), /:4:17: tenant team-a: serviceUid must not contain ":"/],
    [
      "a signature version of neither",
      GOOD.replace('signatureVersion: "1"', 'signatureVersion: "3"'),
      /:12:23: tenant team-b: signatureVersion must be 2 or 1$/,
    ],
    [
      "a signature version that is a list",
      GOOD.replace('signatureVersion: "1"', "signatureVersion: [1, 2]"),
      /:12:23: tenant team-b: signatureVersion must be a version of the spec's webhook signatures$/,
    ],
    [
      "an unknown field (a typo of a secret's name)",
      GOOD.replace(`signingSecret: ${SIGN_B}`, `signingsecret: ${SIGN_B}`),
      /:11:5: tenants\[1\]: unknown field "signingsecret"/,
    ],
    ["a secret that is not a string", GOOD.replace(`secret: ${SECRET_B}`, "secret: [1, 2]"), /:10:13: tenant team-b: secret must be a non-empty string$/],
    ["no tenants", "tenants: []\n", /: the file must hold "tenants:", a list of at least one tenant$/],
    [
      "not YAML (the line holds a secret: told by code, not quoted)",
      GOOD.replace(`secret: ${SECRET_A}`, `secret: "${SECRET_A}`),
      /:\d+:\d+: not valid YAML \([A-Z_]+\)$/,
    ],
    ["a key twice", GOOD.replace(`    secret: ${SECRET_A}\n`, `    secret: ${SECRET_A}\n    secret: ${SECRET_B}\n`), /:6:5: not valid YAML \(DUPLICATE_KEY\)$/],
  ];
  for (const [what, text, message] of mistakes) {
    it(`${what}: one line naming the file and where`, async () => {
      const path = file(text);
      const r = await run(["--tenants", path]);
      refused(r, message);
      expect(r.stderr.split("\n")[0]).toContain(path);
    });
  }
});

describe("a tenants file in JSON (JSON is YAML)", () => {
  it("reads the same tenants, defaults left to the spec (no receivers, no signature version written)", () => {
    const json = JSON.stringify({ tenants: [{ name: "team-j", serviceUid: "uid-team-j", secret: SECRET_A, signingSecret: SIGN_A }] }, null, 2);
    expect(readTenantsFile(file(json), process.cwd())).toEqual([
      { name: "team-j", credentials: { serviceUid: "uid-team-j", secret: SECRET_A }, signingSecret: SIGN_A, webhookUrls: [], signatureVersion: undefined },
    ]);
    expect(readTenantsFile(file(GOOD), process.cwd()).map((t) => [t.name, t.webhookUrls, t.signatureVersion?.value])).toEqual([
      ["team-a", ["https://team-a.example/webhooks"], undefined],
      ["team-b", [], "1"],
    ]);
  });
});

describe("verispec sandbox --tenants with the environment's account", () => {
  const ENV = { VERISPEC_SANDBOX_SERVICE_UID: "uid-env", VERISPEC_SANDBOX_SECRET: ENV_SECRET, VERISPEC_SIGNING_SECRET: ENV_SIGN };
  it("refuses half an account, an account without its signing secret, and its settings without it", async () => {
    refused(
      await run(["--tenants", file(GOOD)], { VERISPEC_SANDBOX_SERVICE_UID: "uid-env" }),
      /needs both VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET/,
    );
    refused(
      await run(["--tenants", file(GOOD)], { VERISPEC_SANDBOX_SERVICE_UID: "uid-env", VERISPEC_SANDBOX_SECRET: ENV_SECRET }),
      /needs VERISPEC_SIGNING_SECRET too/,
    );
    refused(await run(["--tenants", file(GOOD), "--webhook-url", "http://x.example/"]), /^verispec: --webhook-url set the environment's account/);
    refused(await run(["--tenants", file(GOOD)], { VERISPEC_SIGNING_SECRET: ENV_SIGN }), /VERISPEC_SIGNING_SECRET set the environment's account/);
  });

  it("refuses a file tenant named default or with the environment's service UID", async () => {
    refused(await run(["--tenants", file(GOOD.replace("name: team-b", "name: default"))], ENV), /and the environment: two tenants are named default$/);
    refused(
      await run(["--tenants", file(GOOD.replace("uid-team-b", "uid-env"))], ENV),
      /and the environment: tenants default and team-b have the same serviceUid$/,
    );
  });

  it("starts with every tenant and the environment's account (tenant default), no test value, no secret printed", async () => {
    const path = file(GOOD);
    const sandbox = await startSandbox(["--db", "memory", "--processing-ms", "manual"], { ...ENV, VERISPEC_SANDBOX_TENANTS: path });
    try {
      await until(() => /^tenants: default, team-a, team-b$/m.test(sandbox.stdout), "the tenants line");
      expect(sandbox.stdout).not.toContain("test value");
      for (const [uid, secret] of [
        ["uid-env", ENV_SECRET],
        ["uid-team-a", SECRET_A],
        ["uid-team-b", SECRET_B],
      ]) {
        const r = await fetch(`${sandbox.url}/_sandbox/verifications`, { headers: { authorization: basic({ serviceUid: uid!, secret: secret! }) } });
        expect(r.status, uid).toBe(200);
      }
      // A tenant's UID with another's secret is no one's.
      expect(
        (await fetch(`${sandbox.url}/_sandbox/verifications`, { headers: { authorization: basic({ serviceUid: "uid-team-a", secret: SECRET_B }) } })).status,
      ).toBe(401);
      for (const secret of ALL_SECRETS)
        for (const form of encodings(secret)) expect(sandbox.stdout + sandbox.stderr + sandbox.child.spawnargs.join(" ")).not.toContain(form);
    } finally {
      expect(await sandbox.stop("SIGTERM")).toBe(0);
    }
  }, 60_000);
});
