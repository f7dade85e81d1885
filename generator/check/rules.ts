// Check: the named value rules (rules.yaml): patterns expand and compile, length bounds agree, their
// messages exist; limits name an existing rule.
import { describeValue, nameList } from "../diagnostics.js";
import { checkMessageTable } from "./messages.js";
import { at, expandPattern, letterClass, rawAt } from "../load/spec-access.js";
import type { Checks } from "./context.js";

export function checkRules(c: Checks): void {
  const letters = letterClass(rawAt(c.root("unicode-letters.yaml")).ranges);
  const root = c.root("rules.yaml");
  const parts = { ...((rawAt(root).patternParts as Record<string, string> | undefined) ?? {}), unicodeLetter: letters };
  const rules = rawAt(root).rules as Record<string, { pattern?: string; minLength?: number; maxLength?: number; messages?: Record<string, string> }>;
  for (const [name, r] of Object.entries(rules)) {
    const a = at(root, "rules", name);
    if (r.pattern !== undefined) {
      const pattern = expandPattern(r.pattern, parts);
      const leftover = /\{[A-Za-z]+\}/.exec(pattern);
      if (leftover) c.report("VS401", at(a, "pattern"), { placeholder: leftover[0], unicodeLetter: "{unicodeLetter}" });
      try {
        new RegExp(pattern, "u");
      } catch {
        c.report("VS402", at(a, "pattern"), { value: describeValue(r.pattern) });
      }
    }
    if (r.minLength !== undefined && r.maxLength !== undefined && r.minLength > r.maxLength)
      c.report("VS403", at(a, "maxLength"), { max: r.maxLength, min: r.minLength });
    checkMessageTable(c, at(a, "messages"), r.messages);
  }
  const limits = c.root("limits.yaml");
  for (const [name, l] of Object.entries(rawAt(limits).limits as Record<string, { rule?: string }>)) {
    if (l.rule !== undefined && !rules[l.rule])
      c.report("VS303", at(limits, "limits", name, "rule"), { value: JSON.stringify(l.rule), choices: nameList(Object.keys(rules)) });
  }
}
