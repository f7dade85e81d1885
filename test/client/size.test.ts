// Size, not time: the client core bundled like the bench must stay within the 1.5 kB gzipped.
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { CORE_GZIP_BUDGET, measureClientSize } from "../../bench/client-size.bench.js";

describe("client core size", () => {
  it(`is at most ${CORE_GZIP_BUDGET} bytes minified+gzipped and smaller than openapi-fetch`, async () => {
    const [core, openapiFetch] = await measureClientSize();
    expect(core.gzipped).toBeLessThanOrEqual(CORE_GZIP_BUDGET);
    expect(core.gzipped).toBeLessThan(openapiFetch.gzipped);
    expect(core.minified).toBeGreaterThan(1000); // guards against measuring an empty bundle
  });

  it("the minified bundle keeps the error names and carries no validator code", async () => {
    const out = await build({
      entryPoints: [new URL("../../templates/client/index.ts", import.meta.url).pathname],
      bundle: true,
      minify: true,
      format: "esm",
      platform: "neutral",
      write: false,
    });
    const code = out.outputFiles[0]!.text;
    expect(code).not.toMatch(/ajv/i);
    const mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
    for (const name of [
      "VerispecError",
      "ValidationError",
      "TooManyAttemptsError",
      "SubmissionConflictError",
      "HttpError",
      "TimeoutError",
      "NetworkError",
      "ResponseValidationError",
    ])
      expect(new mod[name]("m").name).toBe(name);
    expect(typeof mod.createClientCore).toBe("function");
  });
});
