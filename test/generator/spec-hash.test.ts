// The spec's content hash (generator/load/spec-hash.ts): the one identity the generated entry, check, the
// sandbox and conform print. Stable over file order, sensitive to any path or byte.
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../generator/load/load-spec.js";
import { specHashOf } from "../../generator/load/spec-hash.js";
import { SPEC } from "./helpers.js";

describe("specHashOf", () => {
  const files = [
    { name: "a.yaml", text: "x: 1\n" },
    { name: "entities/b.yaml", text: "y: 2\n" },
  ];

  it("is 16 hex digits, the same for the same files in any order", () => {
    expect(specHashOf(files)).toMatch(/^[0-9a-f]{16}$/);
    expect(specHashOf([...files].reverse())).toBe(specHashOf(files));
  });

  it("changes with a byte of a file, with a path, and with a file moved between two", () => {
    const base = specHashOf(files);
    expect(specHashOf([files[0]!, { ...files[1]!, text: "y: 3\n" }])).not.toBe(base);
    expect(specHashOf([files[0]!, { ...files[1]!, name: "entities/c.yaml" }])).not.toBe(base);
    // The separators keep "path + text" from running together: moving a byte across the boundary is a change.
    expect(
      specHashOf([
        { name: "a.yaml", text: "x: 1\ny" },
        { name: "entities/b.yaml", text: ": 2\n" },
      ]),
    ).not.toBe(base);
  });

  it("is what the loaded spec carries and the generated entry exports", async () => {
    const { specHash } = await import("../../generated/index.js");
    expect(loadSpec(SPEC).hash).toBe(specHash);
  });
});
