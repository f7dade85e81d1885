// The answers' shapes, shared by the sandbox's server (node:http) and verispec/msw (the Fetch API): the v5
// envelope (the service's specification, section 2.11) and each interface's error body (section 7; the older
// one of spec/sandbox.yaml olderErrorShape). Pure: text and headers in, text and headers out.
import type { ValidationIssue } from "../validators/types.js";
import { choice, errorByRole, type SandboxSpec } from "./binding.js";

/** Which shape a route answers in: the v5 envelope, the older endpoints' error shape, or an HTML page (the hosted form). */
export type AnswerShape = "v5" | "older" | "page";

export interface EnvelopeFields {
  readonly message: string;
  readonly trace?: string;
  readonly pathParams?: Record<string, string>;
  readonly data?: unknown;
  readonly error?: unknown;
}

export interface EnvelopeContext {
  /** The time the envelope states (the account's clock). */
  readonly now: number;
  /** What the caller sent as its service UID; undefined leaves the field out. */
  readonly serviceUid: string | undefined;
  /** A new trace for an envelope that names none. */
  readonly newTrace: () => string;
  /** The envelope's `status` of a success and of an error (the binding's envelopeStatus). */
  readonly statuses: SandboxSpec["envelopeStatus"];
}

/** The v5 envelope around an answer. */
export function envelope(ctx: EnvelopeContext, path: string, statusCode: number, fields: EnvelopeFields) {
  return {
    timestamp: new Date(ctx.now).toISOString(),
    ...(ctx.serviceUid !== undefined ? { serviceUid: ctx.serviceUid } : {}),
    trace: fields.trace ?? ctx.newTrace(),
    path,
    pathParams: fields.pathParams ?? {},
    statusCode,
    message: fields.message,
    help: null,
    status: statusCode < 400 ? ctx.statuses.success : ctx.statuses.error,
    data: fields.data ?? null,
    error: fields.error ?? null,
  };
}

/** A refusal to answer: its status, its type (an error type of the spec, or a sandbox code) and text, and where it applies. */
export interface Refusal {
  readonly status: number;
  readonly type: string;
  readonly message: string;
  readonly details?: readonly ValidationIssue[];
  /** The v5 envelope's trace (the request id of a 500, the verification of a 474/475). */
  readonly trace?: string;
  readonly pathParams?: Record<string, string>;
}

/** What a refusal answers, in `shape` (v5 or older): its body text and its headers (the challenge of an HTTP Basic route). */
export function refusalAnswer(
  spec: SandboxSpec,
  shape: "v5" | "older",
  refusal: Refusal,
  o: { readonly path: string; readonly basic: boolean; readonly envelope: Omit<EnvelopeContext, "statuses"> },
): { body: string; headers: Record<string, string> } {
  const { status, type, message } = refusal;
  const details = refusal.details ?? [];
  const headers: Record<string, string> =
    status === choice<number>(spec, "authFailure", "httpStatus") && o.basic ? { "WWW-Authenticate": choice<string>(spec, "authFailure", "challenge") } : {};
  if (shape === "older") {
    const older = { status: choice<string>(spec, "olderErrorShape", "status"), statusCode: status, type, message, details };
    return { body: JSON.stringify(older), headers };
  }
  const validation = errorByRole(spec, "validation").type;
  const known = Object.hasOwn(spec.errors, type);
  const error = type === validation ? { type, details } : known ? { type, message, help: null } : { code: type, message, help: null };
  const top = type === validation ? (spec.errors[type]!.message ?? message) : message;
  const extra = { ...(refusal.trace ? { trace: refusal.trace } : {}), ...(refusal.pathParams ? { pathParams: refusal.pathParams } : {}) };
  const context = { ...o.envelope, statuses: spec.envelopeStatus };
  return { body: JSON.stringify(envelope(context, o.path, status, { message: top, error, ...extra })), headers };
}
