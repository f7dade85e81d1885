// Check: the names the generator itself relies on are defined: the `abn` rule (strict ABN mode), the
// verispec messages it reports (`abnChecksum`, `requiredRole`), the two auth schemes of endpoints.yaml
// (`body`, `basic`), and at least one older entity request (the credentials' fields come from there).
import { at, rawAt, type At } from "../load/spec-access.js";
import type { Checks } from "./context.js";

interface Needed {
  readonly file: string;
  readonly path: readonly string[];
  readonly name: string;
  readonly why: string;
}

const NEEDED: readonly Needed[] = [
  { file: "rules.yaml", path: ["rules"], name: "abn", why: "the rule the strict ABN mode ({ abnChecksum: true }) adds its check to" },
  { file: "errors.yaml", path: ["validationMessages", "verispec"], name: "abnChecksum", why: "the message of the strict ABN mode" },
  { file: "errors.yaml", path: ["validationMessages", "verispec"], name: "requiredRole", why: "the message of a missing required stakeholder role" },
  { file: "endpoints.yaml", path: ["auth"], name: "body", why: "the older interface's authentication (credentials in the body)" },
  { file: "endpoints.yaml", path: ["auth"], name: "basic", why: "the current interface's authentication (HTTP Basic)" },
];

export function checkRequiredNames(c: Checks): void {
  for (const n of NEEDED) {
    const table: At = at(c.root(n.file), ...n.path);
    if (!(n.name in (rawAt(table) ?? {}))) c.report("VS422", table, { name: n.name, why: n.why }, true);
  }
  const older = c.root("older.yaml");
  if (Object.keys(rawAt(older).entityRequests ?? {}).length === 0)
    c.report(
      "VS422",
      at(older, "entityRequests"),
      { name: "(any entity request)", why: "the older requests the client's credential fields are read from" },
      true,
    );
}
