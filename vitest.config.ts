import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/dist.ts", "test/support/temp-dir.ts", "test/sandbox/pglite-template.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A test that asserts nothing fails (issue 11): every test must be able to fail.
    expect: { requireAssertions: true },
  },
});
