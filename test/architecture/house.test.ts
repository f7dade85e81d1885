import { describe, expect, it } from "vitest";
import { MAX_FUNCTION_LINES, SQL_PATTERN, importCircles, layerBreaches, measureHouse } from "./house.js";

const ALLOWED_LONG = new Set<string>([]);

/** Files whose SQL is still waiting to move into templates/sandbox/store/; it only shrinks. */
const ALLOWED_SQL_FILES = new Set<string>([]);

const house = measureHouse();

describe("the house rules of generator/ and templates/", () => {
  it("has no import circle", () => {
    expect(house.circles).toEqual([]);
  });

  it("has no import running sideways between check, model and emit, or back up a floor", () => {
    expect(house.breaches.map((b) => `${b.kind}: ${b.from} -> ${b.to}`)).toEqual([]);
  });

  it("has no SQL outside templates/sandbox/store/ but in the listed files, and the list holds no stale entry", () => {
    const files = new Set(house.sql.map((at) => at.replace(/:\d+$/, "")));
    expect(house.sql.filter((at) => !ALLOWED_SQL_FILES.has(at.replace(/:\d+$/, "")))).toEqual([]);
    expect([...ALLOWED_SQL_FILES].filter((f) => !files.has(f))).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines but the listed ones, and the list holds no stale entry`, () => {
    const long = house.overLimit.map((s) => `${s.file} ${s.name}`);
    expect(long.filter((name) => !ALLOWED_LONG.has(name))).toEqual([]);
    expect([...ALLOWED_LONG].filter((name) => !long.includes(name))).toEqual([]);
  });
});

describe("the measures themselves", () => {
  it("find a circle through three files and none in a chain", () => {
    const chain = [
      { from: "a", to: "b" },
      { from: "b", to: "c" },
    ];
    expect(importCircles(chain)).toEqual([]);
    expect(importCircles([...chain, { from: "c", to: "a" }])).toEqual([["a", "b", "c"]]);
  });

  it("find SQL (upper-case keywords, as the store writes it) in a string literal, not prose", () => {
    expect(SQL_PATTERN.test('"SELECT * FROM outbox WHERE id = $1"')).toBe(true);
    expect(SQL_PATTERN.test("`DELETE FROM forms WHERE id = 1`")).toBe(true);
    expect(SQL_PATTERN.test('"select a field from the list"')).toBe(false);
    expect(SQL_PATTERN.test('"update the receiver"')).toBe(false);
  });

  it("tell upward and sideways imports from downward ones", () => {
    const edges = [
      { from: "generator/model/m.ts", to: "generator/check/c.ts" },
      { from: "generator/emit/e.ts", to: "generator/check/c.ts" },
      { from: "generator/check/c.ts", to: "generator/emit/e.ts" },
      { from: "generator/load/l.ts", to: "generator/cli/main.ts" },
      { from: "templates/sandbox/s.ts", to: "generator/model/types.ts" },
      { from: "generator/emit/e.ts", to: "generator/model/types.ts" },
      { from: "generator/check/c.ts", to: "generator/load/load-spec.ts" },
      { from: "generator/emit/e.ts", to: "templates/webhooks/w.ts" },
    ];
    expect(layerBreaches(edges).map((b) => b.kind)).toEqual(["sideways", "sideways", "upward", "upward", "templates->generator"]);
  });
});

// The layout (CONTRIBUTING.md) is checked by layout.test.ts.
