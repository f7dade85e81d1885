// What the HTTP layer (server.ts) hands the handlers (handlers.ts): one request in hand, and the kit of
// HTTP concerns they use (bodies, validation, answers). A leaf module, so neither imports the other.
import type { IncomingMessage, ServerResponse } from "node:http";
import { choice, type RefusalKind, type SandboxBinding, type SandboxSpec } from "./binding.js";
import type { Browse } from "./browse.js";
import type { SandboxClock } from "./clock.js";
import type { SandboxService } from "./service.js";
import type { ControlReads } from "./service/reads.js";
import type { Db } from "./store/index.js";

export interface Credentials {
  readonly serviceUid: string;
  readonly secret: string;
}

/**
 * One account of the sandbox (a tenant): its credentials, and the service and clock that act on its rows
 * only. A request's credentials pick its account; its handlers see nothing of another's.
 */
export interface Account {
  /** Not a secret: it is stored beside the account's rows and may label logs and metrics. */
  readonly name: string;
  readonly credentials: Credentials;
  readonly service: SandboxService;
  /** What the control API and the page read of the account's rows (its pages, its deliveries) and its re-send. */
  readonly reads: ControlReads;
  readonly clock: SandboxClock;
}

export interface ServerOptions {
  readonly binding: SandboxBinding;
  readonly db: Db;
  /** Every account (at least one); their service UIDs differ. */
  readonly accounts: readonly Account[];
  readonly maxBodyBytes: number;
  readonly requestedActionsPath: string;
  /** The address the sandbox is reached at (for serviceLink). */
  readonly baseUrl: () => string;
  /** A request's credentials picked this account (its name labels the request's log line). */
  readonly onAccount?: (res: ServerResponse, account: string) => void;
  /** Processing and the dispatcher look again now: after an account's clock moved, and after a manual re-send queued a delivery. */
  readonly wakeProcessing: () => void;
  /** Where the one line of an internal error goes (default: stderr). */
  readonly log?: (line: string) => void;
  /** Internal errors log their stack too (`verispec sandbox --debug`). */
  readonly debug?: boolean;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A request refused before the service's rules apply: the status and code of its kind (spec/sandbox.yaml refusals), with `message`. */
export function refusedAs(spec: SandboxSpec, kind: RefusalKind, message: string): HttpError {
  const { httpStatus, code } = choice<{ readonly httpStatus: number; readonly code: string }>(spec, "refusals", kind);
  return new HttpError(httpStatus, code, message);
}

/** What one request carries through its handling: its id (for an internal error), the serviceUid its caller sent, and the account its credentials picked (once checked). */
export interface RequestContext {
  readonly id: string;
  readonly sentUid: string | undefined;
  account?: Account;
}

/** One request as a handler sees it: the route's captures (decoded), the body an `auth: body` route read, and the caller's account (none on an `auth: none` route). */
export interface Exchange {
  readonly account: Account | undefined;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ctx: RequestContext;
  readonly path: string;
  readonly url: URL;
  readonly captures: readonly string[];
  readonly body: Record<string, unknown>;
}

export type ControlMessage = "verificationStatus" | "maxAttempts" | "trigger" | "advanceMs";

/** The HTTP concerns a handler uses. */
export interface HttpKit {
  readonly spec: SandboxSpec;
  send(res: ServerResponse, status: number, body: string, type?: string, extra?: Record<string, string>): void;
  envelope(
    ctx: RequestContext,
    path: string,
    statusCode: number,
    fields: { message: string; trace?: string; pathParams?: Record<string, string>; data?: unknown },
  ): Record<string, unknown>;
  /** Throws the interface's validation error when `body` is not valid against the schema. */
  validate(schemaId: string, body: unknown): void;
  /** Path or query parameters the store compares with: NUL refused the way the validators refuse a bad character. */
  params(values: Readonly<Record<string, string | undefined>>): void;
  readJson(req: IncomingMessage): Promise<Record<string, unknown>>;
  readObject(req: IncomingMessage): Promise<Record<string, unknown>>;
  readForm(req: IncomingMessage): Promise<URLSearchParams>;
  /** The filter and cursor of a listing's query (browse.ts), or a 400. */
  browseOf(url: URL, defaultLimit?: number): Browse;
  /** A control API refusal (spec/sandbox.yaml controlApi messages). */
  refuse(message: ControlMessage, max?: number): HttpError;
}
