// The one way `verispec conform` talks to a server: a request budget, a rate limit, bounded answers (time,
// size, nesting), and credentials that never appear in anything it reports: every answer is redacted by
// the client's own rules (templates/client/) before a check reads it, since a server may echo a request.
import { redactor } from "../../templates/client/util.js";

export class BudgetExhausted extends Error {
  constructor(readonly max: number) {
    super(`request budget of ${max} reached`);
  }
}

/**
 * An exchange that gave no usable answer: `connected` false when no answer began (refused, reset, no
 * answer in time), true when one began and broke a bound (its size, time or nesting) or was cut off.
 */
export class ExchangeFailed extends Error {
  constructor(
    message: string,
    readonly why: string,
    readonly connected: boolean,
  ) {
    super(message);
  }
}

export interface Answer {
  readonly status: number;
  /** The Content-Type header, as sent (undefined when absent). */
  readonly contentType: string | undefined;
  /** The body, redacted. */
  readonly text: string;
  /** The body parsed as JSON (redacted), or undefined when it is not JSON. */
  readonly json: unknown;
}

/** The bounds of an answer: past one, the exchange fails with a check naming it, never an exception. */
export interface Bounds {
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxDepth: number;
}

export const DEFAULT_BOUNDS = { maxBodyBytes: 4 << 20, maxDepth: 256 } as const;

export interface ClientOptions extends Bounds {
  readonly baseUrl: string;
  /** HTTP Basic credentials for /v5 (and a control API). */
  readonly basic: string;
  /** Every secret of the run (API secret, signing key): redacted from answers in any encoding. */
  readonly secrets: readonly string[];
  readonly maxRequests: number;
  /** Requests per second; requests start at least 1000/rate ms apart. */
  readonly rate: number;
  readonly fetch?: typeof fetch;
}

export type Auth = "basic" | "none" | { readonly authorization: string };

const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/** Why a fetch failed, in words a report can carry (never the error's own text: it may quote a URL). */
function whyFailed(e: unknown, timeoutMs: number): string {
  if ((e as Error).name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  const code = (e as { cause?: { code?: string } }).cause?.code;
  if (code !== undefined && RESET_CODES.has(code)) return "connection reset";
  return code === "ECONNREFUSED"
    ? "connection refused (ECONNREFUSED)"
    : code === "ENOTFOUND" || code === "EAI_AGAIN"
      ? `host not found (${code})`
      : (code ?? "connection failed");
}

/** Whether JSON text nests arrays and objects deeper than `max` (a scan: no parser recursion is risked). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** The body, read up to the size bound; the time bound is the request's signal. */
async function readBounded(res: Response, bounds: Bounds, what: string): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > bounds.maxBodyBytes) {
        void reader.cancel().catch(() => {});
        throw new ExchangeFailed(
          `${what}: body over ${bounds.maxBodyBytes} bytes`,
          `the body is larger than ${bounds.maxBodyBytes} bytes (the size bound)`,
          true,
        );
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof ExchangeFailed) throw e;
    const why =
      (e as Error).name === "TimeoutError" ? `the body did not end within ${bounds.timeoutMs} ms (the time bound)` : "connection reset during the body";
    throw new ExchangeFailed(`${what}: ${why}`, why, true);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Parses JSON within the nesting bound; undefined when it is not JSON. */
export function parseBounded(text: string, maxDepth: number, what: string): unknown {
  if (nestedDeeperThan(text, maxDepth))
    throw new ExchangeFailed(`${what}: JSON nested deeper than ${maxDepth}`, `the JSON body nests deeper than ${maxDepth} levels (the depth bound)`, true);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class Client {
  sent = 0;
  /** Answers received (any status): none yet means the server was never reached. */
  answered = 0;
  /** Answers by status. */
  readonly statuses = new Map<number, number>();
  readonly redact: <T>(v: T) => T;
  #next = 0;
  constructor(readonly options: ClientOptions) {
    const token = options.basic.replace(/^Basic /, "");
    this.redact = redactor([...options.secrets, token, options.basic]);
  }

  get left(): number {
    return this.options.maxRequests - this.sent;
  }

  /**
   * One exchange. A connection reset before any answer is tried once more: a keep-alive socket the server
   * closed just as it was reused looks the same, and is no fault of the server's (each try is a request).
   */
  async send(method: "GET" | "POST", path: string, body?: unknown, auth: Auth = "basic"): Promise<Answer> {
    try {
      return await this.#once(method, path, body, auth);
    } catch (e) {
      if (!(e instanceof ExchangeFailed) || e.connected || e.why !== "connection reset" || this.sent >= this.options.maxRequests) throw e;
      return await this.#once(method, path, body, auth);
    }
  }

  async #once(method: "GET" | "POST", path: string, body: unknown, auth: Auth): Promise<Answer> {
    if (this.sent >= this.options.maxRequests) throw new BudgetExhausted(this.options.maxRequests);
    const wait = this.#next - Date.now();
    // Rate limiting is a wait by design: a server under test is not to be flooded.
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.#next = Date.now() + 1000 / this.options.rate;
    this.sent++;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (auth === "basic") headers["Authorization"] = this.options.basic;
    else if (auth !== "none") headers["Authorization"] = auth.authorization;
    const what = `${method} ${path}`;
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let res: Response;
    try {
      res = await (this.options.fetch ?? fetch)(
        new URL(path.replace(/^\//, ""), this.options.baseUrl.endsWith("/") ? this.options.baseUrl : `${this.options.baseUrl}/`),
        {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
          redirect: "manual",
        },
      );
    } catch (e) {
      const why = whyFailed(e, this.options.timeoutMs);
      throw new ExchangeFailed(`${what}: ${why}`, why, false);
    }
    this.answered++;
    this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
    const text = this.redact(await readBounded(res, this.options, what));
    return {
      status: res.status,
      contentType: res.headers.get("content-type") ?? undefined,
      text,
      json: this.redact(parseBounded(text, this.options.maxDepth, what)),
    };
  }
}

export const basicAuth = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`, "utf8").toString("base64")}`;
