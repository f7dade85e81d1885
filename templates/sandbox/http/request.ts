// Reading a request: the body within its byte limit, its media type, its shape measured as it arrives (depth,
// array lengths, values) before anything is parsed, JSON that must be an object, a form's fields counted as
// they arrive, and percent-escapes decoded strictly. Every refusal's text is the binding's (spec/sandbox.yaml).
import type { IncomingMessage } from "node:http";
import type { ValidationIssue } from "../../validators/types.js";
import { ShapeScanner, type ShapeProblem } from "../body-shape.js";
import { choice, type SandboxSpec } from "../binding.js";
import { type HttpError, refusedAs } from "../exchange.js";
import type { RefusalKind } from "../binding.js";

/** The request-body refusals (spec/sandbox.yaml: requestSize, requestBody). */
export interface BodyRules {
  /** The media type of every JSON body (the service's specification, section 4: endpoints.yaml bodies). */
  readonly mediaType: string;
  readonly limit: number;
  readonly tooLarge: string;
  readonly maxDepth: number;
  readonly messages: Readonly<Record<"notJsonType" | "notFormType" | "notJson" | "notObject" | "tooDeep", string>>;
  /** spec/sandbox.yaml requestArrays: measured on the text, before it is parsed. */
  readonly arrays: { readonly maxItems: number; readonly maxValues: number; readonly code: string; readonly message: string; readonly tooManyValues: string };
  /** A refusal of `kind` (spec/sandbox.yaml refusals) with `message`. */
  readonly refused: (kind: RefusalKind, message: string) => HttpError;
  /** The 422 of a body whose array at `path` is too long (the validators' error). */
  readonly invalid: (issues: readonly ValidationIssue[]) => Error;
}

/** The body's bytes, at most the limit; `look` sees each chunk as it arrives (and may refuse the body there, unread past it). */
export async function readBody(req: IncomingMessage, rules: BodyRules, look?: (chunk: Buffer) => void): Promise<Buffer> {
  const { limit } = rules;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw rules.refused("payloadTooLarge", rules.tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  let refusal: unknown;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw rules.refused("payloadTooLarge", rules.tooLarge);
    // Once refused, the rest (within the limit) is read and dropped, not kept: leaving the loop would
    // destroy the socket and the client would never see the refusal.
    if (refusal !== undefined) continue;
    try {
      look?.(chunk as Buffer);
      chunks.push(chunk as Buffer);
    } catch (error) {
      refusal = error;
      chunks.length = 0;
    }
  }
  if (refusal !== undefined) throw refusal;
  return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
  return String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
}

export async function readJson(req: IncomingMessage, rules: BodyRules): Promise<Record<string, unknown>> {
  if (mediaType(req) !== rules.mediaType) throw rules.refused("unsupportedMediaType", rules.messages.notJsonType);
  // Measured chunk by chunk as it arrives (body-shape.ts): a hostile shape is refused before the rest is read or anything is parsed.
  const scanner = new ShapeScanner({ ...rules.arrays, maxDepth: rules.maxDepth });
  const bytes = await readBody(req, rules, (chunk) => refuseShape(scanner.feed(chunk), rules));
  // Its nesting was measured as it arrived (the scanner refuses past maxDepth): no second pass over the text.
  const big = bytes.length > BIG_BODY;
  if (big) await anotherTurn();
  const raw = bytes.toString("utf8");
  if (big) await anotherTurn();
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    // Not V8's message: it quotes body text, and the older endpoints' bodies carry the secret key.
    throw rules.refused("badRequest", rules.messages.notJson);
  }
  if (big) await anotherTurn();
  return value as Record<string, unknown>;
}

/** A body this big is decoded, parsed and handed on in separate turns of the event loop. */
export const BIG_BODY = 64 * 1024;

/** Lets the event loop serve other clients' requests (their sockets, their statements' answers) before going on. */
export const anotherTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A body with an array over the bound (422 at its path), too many values or too deep (400), refused before it is parsed. */
function refuseShape(problem: ShapeProblem | undefined, rules: BodyRules): void {
  const { arrays } = rules;
  if (problem?.kind === "depth") throw rules.refused("badRequest", rules.messages.tooDeep.replace("{max}", String(rules.maxDepth)));
  if (problem?.kind === "values") throw rules.refused("badRequest", arrays.tooManyValues.replace("{max}", String(arrays.maxValues)));
  if (problem?.kind === "items")
    throw rules.invalid([{ message: arrays.message.replace("{max}", String(arrays.maxItems)), code: arrays.code, path: problem.path }]);
}

/** A JSON body that must be an object (the older endpoints, the control API). */
export async function readObject(req: IncomingMessage, rules: BodyRules): Promise<Record<string, unknown>> {
  const body: unknown = await readJson(req, rules);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw rules.refused("badRequest", rules.messages.notObject);
  return body as Record<string, unknown>;
}

/** A percent-escaped path segment or query, decoded; a malformed escape is the caller's mistake (400), never a thrown URIError. */
export function decodeStrict(raw: string, malformed: () => Error): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw malformed();
  }
}

/** A form post (the hosted form): its fields counted as the bytes arrive, before the text is split. */
export async function readForm(req: IncomingMessage, rules: BodyRules): Promise<URLSearchParams> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") throw rules.refused("unsupportedMediaType", rules.messages.notFormType);
  // A 10 MiB form of millions of fields is refused for the cost of its bytes.
  const { maxValues, tooManyValues } = rules.arrays;
  let fields = 1;
  const count = (chunk: Buffer) => {
    for (let i = chunk.indexOf(38); i >= 0; i = chunk.indexOf(38, i + 1))
      if (++fields > maxValues) throw rules.refused("badRequest", tooManyValues.replace("{max}", String(maxValues)));
  };
  return new URLSearchParams((await readBody(req, rules, count)).toString("utf8"));
}

/** The request-body rules of the binding (spec/sandbox.yaml requestSize, requestBody, requestArrays), with the body limit in force. */
export function bodyRulesOf(spec: SandboxSpec, maxBodyBytes: number, invalid: BodyRules["invalid"]): BodyRules {
  return {
    mediaType: spec.bodyMediaType,
    limit: maxBodyBytes,
    tooLarge: choice<string>(spec, "requestSize", "message").replace("{limit}", String(maxBodyBytes)),
    maxDepth: choice<number>(spec, "requestBody", "maxDepth"),
    messages: choice<BodyRules["messages"]>(spec, "requestBody", "messages"),
    arrays: {
      maxItems: choice<number>(spec, "requestArrays", "maxItems"),
      maxValues: choice<number>(spec, "requestArrays", "maxValues"),
      code: choice<string>(spec, "requestArrays", "code"),
      message: choice<string>(spec, "requestArrays", "message"),
      tooManyValues: choice<string>(spec, "requestArrays", "tooManyValues"),
    },
    refused: (kind, message) => refusedAs(spec, kind, message),
    invalid,
  };
}
