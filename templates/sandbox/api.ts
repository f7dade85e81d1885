// The package's entry `verispec/sandbox`: the sandbox started inside a test suite's own process, serving
// the package's spec (generated/sandbox.js), with what a suite wants by default: any free port on
// 127.0.0.1, PGlite in memory (loaded from the shipped template: ready in about the time of an existing
// directory), fresh test credentials returned on the handle, no metrics, no log. The CLI's `verispec
// sandbox` starts the same runtime (templates/sandbox/index.ts) with the command line's choices.
//
// The store is opened first, on its own thread, and the rest of the runtime loaded meanwhile (this module
// imports nothing else at its top): the database's start is most of a start (docs/engineering/sandbox-start.md).
import { randomBytes } from "node:crypto";
import type { SignatureVersion } from "../webhooks/index.js";
import type { SandboxBinding } from "./binding.js";
import { closeWhenOpen, openStore } from "./store/index.js";

export interface StartSandboxOptions {
  /** Default 0: a free port (read it from `url`). */
  readonly port?: number;
  /** Default "127.0.0.1". */
  readonly host?: string;
  /** "memory" (default: PGlite in memory), a directory (PGlite, kept), or a postgres:// URL. */
  readonly db?: string;
  /** Where a relative `db` directory is resolved (default: the working directory). */
  readonly cwd?: string;
  /** Receivers of the sandbox's webhooks (default none). */
  readonly webhookUrls?: readonly string[];
  /** Webhook signature scheme: the version header's value, "2" or "1" (default: the one the v5 payload is signed with, "2"). */
  readonly signatureVersion?: SignatureVersion;
  /** Milliseconds until a submitted verification is processed (default 1000), or "manual": only the control API moves it. */
  readonly processingMs?: number | "manual";
  /** The account's credentials and webhook signing secret (default: fresh random test values, returned on the handle). */
  readonly serviceUid?: string;
  readonly secret?: string;
  readonly signingSecret?: string;
  /** Days stored data is kept (default 30; 0 keeps everything). */
  readonly retainDays?: number;
  /** Serve Prometheus metrics at /metrics (default false; needs prom-client). */
  readonly metrics?: boolean;
  /** The sandbox's event lines (default: not shown). */
  readonly log?: (line: string) => void;
}

export interface RunningSandbox {
  /** http://<host>:<port>, no trailing slash. */
  readonly url: string;
  readonly serviceUid: string;
  readonly secret: string;
  readonly signingSecret: string;
  /** Stops accepting, finishes what is in flight, closes the database (a database in memory is gone). */
  close(): Promise<void>;
}

/** Starts a sandbox in this process; resolves once it listens. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const db = options.db ?? "memory";
  const cwd = options.cwd ?? process.cwd();
  const opening = openStore(db, cwd);
  opening.catch(() => {}); // reported by startRuntime, which awaits it
  const loaded = await Promise.all([import("../../generated/sandbox.js"), import("./binding.js"), import("./index.js")]).catch(async (err: unknown) => {
    await closeWhenOpen(opening);
    throw err;
  });
  const [{ sandboxBinding }, { choice }, { startSandbox: startRuntime }] = loaded;
  const binding = sandboxBinding as unknown as SandboxBinding;
  const spec = binding.spec;
  const serviceUid = options.serviceUid ?? `sandbox-${randomBytes(4).toString("hex")}`;
  const secret = options.secret ?? randomBytes(18).toString("base64url");
  const signingSecret = options.signingSecret ?? randomBytes(24).toString("base64url");
  const running = await startRuntime({
    binding,
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    db,
    cwd,
    opening,
    webhookUrls: options.webhookUrls ?? [],
    signatureVersion: options.signatureVersion ?? spec.payloadSignatureVersions.v5,
    processingMs: options.processingMs ?? 1000,
    requestedActionsPath: choice<string>(spec, "followUpPath", "path"),
    maxBodyBytes: choice<number>(spec, "requestSize", "maxBodyBytes"),
    credentials: { serviceUid, secret },
    signingSecret,
    deliveryTimeoutMs: choice<number>(spec, "retryPolicy", "timeoutMs"),
    retryDelaysMs: choice<number[]>(spec, "retryPolicy", "delaysMs"),
    log: options.log ?? (() => {}),
    metrics: options.metrics ?? false,
    retainDays: options.retainDays,
  });
  return { url: running.url, serviceUid, secret, signingSecret, close: () => running.close() };
}
