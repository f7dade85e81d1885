// What the HTTP layer (server.ts) hands the handlers (handlers.ts): one request in hand, and the kit of
// HTTP concerns they use (bodies, validation, answers). A leaf module, so neither imports the other.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxBinding, SandboxSpec } from "./binding.js";
import type { Browse } from "./browse.js";
import type { SandboxClock } from "./clock.js";
import type { SandboxService } from "./service.js";
import type { Db } from "./store/index.js";

export interface Credentials {
  readonly serviceUid: string;
  readonly secret: string;
}

export interface ServerOptions {
  readonly binding: SandboxBinding;
  readonly service: SandboxService;
  readonly db: Db;
  readonly clock: SandboxClock;
  readonly credentials: Credentials;
  readonly maxBodyBytes: number;
  readonly requestedActionsPath: string;
  /** The address the sandbox is reached at (for serviceLink). */
  readonly baseUrl: () => string;
  readonly onClockAdvanced: () => void;
  /** Where the one line of an internal error goes (default: stderr). */
  readonly log?: (line: string) => void;
  /** Internal errors log their stack too (`verispec sandbox --debug`). */
  readonly debug?: boolean;
}

export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** What one request carries through its handling: its id (for an internal error) and the serviceUid its caller sent. */
export interface RequestContext {
  readonly id: string;
  readonly sentUid: string | undefined;
}

/** One request as a handler sees it: the route's captures (decoded), and the body an `auth: body` route read. */
export interface Exchange {
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
  envelope(ctx: RequestContext, path: string, statusCode: number, fields: { message: string; trace?: string; pathParams?: Record<string, string>; data?: unknown }): Record<string, unknown>;
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
