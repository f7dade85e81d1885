// Every error class the documentation names is importable from the package's public entry points
// (`verispec`, `verispec/validators`, `verispec/webhooks`, through package.json's exports and the built
// dist/), so a user can `instanceof` it. The names are read from README.md and docs/**/*.md, so the
// test follows the documentation as it changes.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const ENTRY_POINTS = ["verispec", "verispec/validators", "verispec/webhooks"] as const;

function markdownFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => join(e.parentPath, e.name));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** Every `SomethingError` the documentation mentions. */
function documentedErrorNames(): string[] {
  const docs = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))];
  const names = docs.flatMap((file) => [...readFileSync(file, "utf8").matchAll(/\b[A-Z][A-Za-z0-9]*Error\b/g)].map((m) => m[0]));
  return [...new Set(names)].sort();
}

/** Error classes declared in `dirs` (source text, not imports: the sandbox and the CLI are not loaded). */
function declaredErrorClasses(dirs: readonly string[]): Set<string> {
  const text = dirs
    .flatMap(sourceFiles)
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
  return new Set([...text.matchAll(/\bclass\s+([A-Za-z0-9]*Error)\b/g)].map((m) => m[1]!));
}

// The platform's own: global constructors (TypeError, RangeError...) and DOMException's "AbortError"
// (the caller's own abort, rethrown unchanged).
const isPlatformError = (name: string) => name === "AbortError" || typeof (globalThis as Record<string, unknown>)[name] === "function";
// Errors of the sandbox and the CLI: documented for what a user of those sees, not importable by design.
const internal = declaredErrorClasses(["templates/sandbox", "generator"]);
const runtime = declaredErrorClasses(["templates/client", "templates/webhooks", "templates/validators"]);

describe("documented error classes are public", () => {
  const documented = documentedErrorNames();
  const expected = documented.filter((name) => !isPlatformError(name) && (runtime.has(name) || !internal.has(name)));

  it("the documentation names the error classes this test is about", () => {
    // Guards the parser: an empty list would pass the next test vacuously.
    expect(expected).toEqual(
      expect.arrayContaining([
        "VerispecError",
        "RedirectError",
        "ResponseFormatError",
        "ResponseTooLargeError",
        "ReplayStoreUnavailableError",
        "WebhookVerificationError",
      ]),
    );
  });

  it("each is exported by an entry point as an Error subclass of that name", async () => {
    const modules = await Promise.all(ENTRY_POINTS.map(async (entry) => [entry, (await import(entry)) as Record<string, unknown>] as const));
    const missing: string[] = [];
    for (const name of expected) {
      const found = modules.find(([, mod]) => typeof mod[name] === "function");
      if (found === undefined) {
        missing.push(name);
        continue;
      }
      const Cls = found[1][name] as new (message: string) => Error;
      const instance = new Cls("m");
      expect(instance, `${name} from ${found[0]}`).toBeInstanceOf(Error);
      expect(instance.name, `${name} from ${found[0]}`).toBe(name);
    }
    expect(missing, "documented error classes no public entry point exports").toEqual([]);
  });
});
