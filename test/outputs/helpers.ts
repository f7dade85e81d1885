// Shared by the test/outputs tests: the repository root, running a CLI of node_modules/.bin, free ports.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const OPENAPI = join(ROOT, "generated", "openapi.json");
export const SCHEMAS = join(ROOT, "generated", "schemas");
export const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion (no shell), collecting its output. */
export function run(command: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, [...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? "");
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePromise(port));
    });
  });
}

/** The text between `<!-- name:start -->` and `<!-- name:end -->` in README.md or a guide under docs/. */
export async function readmeSection(name: string): Promise<string> {
  const { docSection } = await import("../support/docs.js");
  return docSection(name);
}

/**
 * The TypeScript verdict on a payload: the generated validators (generated/validators/index.js,
 * `validate(id, data)`) when they exist, else Ajv (draft 2020-12, formats) on generated/schemas.
 */
export async function typescriptVerdict(): Promise<{ source: string; validate: (id: string, data: unknown) => boolean }> {
  const { existsSync, readFileSync } = await import("node:fs");
  const { pathToFileURL } = await import("node:url");
  const generated = join(ROOT, "generated", "validators", "index.js");
  if (existsSync(generated)) {
    const mod = (await import(pathToFileURL(generated).href)) as { validate: (id: string, data: unknown) => unknown };
    return {
      source: "generated/validators",
      validate: (id, data) => {
        const r = mod.validate(id, data);
        return typeof r === "boolean" ? r : Boolean((r as { valid: boolean }).valid);
      },
    };
  }
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  const addFormats = (await import("ajv-formats")).default as unknown as (ajv: InstanceType<typeof Ajv2020>) => void;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return {
    source: "Ajv on generated/schemas",
    validate: (id, data) => {
      const schema = JSON.parse(readFileSync(join(SCHEMAS, `${id}.json`), "utf8")) as { $id: string };
      const v = ajv.getSchema(schema.$id) ?? ajv.compile(schema);
      return v(data) as boolean;
    },
  };
}
