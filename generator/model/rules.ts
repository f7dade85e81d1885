// Model: rules.yaml: the named value rules, their patterns expanded (`{unicodeLetter}` from
// unicode-letters.yaml and the shared pattern parts) and their messages resolved.
import { positionOf } from "../load/load-spec.js";
import { expandPattern, letterClass, rawAt, type Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { MessageBook } from "./messages.js";
import type { Rule } from "./types.js";

export function buildRules(ctx: ModelContext, messages: MessageBook): Record<string, Rule> {
  const file = ctx.file("rules.yaml");
  const root = ctx.root("rules.yaml");
  const patternParts = { ...(root.patternParts ?? {}), unicodeLetter: letterClass(ctx.root("unicode-letters.yaml").ranges) };
  const rules: Record<string, Rule> = {};
  for (const [name, r] of Object.entries(rawAt({ file, path: ["rules"] }) as Record<string, Raw>)) {
    const pattern = r.pattern === undefined ? undefined : expandPattern(r.pattern, patternParts);
    rules[name] = {
      name,
      source: r.source,
      description: r.description,
      minLength: r.minLength,
      maxLength: r.maxLength,
      pattern,
      format: r.format,
      messages: messages.resolve(r.messages),
      examples: r.examples ?? [],
      pos: positionOf(file, ["rules", name], true),
    };
  }
  return rules;
}
