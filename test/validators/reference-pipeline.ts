// The reference pipeline the runtime's `mapErrors` is checked against: `groupIssues(filterNoise(errors)
// .map(toIssue))`, written plainly, one pass per concern. The runtime computes the same answer with
// per-location caches (templates/validators/map-errors.ts); fast-path.test.ts compares the two.
import { fill } from "../../templates/validators/messages.js";
import { applicators } from "../../templates/validators/to-issue.js";
import type { AjvError, ErrorTable, Message, MessageTemplates, ValidationIssue } from "../../templates/validators/types.js";

const isUnion = (e: AjvError) => e.keyword === "oneOf" || e.keyword === "anyOf";
const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer === "" ? "/" : `${outer}/`);
const pathKey = (path: readonly (string | number)[]) => path.map((p) => (typeof p === "number" ? `\u0001${p}` : p)).join("\u0000");
const template = (messages: MessageTemplates, key: string): Message => messages[key] ?? messages.custom ?? { code: "custom", message: "Invalid input" };

/**
 * Drops what is not the service's answer: errors inside `contains`/`not`/`if` subschemas, branch
 * errors of a failed non-discriminated union, the `null` branch of a nullable, `if` wrappers, and a
 * union's own error when something more precise was reported at or below it.
 */
export function filterNoise(errors: readonly AjvError[], table: ErrorTable): AjvError[] {
  const unions = errors.filter(isUnion);
  const kept = errors.filter((e) => {
    if (e.keyword === "if") return false;
    if (e.keyword === "type" && e.params.type === "null" && /\/(?:oneOf|anyOf)\/\d+\/type$/.test(e.schemaPath)) return false;
    for (const a of applicators(e.schemaPath)) {
      if (a.keyword !== "oneOf" && a.keyword !== "anyOf") return false; // inside contains / not / if
      if (unions.some((u) => u.schemaPath === a.prefix && within(e.instancePath, u.instancePath))) return false;
    }
    return true;
  });
  // Zod checks nothing more of a value of the wrong type: a type error is the only one at its path.
  const wrongType = new Set(kept.filter((e) => e.keyword === "type").map((e) => e.instancePath));
  return kept.filter((e) => {
    if (e.keyword !== "type" && e.keyword !== "required" && wrongType.has(e.instancePath)) return false;
    if (!isUnion(e) || table[e.schemaPath]?.override) return true;
    return !kept.some((o) => o !== e && !isUnion(o) && within(o.instancePath, e.instancePath));
  });
}

/**
 * Zod reports all unknown keys of one object in one issue; and one issue per path and code (two
 * rules restricting one value, e.g. a stakeholder `type`, report once).
 */
export function groupIssues(issues: readonly ValidationIssue[], messages: MessageTemplates): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Map<string, number>();
  const unknownKeys = new Map<string, string[]>();
  for (const issue of issues) {
    const key = `${pathKey(issue.path)} ${issue.code}`;
    if (issue.code === "unrecognized_keys") {
      const keys = unknownKeys.get(key);
      const name = /: (.*)$/.exec(issue.message)?.[1] ?? "";
      if (keys) {
        keys.push(name);
        const m = template(messages, "additionalProperties:plural");
        out[seen.get(key)!] = { code: m.code, message: fill(m.message, { keys: keys.join(", ") }), path: issue.path };
        continue;
      }
      unknownKeys.set(key, [name]);
    } else if (seen.has(key)) continue;
    seen.set(key, out.length);
    out.push({ message: issue.message, code: issue.code, path: issue.path }); // the service's key order
  }
  return out;
}
