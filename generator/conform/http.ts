// The one way `verispec conform` talks to a server: a request budget, a rate limit and a timeout, and
// credentials that never appear in anything it reports (errors name the method and path only).

export class BudgetExhausted extends Error {
  constructor(readonly max: number) {
    super(`request budget of ${max} reached`);
  }
}

export class ConnectionFailed extends Error {}

export interface Answer {
  readonly status: number;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface ClientOptions {
  readonly baseUrl: string;
  /** HTTP Basic credentials for /v5 (and a control API). */
  readonly basic: string;
  readonly maxRequests: number;
  /** Requests per second; requests start at least 1000/rate ms apart. */
  readonly rate: number;
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

export class Client {
  sent = 0;
  #next = 0;
  constructor(readonly o: ClientOptions) {}

  get left(): number {
    return this.o.maxRequests - this.sent;
  }

  async send(method: "GET" | "POST", path: string, body?: unknown, auth: "basic" | "none" = "basic"): Promise<Answer> {
    if (this.sent >= this.o.maxRequests) throw new BudgetExhausted(this.o.maxRequests);
    const wait = this.#next - Date.now();
    // Rate limiting is a wait by design: a server under test is not to be flooded.
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.#next = Date.now() + 1000 / this.o.rate;
    this.sent++;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (auth === "basic") headers["Authorization"] = this.o.basic;
    let res: Response;
    try {
      res = await (this.o.fetch ?? fetch)(new URL(path.replace(/^\//, ""), this.o.baseUrl.endsWith("/") ? this.o.baseUrl : `${this.o.baseUrl}/`), {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(this.o.timeoutMs), redirect: "manual",
      });
    } catch (e) {
      const why = (e as Error).name === "TimeoutError" ? `no answer within ${this.o.timeoutMs} ms` : ((e as { cause?: { code?: string } }).cause?.code ?? "connection failed");
      throw new ConnectionFailed(`${method} ${path}: ${why}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  }
}

export const basicAuth = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`, "utf8").toString("base64")}`;
