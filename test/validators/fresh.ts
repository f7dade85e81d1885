// Loads a runtime module afresh inside the calling test. Under mutation testing (Stryker's vitest runner)
// the mutant is switched on in a beforeAll hook, after a test file's top-level imports have run: the
// module-level constants of a statically imported module (regexes, tables, caches) would be built without
// it, and their mutants would survive whatever the tests check. After vi.resetModules(), a dynamic import
// inside the test builds them under the mutant, and mutation coverage counts them for that test.
import { vi } from "vitest";

export async function fresh<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  return load();
}
