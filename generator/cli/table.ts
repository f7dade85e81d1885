// The command table: every `verispec` command, one entry each, in the order `verispec --help` lists
// them. An entry is its usage text, its options (for node:util parseArgs) and `run`, which imports the
// command's module only when that command runs, so a call loads only what it uses.
//
// Adding a command is one entry here (plus its module under commands/ and its usage in usage.ts):
// the help text, option parsing, --help, usage errors (exit 2) and spec errors come from main.ts.
import type { ParseArgsConfig } from "node:util";
import type { CommandCall } from "./command-call.js";
import { CHECK_USAGE, CONFORM_USAGE, DIFF_USAGE, DOCS_USAGE, GENERATE_USAGE, SANDBOX_USAGE, SCHEMAS_USAGE, VALIDATE_USAGE, WEBHOOK_USAGE } from "./usage.js";

export interface Command {
  /** The synopsis and one line, for `verispec --help`. */
  readonly synopsis: string;
  readonly summary: string;
  readonly usage: string;
  /** parseArgs options (--help is added), or "own": the command reads its arguments itself. */
  readonly options: NonNullable<ParseArgsConfig["options"]> | "own";
  /** How many positionals the command takes, and what to say otherwise. */
  readonly positionals?: { readonly count: number; readonly message: string };
  readonly run: (call: CommandCall) => Promise<number>;
}

const spec = { spec: { type: "string" } } as const;
const out = { out: { type: "string" } } as const;

export const COMMANDS: Readonly<Record<string, Command>> = {
  generate: {
    synopsis: "generate",
    summary: "Generate generated/ from spec/ (all files or none; --watch: on every change)",
    usage: GENERATE_USAGE,
    options: { ...spec, ...out, watch: { type: "boolean" } },
    run: async (c) => (await import("./commands/generate.js")).generate(c),
  },
  check: {
    synopsis: "check",
    summary: "Exit 1 with one line per stale file when generated/ is stale, 0 when current",
    usage: CHECK_USAGE,
    options: { ...spec, ...out, diff: { type: "boolean" } },
    run: async (c) => (await import("./commands/check.js")).check(c),
  },
  schemas: {
    synopsis: "schemas",
    summary: "List the schema ids, one a line",
    usage: SCHEMAS_USAGE,
    options: { ...spec, ...out },
    run: async (c) => (await import("./commands/schemas.js")).schemas(c),
  },
  validate: {
    synopsis: "validate <id> <file|->",
    summary: "Validate a JSON document against a schema id",
    usage: VALIDATE_USAGE,
    options: { ...out },
    positionals: { count: 2, message: "validate takes a schema id and a file (or -)" },
    run: async (c) => (await import("./commands/validate.js")).validate(c),
  },
  webhook: {
    synopsis: "webhook verify ...",
    summary: "Verify a signed webhook delivery (verispec webhook verify --help)",
    usage: WEBHOOK_USAGE,
    options: "own",
    run: async (c) => (await import("./commands/webhook.js")).webhook(c),
  },
  diff: {
    synopsis: "diff <base> [<head>]",
    summary: "What changed between two versions of the spec, whom it breaks (exit 1 when breaking)",
    usage: DIFF_USAGE,
    options: "own",
    run: async (c) => (await import("./commands/diff.js")).diff(c),
  },
  docs: {
    synopsis: "docs",
    summary: "Write generated/docs/: the API reference and the user guides, an offline site",
    usage: DOCS_USAGE,
    options: { ...out },
    run: async (c) => (await import("./commands/docs.js")).docs(c),
  },
  conform: {
    synopsis: "conform <base-url> | conform --proxy <listen> <upstream>",
    summary: "Check a server claiming to be the service against the spec (vectors, life cycle, webhooks), or judge live traffic as a proxy",
    usage: CONFORM_USAGE,
    options: {
      ...spec,
      format: { type: "string" },
      "max-requests": { type: "string" },
      rate: { type: "string" },
      "receive-on": { type: "string" },
      "webhook-wait-ms": { type: "string" },
      "timeout-ms": { type: "string" },
      "requested-actions-path": { type: "string" },
      "allow-http": { type: "boolean" },
      "max-body-bytes": { type: "string" },
      proxy: { type: "string" },
      duration: { type: "string" },
    },
    positionals: { count: 1, message: "conform takes the base URL of the server (with --proxy: of the upstream)" },
    run: async (c) =>
      c.values["proxy"] !== undefined ? (await import("./commands/conform-proxy.js")).conformProxy(c) : (await import("./commands/conform.js")).conform(c),
  },
  sandbox: {
    synopsis: "sandbox",
    summary: "Run the service on this machine: state, attempts, hosted forms, signed webhooks",
    usage: SANDBOX_USAGE,
    options: {
      spec: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      db: { type: "string" },
      "webhook-url": { type: "string", multiple: true },
      "signature-version": { type: "string" },
      "processing-ms": { type: "string" },
      "requested-actions-path": { type: "string" },
      "max-body": { type: "string" },
      "delivery-timeout-ms": { type: "string" },
      "retry-delays": { type: "string" },
      debug: { type: "boolean" },
      "reset-clock": { type: "boolean" },
      "log-format": { type: "string" },
      "shutdown-timeout-ms": { type: "string" },
      "retain-days": { type: "string" },
      tenants: { type: "string" },
    },
    run: async (c) => (await import("./commands/sandbox.js")).sandbox(c),
  },
};

/** `verispec --help`: built from the table. */
export function mainUsage(): string {
  const rows = Object.values(COMMANDS).map((c) => `  ${c.synopsis.padEnd(25)}${c.summary}`);
  return `Usage: verispec <command> [options]

Commands:
${rows.join("\n")}

Options:
  --spec <dir>             Spec directory (default: ./spec, else the package's own spec)
  --out <dir>              Output directory (default: ./generated)
  -h, --help               Show help for a command`;
}
