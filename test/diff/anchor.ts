// The anchor: Optic's breaking-changes ruleset (@useoptic/standard-rulesets, an OpenAPI-level diff that
// runs in Node) on the same pair of generated OpenAPI documents that verispec diffs as models.
import { createRequire } from "node:module";
import { emitAll } from "../../generator/pipeline.js";
import { compareSides } from "../../generator/diff/compare-model.js";
import type { Side } from "../../generator/diff/sides.js";

type Doc = Record<string, unknown>;
interface OpticResult {
  readonly name: string;
  readonly passed: boolean;
  readonly error?: string;
  readonly where?: string;
}

const require = createRequire(import.meta.url);

/** The generated openapi.json of a side, with local $refs inlined (Optic's rules read inline schemas). */
export function openapiOf(side: Side): Doc {
  const file = emitAll(side.model).find((f) => f.path === "openapi.json")!;
  return inlineRefs(JSON.parse(file.contents) as Doc);
}

function inlineRefs(doc: Doc): Doc {
  const walk = (v: unknown, stack: readonly string[]): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, stack));
    if (v === null || typeof v !== "object") return v;
    const o = v as Doc;
    if (typeof o.$ref === "string" && o.$ref.startsWith("#/")) {
      const ref = o.$ref;
      if (stack.includes(ref)) return {};
      const target = ref
        .slice(2)
        .split("/")
        .reduce<unknown>((x, k) => (x as Doc)[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
      const { $ref: _, ...rest } = o;
      return { ...(walk(target, [...stack, ref]) as Doc), ...(walk(rest, stack) as Doc) };
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, walk(x, stack)]));
  };
  return walk(doc, []) as Doc;
}

/** Optic's failing breaking-change rules between two documents: rule name -> how many times. */
export async function opticFindings(base: Doc, head: Doc): Promise<Record<string, number>> {
  const { runRulesWithInputs } = require("@useoptic/rulesets-base/build/test-helpers") as {
    runRulesWithInputs: (rules: unknown[], a: Doc, b: Doc) => Promise<OpticResult[]>;
  };
  const { BreakingChangesRuleset } = require("@useoptic/standard-rulesets/build/breaking-changes") as { BreakingChangesRuleset: new () => unknown };
  const results = await runRulesWithInputs([new BreakingChangesRuleset()], base, head);
  const out: Record<string, number> = {};
  for (const r of results) if (!r.passed) out[r.name] = (out[r.name] ?? 0) + 1;
  return out;
}

/** verispec's findings between the same two sides: check id -> how many times. */
export function verispecFindings(base: Side, head: Side): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of compareSides(base, head)) out[f.id] = (out[f.id] ?? 0) + 1;
  return out;
}
