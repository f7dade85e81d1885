// Check: the named value rules (rules.yaml): patterns expand and compile, length bounds agree, their
// messages exist; limits name an existing rule.
import { describeValue, nameList } from "../diagnostics.js";
import { checkMessageTable } from "./messages.js";
import { at, rawAt, type Checks } from "./context.js";

/** A code point range "0041-005A" as regex class text: BMP as \uXXXX, astral code points literally. */
function renderRange(range: string): string {
  const [from, to] = range.split("-").map((h) => parseInt(h, 16)) as [number, number | undefined];
  const one = (cp: number) => (cp > 0xffff ? String.fromCodePoint(cp) : `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`);
  return to === undefined ? one(from) : `${one(from)}-${one(to)}`;
}

const letterClasses = new WeakMap<readonly string[], string>();

/** The class text of unicode-letters.yaml's ranges, for `{unicodeLetter}` (once per list: the check and the model both ask). */
export function letterClass(ranges: readonly string[]): string {
  let text = letterClasses.get(ranges);
  if (text === undefined) letterClasses.set(ranges, (text = ranges.map(renderRange).join("")));
  return text;
}

/**
 * A rule's pattern with its placeholders expanded: `{unicodeLetter}` and the parts of rules.yaml's
 * `patternParts` (one home for a pattern several rules use). The model builder uses the same.
 */
export const expandPattern = (pattern: string, parts: Readonly<Record<string, string>>): string =>
  pattern.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => (Object.prototype.hasOwnProperty.call(parts, name) ? parts[name]! : whole));

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
    if (r.minLength !== undefined && r.maxLength !== undefined && r.minLength > r.maxLength) c.report("VS403", at(a, "maxLength"), { max: r.maxLength, min: r.minLength });
    checkMessageTable(c, at(a, "messages"), r.messages);
  }
  const limits = c.root("limits.yaml");
  for (const [name, l] of Object.entries(rawAt(limits).limits as Record<string, { rule?: string }>)) {
    if (l.rule !== undefined && !rules[l.rule]) c.report("VS303", at(limits, "limits", name, "rule"), { value: JSON.stringify(l.rule), choices: nameList(Object.keys(rules)) });
  }
}
