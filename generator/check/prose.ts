// Check: a number written in descriptive text agrees with the data that holds it (one home per fact: the
// data governs, the text may restate it but not contradict it). The texts checked are those tied to a
// fact: a rule's description and messages, the description of a field that uses a rule (and of an
// object naming such a field in backticks), a limit's `value`, the receiver rules of a signature (the
// tolerance limit), the attempt rules (statuses.yaml `attempts`), a country group's description (the
// length of its list: "the 15 other countries"); and a transition's `condition` text,
// which must be the text of the condition its `when` names. A disagreement is VS434 / VS435 at the text.
import { expandPattern, letterClass, at, rawAt, type At, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";

/** What the data says, as far as a text can restate it. */
interface Truth {
  readonly digits?: readonly [number, number];
  readonly maxLength?: number;
  readonly minutes?: number;
  readonly days?: number;
  readonly count?: number;
  readonly startsAt?: number;
  readonly observedDefaultCap?: number;
  /** The length of a country list. */
  readonly countries?: number;
}

interface Claim {
  readonly kind: keyof Truth;
  readonly value: number | readonly [number, number];
  /** The words that state it, as written. */
  readonly words: string;
}

const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen"];
const NUMBER = `(\\d+|${WORDS.join("|")})`;
const num = (t: string) => (/^\d+$/.test(t) ? Number(t) : WORDS.indexOf(t.toLowerCase()));

/** The number statements a text makes (digits, lengths, minutes, days, counts, the attempt counter). */
export function claimsIn(text: string, countClaims = false): Claim[] {
  const out: Claim[] = [];
  const each = (re: RegExp, make: (m: RegExpExecArray) => Omit<Claim, "words">) => {
    for (const m of text.matchAll(re)) out.push({ ...make(m as RegExpExecArray), words: m[0] });
  };
  each(new RegExp(`\\b${NUMBER}(?:\\s+to\\s+${NUMBER})?[\\s-]digits?\\b`, "gi"), (m) => ({ kind: "digits", value: [num(m[1]!), num(m[2] ?? m[1]!)] }));
  each(/\b(?:fewer|less) than (\d+) characters\b/gi, (m) => ({ kind: "maxLength", value: Number(m[1]) - 1 }));
  each(/\bat most (\d+) characters\b/gi, (m) => ({ kind: "maxLength", value: Number(m[1]) }));
  each(/\b(\d+) minutes?\b/gi, (m) => ({ kind: "minutes", value: Number(m[1]) }));
  each(/\b(\d+) days?\b/gi, (m) => ({ kind: "days", value: Number(m[1]) }));
  each(/\bstarts at (\d+)\b/gi, (m) => ({ kind: "startsAt", value: Number(m[1]) }));
  each(/\b(?:default cap observed is (\d+)|(\d+) observed as default)\b/gi, (m) => ({ kind: "observedDefaultCap", value: Number(m[1] ?? m[2]) }));
  if (countClaims) each(/^(\d+)\b/g, (m) => ({ kind: "count", value: Number(m[1]) }));
  each(new RegExp(`\\b${NUMBER}(?: other)? countries\\b`, "gi"), (m) => ({ kind: "countries", value: num(m[1]!) }));
  return out;
}

const show = (kind: keyof Truth, v: number | readonly [number, number]): string => {
  if (kind === "digits") {
    const [lo, hi] = v as readonly [number, number];
    return lo === hi ? `${lo} digits` : `${lo} to ${hi} digits`;
  }
  const n = v as number;
  return (
    {
      maxLength: `at most ${n} characters (maxLength ${n})`,
      minutes: `${n} minutes`,
      days: `${n} days`,
      count: `${n}`,
      startsAt: `starts at ${n}`,
      observedDefaultCap: `a default cap of ${n}`,
      countries: `${n} countries`,
    }[kind] ?? String(n)
  );
};

/** The digit count a pattern of digits only (`^[0-9]{n}$`, `^\d{a,b}$`) states. */
export function digitsOf(pattern: string): readonly [number, number] | undefined {
  const m = /^\^(?:\[0-9\]|\\d)\{(\d+)(?:,(\d+))?\}\$$/.exec(pattern);
  return m ? [Number(m[1]), Number(m[2] ?? m[1])] : undefined;
}

/** What the prose checks share: a rule's facts (digits, maxLength) and the comparison of a text's claims with facts. */
interface ProseKit {
  readonly ruleTruth: (name: string) => Truth;
  readonly compare: (a: At, truth: Truth, source: string, countClaims?: boolean) => void;
}

export function checkProse(c: Checks): void {
  const kit = proseKit(c);
  checkRuleTexts(c, kit);
  checkFieldTexts(c, kit);
  checkLimitTexts(c, kit);
  checkSignatureTexts(c, kit);
  checkAttemptTexts(c, kit);
  checkCountryGroupTexts(c, kit);
  checkConditionTexts(c);
}

function proseKit(c: Checks): ProseKit {
  const rulesRoot = c.root("rules.yaml");
  const parts = {
    ...((rawAt(rulesRoot).patternParts as Record<string, string> | undefined) ?? {}),
    unicodeLetter: letterClass(rawAt(c.root("unicode-letters.yaml")).ranges),
  };
  const rules = rawAt(rulesRoot).rules as Record<string, Raw>;
  const ruleTruth = (name: string): Truth => {
    const r = rules[name];
    if (!r) return {};
    const digits = typeof r.pattern === "string" ? digitsOf(expandPattern(r.pattern, parts)) : undefined;
    return { ...(digits ? { digits } : {}), ...(typeof r.maxLength === "number" ? { maxLength: r.maxLength } : {}) };
  };

  const compare = (a: At, truth: Truth, source: string, countClaims = false) => {
    const text = rawAt(a) as unknown;
    if (typeof text !== "string") return;
    for (const claim of claimsIn(text, countClaims)) {
      const known = truth[claim.kind];
      if (known === undefined || JSON.stringify(known) === JSON.stringify(claim.value)) continue;
      c.report("VS434", a, { quote: JSON.stringify(claim.words), claim: show(claim.kind, claim.value), truth: show(claim.kind, known), source });
    }
  };
  return { ruleTruth, compare };
}

/** Rules: their descriptions, and the messages they report. */
function checkRuleTexts(c: Checks, { ruleTruth, compare }: ProseKit): void {
  const rulesRoot = c.root("rules.yaml");
  const rules = rawAt(rulesRoot).rules as Record<string, Raw>;
  const messages = rawAt(c.root("errors.yaml")).validationMessages as Raw;
  for (const [name, r] of Object.entries(rules)) {
    const source = `rules.yaml ${name}`;
    compare(at(rulesRoot, "rules", name, "description"), ruleTruth(name), source);
    for (const id of Object.values((r.messages ?? {}) as Record<string, string>)) {
      for (const group of ["observed", "verispec"])
        if (messages[group]?.[id]) compare(at(c.root("errors.yaml"), "validationMessages", group, id, "message"), ruleTruth(name), source);
    }
  }
}

/** Fields that use a rule, anywhere: their description; an object's description naming such a field. */
function checkFieldTexts(c: Checks, { ruleTruth, compare }: ProseKit): void {
  const walk = (a: At, v: unknown): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(at(a, i), x));
    if (!v || typeof v !== "object") return;
    const o = v as Raw;
    if (typeof o.rule === "string" && typeof o.description === "string") compare(at(a, "description"), ruleTruth(o.rule), `rules.yaml ${o.rule}`);
    if (o.properties && typeof o.description === "string") {
      for (const m of (o.description as string).matchAll(/`(\w+)`\s*\(([^)]*)\)/g)) {
        const rule = (o.properties as Raw)[m[1]!]?.rule;
        if (typeof rule !== "string") continue;
        for (const claim of claimsIn(m[2]!)) {
          const known = ruleTruth(rule)[claim.kind];
          if (known !== undefined && JSON.stringify(known) !== JSON.stringify(claim.value)) {
            c.report("VS434", at(a, "description"), {
              quote: JSON.stringify(m[0]),
              claim: show(claim.kind, claim.value),
              truth: show(claim.kind, known),
              source: `rules.yaml ${rule}`,
            });
          }
        }
      }
    }
    for (const [k, x] of Object.entries(o)) walk(at(a, k), x);
  };
  for (const file of c.spec.files) if (file.name !== "rules.yaml" && !file.name.startsWith("meta/")) walk({ file, path: [] }, file.data);
}

/** Limits: the `value` text against the limit's numbers (and its rule's). */
function checkLimitTexts(c: Checks, { ruleTruth, compare }: ProseKit): void {
  const limitsRoot = c.root("limits.yaml");
  const limits = rawAt(limitsRoot).limits as Record<string, Raw>;
  const attempts = rawAt(c.root("statuses.yaml")).attempts as Raw;
  for (const [name, l] of Object.entries(limits)) {
    const minutes = typeof l.ms === "number" ? l.ms / 60_000 : l.prefilledDataReducedAfterMinutes;
    const truth: Truth = {
      ...(typeof l.rule === "string" ? ruleTruth(l.rule) : {}),
      ...(typeof minutes === "number" ? { minutes } : {}),
      ...(typeof l.days === "number" ? { days: l.days } : {}),
      ...(typeof l.count === "number" ? { count: l.count } : {}),
      ...(typeof l.observedDefault === "number" ? { observedDefaultCap: l.observedDefault } : {}),
    };
    compare(at(limitsRoot, "limits", name, "value"), truth, `limits.yaml ${name}`, true);
    // The observed default cap is held twice (section 8's table and section 3's rule): they must agree.
    if (typeof l.observedDefault === "number" && l.observedDefault !== attempts.observedDefaultCap) {
      c.report("VS434", at(limitsRoot, "limits", name, "observedDefault"), {
        quote: String(l.observedDefault),
        claim: show("observedDefaultCap", l.observedDefault),
        truth: show("observedDefaultCap", attempts.observedDefaultCap),
        source: "statuses.yaml attempts.observedDefaultCap",
      });
    }
  }
}

/** Signatures: what a receiver must check, against the tolerance limit. */
function checkSignatureTexts(c: Checks, { compare }: ProseKit): void {
  const limits = rawAt(c.root("limits.yaml")).limits as Record<string, Raw>;
  const webhooks = c.root("webhooks.yaml");
  for (const [version, s] of Object.entries(rawAt(webhooks).signatures as Record<string, Raw>)) {
    const limit = typeof s.toleranceLimit === "string" ? limits[s.toleranceLimit] : undefined;
    if (!limit || typeof limit.ms !== "number") continue;
    ((s.receiverMust ?? []) as string[]).forEach((_, i) =>
      compare(at(webhooks, "signatures", version, "receiverMust", i), { minutes: limit.ms / 60_000 }, `limits.yaml ${s.toleranceLimit}`),
    );
  }
}

/** The attempt rules' sentences against the attempt data. */
function checkAttemptTexts(c: Checks, { compare }: ProseKit): void {
  const attempts = rawAt(c.root("statuses.yaml")).attempts as Raw;
  const statuses = c.root("statuses.yaml");
  ((attempts.rules ?? []) as string[]).forEach((_, i) =>
    compare(at(statuses, "attempts", "rules", i), { startsAt: attempts.startsAt, observedDefaultCap: attempts.observedDefaultCap }, "statuses.yaml attempts"),
  );
}

/** A country group's description against the length of its list ("The 15 other countries ..."). */
function checkCountryGroupTexts(c: Checks, { compare }: ProseKit): void {
  const countries = c.root("countries.yaml");
  for (const [name, g] of Object.entries(rawAt(countries).groups as Record<string, Raw>)) {
    compare(at(countries, "groups", name, "description"), { countries: (g.countries as unknown[]).length }, `countries.yaml ${name}`);
  }
}

/** A transition's condition text is its `when` condition's text (the model derives it when left out). */
function checkConditionTexts(c: Checks): void {
  const statuses = c.root("statuses.yaml");
  const conditions = (rawAt(statuses).conditions ?? {}) as Record<string, Raw>;
  (rawAt(statuses).transitions as Raw[]).forEach((t, i) => {
    const ref = t.when?.ref;
    const text = typeof ref === "string" ? conditions[ref]?.text : undefined;
    if (typeof t.condition === "string" && typeof text === "string" && t.condition !== text) {
      c.report("VS435", at(statuses, "transitions", i, "condition"), { value: JSON.stringify(t.condition), ref, text: JSON.stringify(text) });
    }
  });
}
