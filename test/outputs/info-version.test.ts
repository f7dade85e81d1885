// The OpenAPI document's `info.version` is the spec's own `specVersion` (OpenAPI tools compare it across
// releases); the interface version (`v5`) is `x-interface-version` and part of the title.
import { afterAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "../../generator/emit/openapi.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { REAL_SPEC, removeFixtures, set, specWith } from "../diff/fixture.js";

afterAll(removeFixtures);

describe("info.version", () => {
  it("is the spec's specVersion, and the interface version is x-interface-version", () => {
    const model = modelFromSpec(REAL_SPEC);
    const { info } = buildOpenApi(model);
    expect(info.version).toBe(model.versions.specVersion);
    expect(info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect((info as unknown as Record<string, unknown>)["x-interface-version"]).toBe("v5");
    expect(info.title).toContain("interface v5");
  });

  it("follows a bumped specVersion in a copy of the spec", () => {
    const dir = specWith([set("versions.yaml", ["specVersion"], "7.3.1")]);
    const { info } = buildOpenApi(modelFromSpec(dir));
    expect(info.version).toBe("7.3.1");
    expect((info as unknown as Record<string, unknown>)["x-interface-version"]).toBe("v5");
  });
});
