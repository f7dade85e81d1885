/**
 * `verispec webhook verify`: checks one received webhook from files (the service's specification, section 6.4).
 * The signing key comes from `VERISPEC_SIGNING_SECRET` or `--secret-file`, never from argv, where
 * it would be visible in `ps` output and shell history.
 */
import { parseArgs } from "node:util";
import { isWebhookVerificationError } from "../../../templates/webhooks/errors.js";
import type { VerifyWebhookInput } from "../../../templates/webhooks/index.js";
import { readAtMost, tooLargeMessage } from "../../read-bounded.js";
import type { CommandCall } from "../command-call.js";
import { WEBHOOK_USAGE } from "../usage.js";

export { WEBHOOK_USAGE };

/**
 * `verispec webhook ...` with the kit generated from the package's spec (generated/webhooks.js, copied
 * to dist/generated/webhooks.js: the path is the same relative to this module in both trees).
 */
export async function webhook({ args, io }: CommandCall): Promise<number> {
  const kit = await import("../../../generated/webhooks.js");
  return webhookCommand([...args], { stdout: io.stdout, stderr: io.stderr, env: io.env }, kit);
}

export interface WebhookCommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Default: readBounded (at most 10 MiB). */
  readonly readFile?: (path: string) => Promise<Uint8Array | string>;
}

/** The part of a webhook kit the command needs (the generated kit, passed in by the CLI). */
export interface WebhookCommandKit {
  readonly verifyWebhook: (input: VerifyWebhookInput) => Promise<{ readonly version: string }>;
}

class UsageError extends Error {}

/** A file over the 10 MiB bound (read-bounded.ts): /dev/zero fails fast instead of filling memory. */
class TooLarge extends Error {}

/** The default read: a file's bytes, at most 10 MiB. */
async function readBounded(path: string): Promise<Uint8Array> {
  const bytes = readAtMost(path);
  if (bytes === undefined) throw new TooLarge();
  return bytes;
}

/** `args` are the arguments after `webhook`, e.g. `["verify", "--body", "body.json", ...]`. Returns the exit code. */
export async function webhookCommand(args: string[], io: WebhookCommandIo, kit: WebhookCommandKit): Promise<number> {
  let options: VerifyOptions;
  try {
    const parsed = parseCommandLine(args);
    if (parsed === "help") {
      io.stdout(WEBHOOK_USAGE);
      return 0;
    }
    options = parsed;
  } catch (error) {
    return usageFailure(io, error);
  }

  const readFile = io.readFile ?? readBounded;
  let input: VerifyWebhookInput;
  try {
    const secret = await readSecret(options.secretFile, io.env, readFile);
    const rawBody = await readInput(readFile, options.bodyFile, "--body");
    input = {
      rawBody: typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody,
      headers: options.headers,
      secret,
      now: options.now ?? Date.now(),
      // A one-shot check of a single delivery has nothing to be a replay of.
      replayStore: { addIfAbsent: () => true },
    };
  } catch (error) {
    return usageFailure(io, error);
  }

  try {
    const { version } = await kit.verifyWebhook(input);
    io.stdout(`${JSON.stringify({ valid: true, version })}\n`);
    return 0;
  } catch (error) {
    // Duck-typed: the generated runtime's error class is a copy of this folder's, not the same class.
    if (!isWebhookVerificationError(error)) {
      io.stderr(`verispec webhook verify: ${error instanceof Error ? error.message : "unexpected error"}\n`);
      return 2;
    }
    io.stdout(`${JSON.stringify({ valid: false, reason: error.reason })}\n`);
    io.stderr(`${error.message}\n`);
    return 1;
  }
}

interface VerifyOptions {
  readonly bodyFile: string;
  readonly headers: Record<string, string | string[]>;
  readonly now: number | undefined;
  readonly secretFile: string | undefined;
}

function parseCommandLine(args: readonly string[]): VerifyOptions | "help" {
  // Refuse before parsing, so the key is never parsed, stored or echoed.
  if (args.some((arg) => arg === "--secret" || arg.startsWith("--secret="))) {
    throw new UsageError("--secret is not accepted: pass the key in VERISPEC_SIGNING_SECRET or with --secret-file");
  }
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      body: { type: "string" },
      header: { type: "string", multiple: true },
      now: { type: "string" },
      "secret-file": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) return "help";
  // Positionals are not quoted back: a mistyped key could be among them.
  if (positionals.length === 0 || positionals[0] !== "verify") throw new UsageError("expected the subcommand verify");
  if (positionals.length > 1) throw new UsageError("unexpected extra argument after verify");
  if (values.body === undefined) throw new UsageError("--body <file> is required");
  const headers = parseHeaders(values.header ?? []);
  return { bodyFile: values.body, headers, now: parseNow(values.now), secretFile: values["secret-file"] };
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function parseHeaders(lines: readonly string[]): Record<string, string | string[]> {
  if (lines.length === 0) throw new UsageError('at least one --header "Name: value" is required');
  const headers: Record<string, string | string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!HEADER_NAME.test(name)) throw new UsageError('--header must look like "Name: value"');
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    const existing = headers[key];
    // A repeated header is kept as an array, which verification then refuses as ambiguous.
    headers[key] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  return headers;
}

function parseNow(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const now = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(now)) throw new UsageError("--now must be Unix time in milliseconds (digits only)");
  return now;
}

async function readSecret(secretFile: string | undefined, env: NodeJS.ProcessEnv, readFile: (path: string) => Promise<Uint8Array | string>): Promise<string> {
  const raw = secretFile === undefined ? env["VERISPEC_SIGNING_SECRET"] : textOf(await readInput(readFile, secretFile, "--secret-file"));
  // One trailing newline is what `echo key > file` adds; it is not part of the key.
  const secret = raw?.replace(/\r?\n$/, "");
  if (secret === undefined || secret === "") {
    throw new UsageError("no signing key: set VERISPEC_SIGNING_SECRET or pass --secret-file <path>");
  }
  return secret;
}

async function readInput(readFile: (path: string) => Promise<Uint8Array | string>, path: string, flag: string): Promise<Uint8Array | string> {
  try {
    return await readFile(path);
  } catch (error) {
    if (error instanceof TooLarge) throw new TooLarge(tooLargeMessage(`the ${flag} file`, "'verispec webhook verify'"));
    throw new UsageError(`cannot read the ${flag} file`);
  }
}

function textOf(value: Uint8Array | string): string {
  return typeof value === "string" ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("utf8");
}

function usageFailure(io: WebhookCommandIo, error: unknown): number {
  // parseArgs messages name the option only, never its value; other errors here are ours.
  const message = error instanceof Error ? error.message : "invalid arguments";
  // An input over the bound is not a mistake in the call: one line, no usage.
  if (error instanceof TooLarge) {
    io.stderr(`verispec webhook verify: ${message}\n`);
    return 2;
  }
  io.stderr(`verispec webhook verify: ${message}\n\n${WEBHOOK_USAGE}`);
  return 2;
}
