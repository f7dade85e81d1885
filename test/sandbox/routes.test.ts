// The route table's parts (templates/sandbox/routes.ts) as pure functions. The sandbox builds its table once,
// when it starts, so the suites that drive it over HTTP cannot tell a wrongly built pattern from a wrongly
// chosen route; these can.
import { describe, expect, it } from "vitest";
import type { SandboxBinding } from "../../templates/sandbox/binding.js";
import { familyOf, findRoute, ownRoute, pathPattern, routeNamer, specRoute } from "../../templates/sandbox/routes.js";
import { binding } from "./inprocess.js";

describe("pathPattern", () => {
  it("each {name} is one non-empty segment, captured; the rest matches literally and wholly", () => {
    const p = pathPattern("/v5/verifications/{trace}");
    expect(p.exec("/v5/verifications/abc-1")?.slice(1)).toEqual(["abc-1"]);
    for (const miss of [
      "/v5/verifications/",
      "/v5/verifications/a/b",
      "/v5/verifications/abc/",
      "x/v5/verifications/abc",
      "/v5/verificationsX/abc",
      "/v5/verifications",
    ])
      expect(p.test(miss), miss).toBe(false);
    expect(pathPattern("/a/{x}/b/{y}").exec("/a/1/b/2")?.slice(1)).toEqual(["1", "2"]);
    expect(pathPattern("/plain").test("/plain")).toBe(true);
    expect(pathPattern("/plain").test("/plainer")).toBe(false);
  });

  it("regular-expression characters of the template are literal", () => {
    const literal = "/a.b+c*d?e^f$g(h)i|j[k]l\\m";
    const p = pathPattern(`${literal}/{id}`);
    expect(p.exec(`${literal}/7`)?.[1]).toBe("7");
    for (const miss of ["/aXb+c*d?e^f$g(h)i|j[k]l\\m/7", "/a.bbc*d?e^f$g(h)i|j[k]l\\m/7", "/a.b+cd?e^f$g(h)i|j[k]l\\m/7"])
      expect(p.test(miss), miss).toBe(false);
  });

  it("a capture's own pattern replaces the default segment", () => {
    const p = pathPattern("/_form/{id}", { id: "[0-9a-f]{4}" });
    expect(p.exec("/_form/beef")?.[1]).toBe("beef");
    expect(p.test("/_form/xyz1")).toBe(false);
    expect(p.test("/_form/beef0")).toBe(false);
  });
});

describe("specRoute and ownRoute", () => {
  it("specRoute takes method, path and authentication from the spec's endpoint, or the path given for one the spec does not show", () => {
    const create = specRoute(binding, "createVerification", "h");
    const e = binding.spec.endpoints.createVerification!;
    expect({ ...create, pattern: undefined }).toEqual({
      method: e.method,
      path: e.path,
      auth: "basic",
      handler: "h",
      operationId: "createVerification",
      pattern: undefined,
      answer: "v5",
    });
    expect(create.pattern.test(e.path!)).toBe(true);
    expect([specRoute(binding, "verify", "h").auth, specRoute(binding, "verify", "h").answer]).toEqual(["body", "older"]);
    const fake = {
      spec: {
        endpoints: {
          open: { method: "GET", path: "/o", auth: "none" },
          odd: { method: "PUT", path: "/d", auth: "apiKey" },
          hidden: { method: "POST", auth: "basic" },
        },
      },
    } as unknown as SandboxBinding;
    expect(specRoute(fake, "open", 0).auth).toBe("none");
    expect(specRoute(fake, "odd", 0).auth).toBe("none");
    const served = specRoute(fake, "hidden", 0, "/where/{x}");
    expect([served.method, served.path, served.auth, served.pattern.test("/where/1")]).toEqual(["POST", "/where/{x}", "basic", true]);
  });

  it("ownRoute keeps what it is given and builds the pattern with the captures", () => {
    const r = ownRoute("GET", "/_form/{id}", "none", "h", { id: "[a-z]+" });
    expect([r.method, r.path, r.auth, r.handler, r.operationId]).toEqual(["GET", "/_form/{id}", "none", "h", undefined]);
    expect([r.pattern.test("/_form/abc"), r.pattern.test("/_form/123")]).toEqual([true, false]);
    expect([r.answer, ownRoute("GET", "/_form/{id}", "none", "h", {}, "page").answer]).toEqual(["older", "page"]);
  });

  it("familyOf: a path no route matches is answered like the first route of its first segment; credentials first only under the sandbox's own HTTP Basic routes", () => {
    const routes = [
      specRoute(binding, "createVerification", "h"),
      specRoute(binding, "verify", "h"),
      ownRoute("GET", "/_form/{id}", "none", "h", {}, "page"),
      ownRoute("GET", "/_sandbox/state", "basic", "h"),
    ];
    expect(familyOf(routes, "/v5/nothing")).toEqual({ answer: "v5", authFirst: false });
    expect(familyOf(routes, "/v5")).toEqual({ answer: "v5", authFirst: false });
    expect(familyOf(routes, "/_sandbox/nothing")).toEqual({ answer: "older", authFirst: true });
    expect(familyOf(routes, "/_form/x")).toEqual({ answer: "page", authFirst: false });
    expect(familyOf(routes, "/verify/x")).toEqual({ answer: "older", authFirst: false });
    expect(familyOf(routes, "/elsewhere")).toEqual({ answer: "older", authFirst: false });
  });
});

describe("findRoute", () => {
  const routes = [
    ownRoute("POST", "/x/{a}", "basic", "post-x"),
    ownRoute("GET", "/x/special", "basic", "special"),
    ownRoute("GET", "/x/{a}", "basic", "get-x"),
  ];
  it("the first route of the method whose pattern matches, with its captures as sent", () => {
    expect(findRoute(routes, "GET", "/x/special")?.route.handler).toBe("special");
    const hit = findRoute(routes, "GET", "/x/a%20b");
    expect([hit?.route.handler, hit?.captures]).toEqual(["get-x", ["a%20b"]]);
    expect(findRoute(routes, "POST", "/x/special")?.route.handler).toBe("post-x");
    expect(findRoute(routes, "DELETE", "/x/1")).toBeUndefined();
    expect(findRoute(routes, "GET", "/y")).toBeUndefined();
  });
});

describe("routeNamer", () => {
  it("names by template whatever the method, exact paths as they are, anything else `other`; unknown methods are OTHER", () => {
    // Made inside the test: the namer's method set is built when it is made (a mutation run counts what runs in a test only).
    const name = routeNamer([ownRoute("POST", "/v/{trace}", "basic", 0), ownRoute("GET", "/v/{trace}/deliveries", "basic", 0)], ["/healthz", "/v/metrics"]);
    expect(name("GET", "/v/secret-trace")).toEqual({ method: "GET", route: "/v/{trace}" });
    expect(name("GET", "/v/t/deliveries")).toEqual({ method: "GET", route: "/v/{trace}/deliveries" });
    expect(name("POST", "/v/metrics")).toEqual({ method: "POST", route: "/v/metrics" });
    expect(name("GET", "/healthz")).toEqual({ method: "GET", route: "/healthz" });
    expect(name("GET", "/nowhere/secret")).toEqual({ method: "GET", route: "other" });
    for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]) expect(name(m, "/healthz").method).toBe(m);
    for (const m of ["PROPFIND", "get", "TRACE", ""]) expect(name(m, "/healthz").method).toBe("OTHER");
  });
});
