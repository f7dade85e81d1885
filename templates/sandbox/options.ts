// What startSandbox is given (its options, one account's options), why a start fails (StartError), and the
// accounts the options name (tenantsOf).
import type { SignatureVersion } from "../webhooks/index.js";
import type { SandboxBinding } from "./binding.js";
import type { SandboxLogger } from "./logging.js";
import type { Credentials } from "./exchange.js";
import { DEFAULT_TENANT, type Db } from "./store/index.js";

export interface SandboxOptions {
  readonly binding: SandboxBinding;
  readonly host: string;
  readonly port: number;
  /** A directory (PGlite), "memory", or a postgres:// URL. */
  readonly db: string;
  readonly cwd: string;
  /** The store of `db`, already opening (openStore, started by the caller while it loaded the rest); closed if the start fails. */
  readonly opening?: Promise<Db>;
  /**
   * The accounts (docs/operating-a-shared-sandbox.md, Tenants). Without it, the one account named
   * DEFAULT_TENANT made of `credentials`, `signingSecret`, `webhookUrls` and `signatureVersion`.
   */
  readonly tenants?: readonly TenantOptions[];
  readonly webhookUrls?: readonly string[];
  readonly signatureVersion?: SignatureVersion;
  readonly processingMs: number | "manual";
  readonly requestedActionsPath: string;
  readonly maxBodyBytes: number;
  readonly credentials?: Credentials;
  readonly signingSecret?: string;
  readonly deliveryTimeoutMs: number;
  readonly retryDelaysMs: readonly number[];
  readonly log: (line: string) => void;
  /** Internal errors are logged with their stack. */
  readonly debug?: boolean;
  /** Sets a stored clock offset back to 0 (real time) before starting. */
  readonly resetClock?: boolean;
  /** Events and request lines (default: events as `log` lines, requests not logged). */
  readonly logger?: SandboxLogger;
  /** Serve Prometheus metrics at /metrics (default true; needs prom-client, else /metrics answers 404). */
  readonly metrics?: boolean;
  /** How long close() waits for in-flight requests, processing and deliveries (default 10,000 ms). */
  readonly shutdownTimeoutMs?: number;
  /** Days stored data is kept (retention.ts; default 30); 0 keeps everything. */
  readonly retainDays?: number;
}

/** One account of the sandbox: its credentials, signing secret and webhook receivers. */
export interface TenantOptions {
  /** Letters, digits, `_` and `-` (it labels rows, logs and metrics; never a secret). */
  readonly name: string;
  readonly credentials: Credentials;
  readonly signingSecret: string;
  readonly webhookUrls: readonly string[];
  readonly signatureVersion: SignatureVersion;
}

/** Why the sandbox did not start, in one line for its user (the CLI prints it and exits 2). */
export class StartError extends Error {
  constructor(
    message: string,
    readonly code: "VERISPEC_LISTEN" | "VERISPEC_CLOCK_RANGE" | "VERISPEC_TENANTS",
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = "StartError";
  }
}

/** The accounts of the options: `tenants`, or the one account of the single-account options; names and service UIDs each distinct. */
export function tenantsOf(options: SandboxOptions): readonly TenantOptions[] {
  const tenants =
    options.tenants ??
    (options.credentials && options.signingSecret !== undefined
      ? [
          {
            name: DEFAULT_TENANT,
            credentials: options.credentials,
            signingSecret: options.signingSecret,
            webhookUrls: options.webhookUrls ?? [],
            signatureVersion: options.signatureVersion ?? options.binding.spec.payloadSignatureVersions.v5,
          },
        ]
      : []);
  if (!tenants.length) throw new StartError("the sandbox needs an account: credentials and a signing secret, or tenants", "VERISPEC_TENANTS");
  const twice = (values: string[]) => values.find((v, i) => values.indexOf(v) !== i);
  if (twice(tenants.map((t) => t.name)) !== undefined) throw new StartError(`two tenants are named ${twice(tenants.map((t) => t.name))}`, "VERISPEC_TENANTS");
  // Not the UID itself: the message may reach a log, and which UIDs exist is the accounts' business.
  const uid = twice(tenants.map((t) => t.credentials.serviceUid));
  if (uid !== undefined)
    throw new StartError(
      `two tenants have one service UID (${tenants
        .filter((t) => t.credentials.serviceUid === uid)
        .map((t) => t.name)
        .join(", ")})`,
      "VERISPEC_TENANTS",
    );
  return tenants;
}
