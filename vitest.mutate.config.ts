// Vitest for mutation testing (`npm run mutate`): the unit suites of the runtime and of write.ts only
// (no Prism, Chromium, Python, pack or Redis server), and tests that import generated/runtime/ are
// pointed at templates/, the code Stryker mutates (generated/runtime/ is a copy of it).
import { dirname, join, resolve } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const root = import.meta.dirname;

/**
 * The slow sandbox files last: a mutant's run stops at its first failing test (Stryker's bail), so a
 * mutant the quick files kill never pays for the dispatcher's waits or startSandbox's PGlite start.
 */
class SlowSandboxFilesLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) =>
      /sandbox[\\/](index|handover)\.test\.ts$/.test(f.moduleId) ? 2 : /sandbox[\\/]dispatcher\.test\.ts$/.test(f.moduleId) ? 1 : 0;
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** The suites Stryker runs; `npm run mutate:sandbox` sets VERISPEC_MUTATE_SANDBOX=1 and keeps the sandbox's only (isSandboxSuite). */
const INCLUDE = [
  "test/client/core.test.ts",
  "test/client/hardening.test.ts",
  "test/client/util.test.ts",
  "test/client/generated-client.test.ts",
  "test/webhooks/*.test.ts",
  "test/validators/*.test.ts",
  "test/generator/write*.test.ts",
  // The sandbox in-process (the other test/sandbox files start it as a child process).
  "test/sandbox/http.test.ts",
  "test/sandbox/service.test.ts",
  "test/sandbox/dispatcher.test.ts",
  "test/sandbox/index.test.ts",
  "test/sandbox/units.test.ts",
  "test/sandbox/group.test.ts",
  "test/sandbox/handover.test.ts",
  "test/sandbox/robust.test.ts",
  "test/sandbox/browse.test.ts",
  "test/sandbox/form.test.ts",
  "test/sandbox/form-units.test.ts",
  "test/sandbox/results.test.ts",
  "test/sandbox/ops-units.test.ts",
  "test/sandbox/routes.test.ts",
  "test/sandbox/server-units.test.ts",
  "test/sandbox/server-wiring.test.ts",
  "test/sandbox/service-rooms.test.ts",
  "test/sandbox/retention-units.test.ts",
  "test/sandbox/tenants.test.ts",
  // startSandbox() of verispec/sandbox (api.ts), and the PGlite template and its opening (store/template.ts, store/pglite-open.ts).
  "test/sandbox/api.test.ts",
  "test/sandbox/index-units.test.ts",
  "test/sandbox/template.test.ts",
  "test/sandbox/template-units.test.ts",
  // Big text parameters staged in parts (store/pglite-staging.ts).
  "test/sandbox/pglite-staging.test.ts",
  // A big text stored once (store/shared-text.ts), processing one transaction per verification.
  "test/sandbox/shared-text.test.ts",
  "test/sandbox/processing-transactions.test.ts",
  // startSandbox's wiring, its stop, and opening the store (the `start` group), each started inside its test.
  "test/sandbox/start-units.test.ts",
  "test/sandbox/stop-units.test.ts",
  "test/sandbox/store-open-units.test.ts",
  // The dispatcher's idle wait (the `dispatch` group).
  "test/sandbox/dispatch-units.test.ts",
  // In-process since the fourth run: the body's limit and shape, the pages' headers, the clock's cache and the
  // shared clock, the claim beside a backlog, retention's batch, 475 under concurrency.
  "test/sandbox/body-limit.test.ts",
  "test/sandbox/body-shape.test.ts",
  "test/sandbox/csp.test.ts",
  "test/sandbox/clock-cache.test.ts",
  "test/sandbox/shared-clock.test.ts",
  "test/sandbox/outbox-claim.test.ts",
  "test/sandbox/retention-plan.test.ts",
  "test/sandbox/resubmit-race.test.ts",
  // The memory store of verispec/msw (store/memory.ts, in the `store` group): its contract beside the SQL store's,
  // and the handlers over it.
  "test/sandbox/store-contract.test.ts",
  "test/msw/memory-store.test.ts",
  "test/msw/node.test.ts",
];

/** The sandbox's own suites: those that import templates/sandbox/ (test/msw/ runs the memory store). */
const isSandboxSuite = (f: string) => f.startsWith("test/sandbox/") || f.startsWith("test/msw/");

export default defineConfig({
  plugins: [
    {
      name: "runtime-from-templates",
      enforce: "pre",
      resolveId(source, importer) {
        if (importer === undefined || !source.startsWith(".")) return null;
        const target = resolve(dirname(importer), source);
        const match = /[\\/]generated[\\/]runtime[\\/](.+)\.js$/.exec(target);
        return match ? join(root, "templates", `${match[1]}.ts`) : null;
      },
    },
  ],
  test: {
    include: process.env.VERISPEC_MUTATE_SANDBOX === "1" ? INCLUDE.filter(isSandboxSuite) : INCLUDE,
    // write-kill: a child process per step, too slow per mutant; write-safety throws at the same steps.
    exclude: [
      "test/generator/write-kill.test.ts",
      "test/webhooks/redis.test.ts",
      "test/webhooks/cli.test.ts",
      "test/webhooks/cli-binary.test.ts",
      "test/validators/cli.test.ts",
      "test/validators/patterns.test.ts",
      "test/validators/esm.test.ts",
    ],
    globalSetup: ["test/sandbox/pglite-template.ts"],
    sequence: { sequencer: SlowSandboxFilesLast },
    testTimeout: 60_000,
    pool: "forks",
    // One module graph for every file of a run (Stryker switches mutants through a global, not by reloading):
    // each sandbox file imported the templates, PGlite and the validators again, about 2 s a file, which a
    // mutant paid for every file its tests are in. The suites pass this way too (docs/engineering/mutation-testing.md).
    isolate: false,
    // Property tests run fewer cases per mutant (test/support/runs.ts).
    env: { VERISPEC_MUTATION: "1" },
    expect: { requireAssertions: true },
  },
});
