// Check: webhooks.yaml: the timestamp tolerance names a limit in milliseconds, every signature version has
// one version header (the header with a `value`) of one name across versions, every payload names a shape
// and a signature version, and there is a `v5` and an `older` payload (specification section 6).
import { describeValue, nameList } from "../diagnostics.js";
import { at, rawAt } from "../load/spec-access.js";
import type { Checks } from "./context.js";
import { shapeSources } from "./shapes.js";

export function checkWebhooks(c: Checks): void {
  const root = c.root("webhooks.yaml");
  const wh = rawAt(root);
  const limits = rawAt(c.root("limits.yaml")).limits;
  const toleranceName: string | undefined = wh.signatures?.["2"]?.toleranceLimit;
  if (toleranceName === undefined || typeof limits[toleranceName]?.ms !== "number")
    c.report("VS414", at(root, "signatures", "2", "toleranceLimit"), { value: describeValue(toleranceName) });
  checkVersionHeaders(c);
  const shapes = shapeSources(c);
  for (const [name, p] of Object.entries(wh.payloads as Record<string, { schema: string; signatureVersion: string }>)) {
    if (!shapes.has(p.schema)) c.report("VS304", at(root, "payloads", name, "schema"), { value: JSON.stringify(p.schema) });
    if (!wh.signatures[p.signatureVersion])
      c.report("VS316", at(root, "payloads", name, "signatureVersion"), {
        value: describeValue(p.signatureVersion),
        choices: nameList(Object.keys(wh.signatures)),
      });
  }
  const names = Object.keys(wh.payloads);
  if (!names.includes("v5") || !names.includes("older")) c.report("VS419", at(root, "payloads"), { found: nameList(names) }, true);
}

/** Each signature version names itself in one header with a `value`, and every version uses the same header. */
function checkVersionHeaders(c: Checks): void {
  const root = c.root("webhooks.yaml");
  let first: string | undefined;
  for (const [version, s] of Object.entries(rawAt(root).signatures as Record<string, { headers: Record<string, { value?: unknown }> }>)) {
    const named = Object.entries(s.headers).filter(([, h]) => h.value !== undefined);
    const where = at(root, "signatures", version, "headers");
    if (named.length !== 1) {
      c.report("VS439", where, { found: `${named.length} headers with a \`value\` in signature version ${version}` });
      continue;
    }
    const [name] = named[0]!;
    if (first !== undefined && name !== first) c.report("VS439", at(where, name), { found: `the version header ${name} where another version uses ${first}` });
    first ??= name;
  }
}
