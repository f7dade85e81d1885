// What a refused request's answer needs from the request itself: whether its body is drained or its
// connection closed, and the trace its path names.
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Whether the body was refused before it was read in full (then it is drained, not parsed). One of a
 * declared length within the limit (refused by its shape) keeps its connection open, so the client reads
 * the answer before it finishes sending; one over the limit or of no declared length has its connection
 * closed after the answer.
 */
export function closeIfUnread(req: IncomingMessage, res: ServerResponse, status: number, limit: number): boolean {
  const unread = status === 413 || !req.complete;
  const declared = Number(req.headers["content-length"]);
  if (unread && !(status !== 413 && Number.isFinite(declared) && declared <= limit)) res.setHeader("Connection", "close");
  return unread;
}

/** The trace of a GET /v5/verifications/:trace path, decoded; undefined when the path is not one, or its escape is malformed. */
export function traceInPath(pattern: RegExp, path: string): string | undefined {
  const get = pattern.exec(path);
  try {
    return get ? decodeURIComponent(get[1]!) : undefined;
  } catch {
    return undefined; // the 400 for that very escape is being answered
  }
}
