// The sandbox's log: text lines (the default, as before: events only) or, with --log-format json, one
// JSON object a line written by pino (events, and one line per request: time, level, request id, method,
// route, status, duration). Nothing from a request's body, headers, query or path reaches it: the route is
// the route's template (routes.ts), never the path asked for, so no trace, form id or secret is logged.
// pino is loaded only for --log-format json (an optional peer dependency, like the database drivers).
export type LogLevel = "info" | "warn" | "error";

export interface RequestLog {
  readonly requestId: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
  /** The tenant of the request's credentials (its name), when they were checked and good. */
  readonly tenant?: string;
}

export interface SandboxLogger {
  event(level: LogLevel, message: string): void;
  /** One finished request; the text format does not log requests (a line per request is for collectors). */
  request(r: RequestLog): void;
}

export type LogFormat = "text" | "json";

/** Today's lines: `verispec sandbox: <message>` through `write`. */
export function textLogger(write: (line: string) => void): SandboxLogger {
  return { event: (_level, message) => write(`verispec sandbox: ${message}\n`), request: () => {} };
}

interface PinoLike {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
  error(o: object, msg?: string): void;
}
interface PinoModule {
  (options: object, destination: unknown): PinoLike;
  destination(o: { fd?: number; dest?: string; sync: boolean }): unknown;
  stdTimeFunctions: { isoTime: () => string };
}

/**
 * JSON lines on a file descriptor (default 2, stderr; stdout carries the start lines). Synchronous
 * writes: a line is out before the process exits, shutdown included.
 */
export async function jsonLogger(fd = 2): Promise<SandboxLogger> {
  const mod = (await import("pino")) as unknown as { default: PinoModule };
  const pino = mod.default;
  const log = pino(
    {
      base: { service: "verispec-sandbox" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
    },
    pino.destination({ fd, sync: true }),
  );
  return {
    event: (level, message) => log[level]({}, message),
    request: (r) =>
      log.info(
        {
          requestId: r.requestId,
          method: r.method,
          route: r.route,
          status: r.status,
          durationMs: r.durationMs,
          ...(r.tenant !== undefined ? { tenant: r.tenant } : {}),
        },
        "request",
      ),
  };
}
