// CLI: argument parsing and usage only; the work lives in commands.ts.
import { parseArgs } from "node:util";
import { SpecError, UsageError } from "./diagnostics.js";

export const USAGE: Readonly<Record<string, string>> = {
  main: `Usage: verispec <command> [options]

Commands:
  generate                 Generate generated/ from spec/ (all files or none)
  check                    Exit 1 with a short per-file diff when generated/ is stale, 0 when current
  schemas                  List the schema ids, one a line
  validate <id> <file|->   Validate a JSON document against a schema id
  webhook verify ...       Verify a signed webhook delivery (verispec webhook verify --help)
  docs                     Write generated/docs/index.html, a self-contained API reference

Options:
  --spec <dir>             Spec directory (default: ./spec)
  --out <dir>              Output directory (default: ./generated)
  -h, --help               Show help for a command`,
  generate: `Usage: verispec generate [--spec <dir>] [--out <dir>]

Loads spec/, checks it, and writes every generated file to generated/ atomically: all files or none.
A broken spec file is reported as file:line:col with what was found and what was expected (exit 2).`,
  check: `Usage: verispec check [--spec <dir>] [--out <dir>]

Regenerates in memory and compares with generated/. Exit 0 when current; exit 1 and a short
per-file diff when stale (files changed, missing, or no longer generated); exit 2 on a broken spec.`,
  schemas: `Usage: verispec schemas [--spec <dir>]

Prints the schema ids, one a line (use them with 'verispec validate' and generated/schemas/<id>.json).`,
  validate: `Usage: verispec validate <schemaId> <file|->

Validates a JSON document (a file, or standard input with '-') against a schema id.
Prints {"valid":true} and exits 0, or {"valid":false,"errors":[{message,code,path}]} and exits 1.
An unknown schema id, a missing file or text that is not JSON: one line on stderr and exit 2.`,
  docs: `Usage: verispec docs [--out <dir>]

Writes <out>/docs/index.html from <out>/openapi.json with Redocly CLI (Redoc bundled inline): one
self-contained page that loads nothing from the network. Run 'verispec generate' first.`,
};

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdin: () => Promise<string>;
}

const processIo: Io = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  stdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
};

function usageError(io: Io, command: string, message: string): number {
  io.stderr(`verispec: ${message}\n\n${USAGE[command] ?? USAGE.main}\n`);
  return 2;
}

/** Runs one CLI call; returns the exit code. Never throws for user mistakes. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    io.stdout(`${USAGE.main}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === "webhook") {
    const { runWebhook } = await import("./commands.js");
    return runWebhook(rest, io);
  }
  if (!(command in USAGE) || command === "main") return usageError(io, "main", `unknown command ${JSON.stringify(command)}`);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: command === "validate",
      strict: true,
      options: { spec: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    return usageError(io, command, (err as Error).message);
  }
  if (parsed.values.help) {
    io.stdout(`${USAGE[command]}\n`);
    return 0;
  }
  const commands = await import("./commands.js");
  const dirs = commands.resolveDirs(io.cwd, parsed.values.spec, parsed.values.out);
  try {
    switch (command) {
      case "generate":
        return commands.runGenerate(dirs, io);
      case "check":
        return commands.runCheck(dirs, io);
      case "schemas":
        return commands.runSchemas(dirs, io);
      case "docs":
        return await (await import("./docs.js")).runDocs(dirs, io);
      case "validate": {
        if (parsed.positionals.length !== 2) return usageError(io, "validate", "validate takes a schema id and a file (or -)");
        const [id, file] = parsed.positionals as [string, string];
        return await commands.runValidate(dirs, id, file, io);
      }
    }
  } catch (err) {
    if (err instanceof SpecError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      io.stderr(`verispec: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  return 2;
}
