// Small parts of the sandbox runtime in-process: the clock, the binding's lookups, the pages' HTML, a listing's query and
// the store's description.
import { describe, expect, it, vi } from "vitest";
import { choice, choiceMessage, errorByRole, successStatus, transitionRow, validateWith } from "../../templates/sandbox/binding.js";
import { SandboxClock } from "../../templates/sandbox/clock.js";
import { escapeHtml, messagePage, sandboxPage } from "../../templates/sandbox/page.js";
import { MAX_PAGE, openCursor, parseBrowse, sealCursor } from "../../templates/sandbox/browse.js";
import { closeWhenOpen, describeDb, type Db } from "../../templates/sandbox/store/index.js";
import { binding } from "./inprocess.js";

describe("SandboxClock", () => {
  it("is real time plus the offset; advance adds, set replaces; a negative, fractional or out-of-bound offset is a RangeError", () => {
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000_000);
    try {
      const clock = new SandboxClock();
      expect([clock.now(), clock.offset]).toEqual([1_000_000, 0]);
      expect(clock.advance(500)).toBe(500);
      expect(clock.advance(0)).toBe(500);
      expect([clock.now(), clock.offset]).toEqual([1_000_500, 500]);
      for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => clock.advance(bad)).toThrow(RangeError);
      expect(clock.offset).toBe(500);
      clock.set(42);
      expect(clock.now()).toBe(1_000_042);
      expect(new SandboxClock(7).now()).toBe(1_000_007);
      // Bounded: the offset stays within 0..max, whether advanced or set.
      const bounded = new SandboxClock(0, 1000);
      expect(bounded.advance(1000)).toBe(1000);
      expect(() => bounded.advance(1)).toThrow(new RangeError("advanceMs must be an integer from 0 to 0"));
      expect(bounded.offset).toBe(1000);
      for (const bad of [-1, 1001, 0.5, Number.NaN]) expect(() => bounded.set(bad)).toThrow(new RangeError("a clock offset must be an integer from 0 to 1000"));
      bounded.set(0);
      expect([bounded.allows(0), bounded.allows(1000), bounded.allows(1001), bounded.allows("5"), bounded.allows(-1)]).toEqual([
        true,
        true,
        false,
        false,
        false,
      ]);
    } finally {
      now.mockRestore();
    }
  });
});

describe("the binding's lookups", () => {
  it("choice reads a documented choice's field, and names a missing one", () => {
    expect(choice<string>(binding.spec, "deliveryId", "header")).toBe("X-Svc-Delivery-Id");
    expect(() => choice(binding.spec, "deliveryId", "nope")).toThrow(
      "sandbox binding: choices.deliveryId.nope is missing (regenerate with 'verispec generate')",
    );
    expect(() => choice(binding.spec, "noSuchChoice", "x")).toThrow("sandbox binding: choices.noSuchChoice.x is missing (regenerate with 'verispec generate')");
  });

  it("errorByRole and successStatus read the binding, and name a role or an operation it does not hold", () => {
    expect(errorByRole(binding.spec, "validation")).toMatchObject({ type: "validation_error", httpStatus: 422 });
    const noError = { ...binding.spec, errors: {} };
    const noRole = { ...binding.spec, errorRoles: {} };
    for (const spec of [noError, noRole])
      expect(() => errorByRole(spec as never, "validation")).toThrow("sandbox binding: no error of role validation (regenerate with 'verispec generate')");
    expect(successStatus(binding.spec, "createVerification")).toBe(200);
    expect(() => successStatus(binding.spec, "noSuchOperation")).toThrow("sandbox binding: no endpoint noSuchOperation (regenerate with 'verispec generate')");
  });

  it("choiceMessage fills a choice's message from spec/sandbox.yaml; an unknown placeholder stays; a missing message is named", () => {
    const templates = choice<Record<string, string>>(binding.spec, "notFound", "messages");
    expect(choiceMessage(binding.spec, "notFound", "trace", { trace: "t-1" })).toBe(templates.trace!.replace("{trace}", "t-1"));
    expect(choiceMessage(binding.spec, "notFound", "route", { method: "GET", path: "/x/{trace}" })).toBe(
      templates.route!.replace("{method}", "GET").replace("{path}", "/x/{trace}"),
    );
    expect(choiceMessage(binding.spec, "notFound", "trace")).toBe(templates.trace);
    expect(() => choiceMessage(binding.spec, "notFound", "nope")).toThrow(
      "sandbox binding: choices.notFound.messages.nope is missing (regenerate with 'verispec generate')",
    );
  });

  it("transitionRow finds a row by id, and names a missing one; validateWith uses the generated validator", () => {
    expect(transitionRow(binding.rules, "retry").from).toBe("rejected");
    expect(() => transitionRow(binding.rules, "nope")).toThrow('sandbox binding: no transition "nope" in the rules');
    expect(validateWith(binding, "v4.IdvRiskScore", { description: "Undefined" }).valid).toBe(true);
    expect(validateWith(binding, "v4.IdvRiskScore", 5).valid).toBe(false);
  });
});

describe("the pages", () => {
  it("escapeHtml escapes the five characters, each as a numeric reference", () => {
    expect(escapeHtml(`a&b<c>d"e'f`)).toBe("a&#38;b&#60;c&#62;d&#34;e&#39;f");
    expect(escapeHtml("plain")).toBe("plain");
  });

  it("messagePage escapes its title and text", () => {
    const page = messagePage("T<1>", "x & y");
    expect(
      page.startsWith(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>T&#60;1&#62;</title><style>',
      ),
    ).toBe(true);
    expect(page.endsWith("<body><h1>T&#60;1&#62;</h1><p>x &#38; y</p></body></html>")).toBe(true);
  });

  it("the /_sandbox page has both tables and its refreshing script", () => {
    const page = sandboxPage(401);
    expect(page).toContain("<title>verispec sandbox</title>");
    expect(page).toContain('<table id="verifications">');
    expect(page).toContain('<table id="deliveries">');
    // The page's own filters and cursor (its query string) go to the state call as they are.
    expect(page).toContain('fetch(location.origin + "/_sandbox/state" + location.search, { credentials: "same-origin", cache: "no-store" })');
    expect(page).toContain("refresh(); setInterval(refresh, 1000);");
    // A refusal of the credentials is told by the status the binding gives (sandbox.yaml choices.authFailure).
    expect(page).toContain('r.status === 401 ? "The sandbox refused the credentials (HTTP " + r.status + ")');
    expect(sandboxPage(499)).toContain("r.status === 499 ?");
  });
});

describe("describeDb", () => {
  it("names the store an option opens", () => {
    expect(describeDb("memory")).toBe("PGlite in memory");
    expect(describeDb("postgres://u@h/db")).toBe("Postgres");
    expect(describeDb("postgresql://u@h/db")).toBe("Postgres");
    expect(describeDb("data/postgres://x")).toBe("PGlite in data/postgres://x");
    expect(describeDb(".verispec/sandbox")).toBe("PGlite in .verispec/sandbox");
  });
});

describe("closeWhenOpen", () => {
  it("closes a store once it has opened, and resolves whether it opened, failed to open or failed to close", async () => {
    const close = vi.fn(async () => {});
    let open!: (db: Db) => void;
    const opening = new Promise<Db>((r) => (open = r));
    const closing = closeWhenOpen(opening);
    await Promise.resolve();
    expect(close).not.toHaveBeenCalled(); // not before it has opened
    open({ close } as unknown as Db);
    await expect(closing).resolves.toBeUndefined();
    expect(close).toHaveBeenCalledTimes(1);
    await expect(closeWhenOpen(Promise.reject(new Error("ECONNREFUSED")))).resolves.toBeUndefined();
    await expect(closeWhenOpen(Promise.resolve({ close: () => Promise.reject(new Error("gone")) } as unknown as Db))).resolves.toBeUndefined();
  });
});

describe("parseBrowse", () => {
  const parse = (q: string, d?: number) => parseBrowse(new URLSearchParams(q), d);
  it("limit: an integer from 1 to MAX_PAGE, else one line; absent or empty: the default", () => {
    expect(MAX_PAGE).toBe(500);
    for (const ok of ["1", "500", "0042"]) expect(parse(`limit=${ok}`), ok).toMatchObject({ limit: Number(ok) });
    for (const bad of ["0", "501", "9999", "10000", "1a", "a1", "-1", "1.5", " 1"])
      expect(parse(`limit=${bad}`), bad).toBe("limit must be an integer from 1 to 500.");
    expect(parse("")).toEqual({ trace: undefined, userId: undefined, status: undefined, limit: 500, cursor: undefined });
    expect(parse("limit=", 100)).toMatchObject({ limit: 100 });
  });

  it("cursor: kept as sent when it is base64url of at most 100 characters, else refused; filters taken as given, empty ones left out", () => {
    expect(parse(`cursor=abc_-9&trace=t&userId=u&status=queued`)).toEqual({ trace: "t", userId: "u", status: "queued", limit: 500, cursor: "abc_-9" });
    for (const bad of ["a.b", "a+b", "x".repeat(101), "a%20b"])
      expect(parse(`cursor=${encodeURIComponent(bad)}`), bad).toBe("cursor is not one this sandbox gave.");
    expect(parse("trace=&userId=&status=")).toMatchObject({ trace: undefined, userId: undefined, status: undefined });
  });

  it("a sealed cursor opens only with its key, for its tenant and its listing; it shows no position", () => {
    const key = Buffer.alloc(32, 7);
    const c = sealCursor(key, "a", "deliveries", 123456789012345);
    expect(openCursor(key, "a", "deliveries", c)).toBe(123456789012345);
    expect(Buffer.from(c, "base64url").toString("latin1")).not.toContain("123");
    expect(sealCursor(key, "a", "deliveries", 5)).not.toBe(sealCursor(key, "a", "deliveries", 5)); // a fresh nonce each time
    expect(openCursor(key, "b", "deliveries", c)).toBeUndefined();
    expect(openCursor(key, "a", "verifications", c)).toBeUndefined();
    expect(openCursor(Buffer.alloc(32, 8), "a", "deliveries", c)).toBeUndefined();
    const raw = Buffer.from(c, "base64url");
    raw[13] = raw[13]! ^ 1;
    expect(openCursor(key, "a", "deliveries", raw.toString("base64url"))).toBeUndefined();
    for (const bad of ["", "AAAA", Buffer.from("v1:42").toString("base64url"), "A".repeat(100)])
      expect(openCursor(key, "a", "deliveries", bad), bad).toBeUndefined();
  });
});
