// What `verispec sandbox` serves: the binding of the spec it was given (--spec, else ./spec, else the
// package's own). The package's own spec is served by its prebuilt generated/sandbox.js; any other spec
// goes through the generator's straight line (load -> check -> model) in this process: its sandbox data
// and webhook rules are the emitters' pure functions, its validators the validator emitter's modules,
// written to a private temporary directory, imported from there (every module statically, at once) and
// removed again before anything listens. No build step; a broken spec throws the generator's SpecError
// (its diagnostics, exit 2) before anything listens.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { SandboxBinding } from "../../../templates/sandbox/binding.js";
import { PACKAGE_ROOT } from "../../package-root.js";

export interface ServedSpec {
  readonly binding: SandboxBinding;
  /** The spec directory served (absolute). */
  readonly specDir: string;
  /** Whether it is the package's own spec (served by the prebuilt binding). */
  readonly own: boolean;
}

const canonical = (dir: string) => {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
};

/** Whether `specDir` is the package's own spec/ (the one generated/ was built from). */
export function isOwnSpec(specDir: string): boolean {
  return canonical(specDir) === canonical(join(PACKAGE_ROOT, "spec"));
}

export async function loadServedSpec(specDir: string): Promise<ServedSpec> {
  if (isOwnSpec(specDir)) {
    const { sandboxBinding } = await import("../../../generated/sandbox.js");
    return { binding: sandboxBinding as unknown as SandboxBinding, specDir, own: true };
  }
  const [{ modelFromSpec }, { emitValidators }, { sandboxSpec }, { webhookRules }, { signWebhookWith }] = await Promise.all([
    import("../../pipeline.js"),
    import("../../emit/validators/index.js"),
    import("../../emit/sandbox.js"),
    import("../../emit/webhooks.js"),
    import("../../../templates/webhooks/index.js"),
  ]);
  const model = modelFromSpec(specDir); // SpecError: the diagnostics, exit 2
  const dir = mkdtempSync(join(tmpdir(), "verispec-sandbox-spec-"));
  try {
    for (const file of emitValidators(model, { root: PACKAGE_ROOT })) {
      if (!file.path.endsWith(".js")) continue;
      const target = join(dir, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.contents);
    }
    const { validate } = (await import(pathToFileURL(join(dir, "validators", "index.js")).href)) as { validate: SandboxBinding["validate"] };
    const rules = webhookRules(model);
    const signWebhook = (input: Parameters<typeof signWebhookWith>[1]) => signWebhookWith(rules.signatures, input);
    const binding = { spec: sandboxSpec(model), rules, validate, signWebhook } as unknown as SandboxBinding;
    return { binding, specDir, own: false };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
