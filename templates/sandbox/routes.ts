// The route table's parts (handlers.ts lists the routes) and a request's name for metrics and logs: its
// route as a template (`/v5/verifications/{trace}`), never what the caller put in the path (a trace, form
// id or anything else), so label values stay few and nothing the caller sent is recorded.
import type { AnswerShape } from "./answers.js";
import type { SandboxBinding } from "./binding.js";

/** Names a request by the first route of `routes` whose path matches (any method) or by one of `exactPaths`; anything else is "other". */
export function routeNamer(
  routes: readonly Pick<Route<unknown>, "path" | "pattern">[],
  exactPaths: readonly string[],
): (method: string, path: string) => { method: string; route: string } {
  const methods = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
  return (method, path) => {
    const methodLabel = methods.has(method) ? method : "OTHER";
    if (exactPaths.includes(path)) return { method: methodLabel, route: path };
    const hit = routes.find((r) => r.pattern.test(path));
    return { method: methodLabel, route: hit ? hit.path : "other" };
  };
}

/** Who may call a route: HTTP Basic, the older endpoints' body credentials, or anyone (the hosted form). */
export type RouteAuth = "basic" | "body" | "none";

export interface Route<H> {
  readonly method: string;
  /** The path as a template (`/v5/verifications/{trace}`). */
  readonly path: string;
  readonly auth: RouteAuth;
  readonly handler: H;
  /** The spec's operation, where spec/endpoints.yaml names the route. */
  readonly operationId?: string;
  readonly pattern: RegExp;
  /** The shape its answers and refusals take: the interface of its authentication (HTTP Basic: v5), or the form's page. */
  readonly answer: AnswerShape;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** A path template as a pattern: each `{name}` one segment, captured (or `capture`'s pattern for it). */
export function pathPattern(template: string, capture: Readonly<Record<string, string>> = {}): RegExp {
  const parts = template.split(/(\{[A-Za-z]+\})/).map((p) => (/^\{[A-Za-z]+\}$/.test(p) ? `(${capture[p.slice(1, -1)] ?? "[^/]+"})` : escapeRegExp(p)));
  return new RegExp(`^${parts.join("")}$`);
}

/** A route of spec/endpoints.yaml: its method, path and authentication as the spec gives them (`path`: where the sandbox serves it instead, for one whose path is not shown). */
export function specRoute<H>(binding: SandboxBinding, operationId: string, handler: H, path?: string): Route<H> {
  const endpoint = binding.spec.endpoints[operationId]!;
  const template = path ?? endpoint.path!;
  const auth: RouteAuth = endpoint.auth === "basic" ? "basic" : endpoint.auth === "body" ? "body" : "none";
  // The spec's HTTP Basic endpoints are the v5 interface; the others the older one (section 5).
  return { method: endpoint.method, path: template, auth, handler, operationId, pattern: pathPattern(template), answer: auth === "basic" ? "v5" : "older" };
}

/** A route of the sandbox's own (the hosted form: `answer` "page"; the control API: the older error shape). */
export function ownRoute<H>(
  method: string,
  path: string,
  auth: RouteAuth,
  handler: H,
  capture: Readonly<Record<string, string>> = {},
  answer: AnswerShape = "older",
): Route<H> {
  return { method, path, auth, handler, pattern: pathPattern(path, capture), answer };
}

/** A path's first segment with its slash (`/v5` of `/v5/verifications/x`). */
const firstSegment = (path: string) => `/${path.split("/")[1] ?? ""}`;

/**
 * What a path no route matches is answered like: the first route under the same first segment decides the
 * answer's shape, and whether credentials come first (the sandbox's own HTTP Basic routes: the control API's
 * paths are the account's, so no path there is told apart from another without credentials).
 */
export function familyOf<H>(routes: readonly Route<H>[], path: string): { answer: AnswerShape; authFirst: boolean } {
  const segment = firstSegment(path);
  const kin = routes.find((r) => firstSegment(r.path) === segment);
  if (!kin) return { answer: "older", authFirst: false };
  return { answer: kin.answer, authFirst: kin.operationId === undefined && kin.auth === "basic" };
}

/** The first route for this method and path, with its captures (still percent-escaped). */
export function findRoute<H>(routes: readonly Route<H>[], method: string, path: string): { route: Route<H>; captures: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, captures: match.slice(1) };
  }
  return undefined;
}
