// A request's method and route as a template (`/v5/verifications/{trace}`), for metrics and logs: the label
// never carries what the caller put in the path (a trace, form id or anything else), so label values
// stay few and nothing the caller sent is recorded.
import type { SandboxBinding } from "./binding.js";

/** The route templates of this sandbox's paths, matched in order; anything else is "other". */
export function routeNamer(binding: SandboxBinding, requestedActionsPath: string): (method: string, path: string) => { method: string; route: string } {
  const e = binding.spec.endpoints;
  const exact = new Set<string>(
    [e.createVerification?.path, e.verify?.path, e.idForm?.path, e.getVerificationStatus?.path, requestedActionsPath, "/healthz", "/readyz", "/metrics"]
      .concat(["/_sandbox", "/_sandbox/state", "/_sandbox/clock", "/_sandbox/deliveries", "/_sandbox/verifications"])
      .filter((p): p is string => typeof p === "string"),
  );
  const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
  const templates = [e.getVerification?.path, "/_form/{id}", "/_sandbox/verifications/{trace}/status", "/_sandbox/deliveries/{deliveryId}/resend"]
    .filter((p): p is string => typeof p === "string")
    .map((t) => ({ t, re: new RegExp(`^${escape(t).replace(/\\\{[A-Za-z]+\\\}|\{[A-Za-z]+\}/g, "[^/]+")}$`) }));
  const methods = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
  return (method, path) => {
    const m = methods.has(method) ? method : "OTHER";
    if (exact.has(path)) return { method: m, route: path };
    const hit = templates.find((x) => x.re.test(path));
    return { method: m, route: hit ? hit.t : "other" };
  };
}
