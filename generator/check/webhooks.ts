// Check: webhooks.yaml: the timestamp tolerance names a limit in milliseconds, every signature version has
// one version header (the header with a `value`) of one name across versions and the digest headers the runtime
// computes (each with its prefix), every payload names a shape
// and a signature version, and there is a `v5` and an `older` payload (specification section 6).
import { describeValue, nameList } from "../diagnostics.js";
import { at, rawAt, SIGNATURE_DIGESTS } from "../load/spec-access.js";
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
  checkDigestHeaders(c);
  const shapes = shapeSources(c);
  for (const [name, p] of Object.entries(wh.payloads as Record<string, { schema: string; signatureVersion: string }>)) {
    if (!shapes.has(p.schema)) c.report("VS304", at(root, "payloads", name, "schema"), { value: JSON.stringify(p.schema) });
    // A payload is signed by the runtime, which computes the schemes of SIGNATURE_DIGESTS only.
    if (!Object.hasOwn(SIGNATURE_DIGESTS, p.signatureVersion))
      c.report("VS316", at(root, "payloads", name, "signatureVersion"), {
        value: describeValue(p.signatureVersion),
        choices: nameList(Object.keys(SIGNATURE_DIGESTS)),
      });
  }
  const names = Object.keys(wh.payloads);
  if (!names.includes("v5") || !names.includes("older")) c.report("VS419", at(root, "payloads"), { found: nameList(names) }, true);
}

/** Each signature scheme has one header of each digest the runtime computes for it, with the prefix before the hex digest. */
function checkDigestHeaders(c: Checks): void {
  const root = c.root("webhooks.yaml");
  const signatures = rawAt(root).signatures as Record<string, { headers: Record<string, { digest?: string; prefix?: string }> }>;
  for (const [version, digests] of Object.entries(SIGNATURE_DIGESTS)) {
    const headers = Object.entries(signatures[version]?.headers ?? {});
    const where = at(root, "signatures", version, "headers");
    for (const digest of digests) {
      const carrying = headers.filter(([, h]) => h.digest === digest);
      const [name, header] = carrying[0] ?? [];
      if (carrying.length !== 1) c.report("VS441", where, { found: `${carrying.length} headers with \`digest: ${digest}\` in signature version ${version}` });
      else if (typeof header?.prefix !== "string") c.report("VS441", at(where, name!), { found: `the ${digest} header ${name} without a \`prefix\`` });
    }
  }
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
