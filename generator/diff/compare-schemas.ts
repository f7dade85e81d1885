// Compare rules for shapes: one field against its counterpart, in the direction its audience reads it.
// For request senders a change is breaking when the head accepts less than the base; for response and
// webhook readers when the head may send more (or other) than the base did.
import type { SourcePos } from "../diagnostics.js";
import type { Field, JsonType, Model, ValueSet } from "../model/types.js";
import type { CheckId } from "./catalog.js";
import type { Emit, Location } from "./finding.js";
import { acceptsAll } from "./pattern-subset.js";

export type Direction = "request" | "response";

export interface SchemaContext {
  readonly base: Model;
  readonly head: Model;
  readonly emit: Emit;
  readonly direction: Direction;
  /** Schema id and operation/webhook of the finding's location. */
  readonly schema: string;
  readonly operation?: string;
  readonly webhook?: string;
  /** Pairs of shapes already compared inline (a ref that points elsewhere), against cycles. */
  readonly seen: Set<string>;
  /** Where a named value set is defined on the head side (`spec/countries.yaml:289`), when known. */
  readonly definedAt?: (set: ValueSet) => string | undefined;
}

const json = (v: unknown) => JSON.stringify(v);
const list = (vs: readonly unknown[]) => vs.map((v) => (typeof v === "string" ? `\`${v}\`` : json(v))).join(", ");
const pointerKey = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");

function where(ctx: SchemaContext, path: string, base: SourcePos | undefined, head: SourcePos | undefined): Location {
  return {
    schema: ctx.schema,
    path: path === "" ? "/" : path,
    ...(base ? { base } : {}),
    ...(head ? { head } : {}),
    ...(ctx.operation ? { operation: ctx.operation } : {}),
    ...(ctx.webhook ? { webhook: ctx.webhook } : {}),
  };
}

/** By direction: [id when the head accepts/sends less, id when it accepts/sends more]. */
function pick(ctx: SchemaContext, request: CheckId, response: CheckId): CheckId {
  return ctx.direction === "request" ? request : response;
}

function typeSet(f: Field): JsonType[] | undefined {
  if (f.type === undefined) return undefined;
  return Array.isArray(f.type) ? [...(f.type as JsonType[])] : [f.type as JsonType];
}

/** The closed list of values a field takes, or undefined when any value of its type goes. */
function valuesOf(f: Field): readonly unknown[] | undefined {
  return f.enum ?? f.values?.values;
}

const isCountryList = (f: Field) => f.values !== undefined && (f.values.name === "iso3" || f.values.countryGroup === true);

function isRequired(f: Field): boolean {
  return f.required === "yes";
}

const minLengthOf = (f: Field) => f.rule?.minLength;
const maxLengthOf = (f: Field) => f.rule?.maxLength;
const patternOf = (f: Field) => f.rule?.pattern;
/** The format a schema states: the field's own, else its rule's. */
const formatOf = (f: Field) => f.format ?? f.rule?.format;

export function compareField(b: Field, h: Field, path: string, ctx: SchemaContext): void {
  const at = where(ctx, path, b.pos, h.pos);
  const req = ctx.direction === "request";

  // Types and null.
  const bt = typeSet(b);
  const ht = typeSet(h);
  if (bt && ht) {
    const lost = bt.filter((t) => !ht.includes(t));
    const gained = ht.filter((t) => !bt.includes(t));
    if (lost.length > 0)
      ctx.emit(pick(ctx, "request-type-narrowed", "response-constraint-tightened"), `no longer ${req ? "accepts" : "carries"} ${lost.join(", ")}`, at);
    if (gained.length > 0) ctx.emit(pick(ctx, "request-constraint-relaxed", "response-type-widened"), `may now be ${gained.join(", ")}`, at);
  }
  if (b.nullable && !h.nullable) ctx.emit(pick(ctx, "request-type-narrowed", "response-constraint-tightened"), "no longer nullable", at);
  if (!b.nullable && h.nullable) ctx.emit(pick(ctx, "request-constraint-relaxed", "response-type-widened"), "may now be null", at);

  // Fixed values and closed lists.
  if (b.const !== undefined || h.const !== undefined) {
    if (json(b.const) !== json(h.const))
      ctx.emit(
        pick(ctx, "request-const-changed", "response-const-changed"),
        `fixed value ${b.const === undefined ? "none" : json(b.const)} -> ${h.const === undefined ? "none" : json(h.const)}`,
        at,
      );
  }
  compareValues(b, h, at, ctx);

  // String and number constraints.
  compareConstraints(b, h, at, ctx);

  // Deprecation (a property deprecated now: integrators should plan to move off it).
  if (!b.deprecated && h.deprecated) ctx.emit("deprecation-added", `${path || ctx.schema} is now deprecated`, at);
  if (b.deprecated && !h.deprecated) ctx.emit("deprecation-removed", `${path || ctx.schema} is no longer deprecated`, at);

  // Its own messages (integrators match on them).
  compareMessages(b.messages, h.messages, at, ctx.emit);

  // Structure.
  compareObject(b, h, path, ctx);
  if (b.items && h.items) compareField(b.items, h.items, `${path}/items`, ctx);
  compareUnion(b, h, path, ctx);
  compareRef(b, h, path, ctx);
  compareWhen(b, h, path, ctx);
}

function compareValues(b: Field, h: Field, at: Location, ctx: SchemaContext): void {
  const bv = valuesOf(b);
  const hv = valuesOf(h);
  if (!bv && !hv) return;
  const country = isCountryList(b) || isCountryList(h);
  const narrowed: CheckId = ctx.direction === "request" ? (country ? "request-country-removed" : "request-enum-value-removed") : "response-enum-value-removed";
  const widened: CheckId = ctx.direction === "request" ? (country ? "request-country-added" : "request-enum-value-added") : "response-enum-value-added";
  const set = h.values ?? b.values;
  const defined = set && ctx.definedAt?.(set);
  const what = `${country ? "countries" : "values"}${set ? ` of ${set.name}${defined ? ` (${defined})` : ""}` : ""}`;
  if (bv && !hv) return ctx.emit(widened, `no longer limited to a list of ${what}`, at);
  if (!bv && hv) return ctx.emit(narrowed, `now limited to ${hv.length} ${what}: ${list(hv.slice(0, 20))}${hv.length > 20 ? ", ..." : ""}`, at);
  const hs = new Set(hv!.map(json));
  const bs = new Set(bv!.map(json));
  const lost = bv!.filter((v) => !hs.has(json(v)));
  const gained = hv!.filter((v) => !bs.has(json(v)));
  if (lost.length > 0) ctx.emit(narrowed, `${what} removed: ${list(lost)}`, at);
  if (gained.length > 0) ctx.emit(widened, `${what} added: ${list(gained)}`, at);
}

/** What a tightened request rule does to the values it newly refuses: "values of 100-199 characters now get 422 too_big". */
function nowRefused(h: Field, keyword: string, values: string): string {
  const m = h.rule?.messages[keyword];
  // The 422 and its code only where the rule names the service's message; otherwise only that they are refused.
  return m ? `${values} now get 422 ${m.code} ("${m.message}")` : `${values} are now refused`;
}

function compareConstraints(b: Field, h: Field, at: Location, ctx: SchemaContext): void {
  const req = ctx.direction === "request";
  const tight: CheckId = req ? "request-length-tightened" : "response-constraint-tightened";
  const loose: CheckId = req ? "request-constraint-relaxed" : "response-constraint-relaxed";
  const [bmin, hmin] = [minLengthOf(b) ?? 0, minLengthOf(h) ?? 0];
  if (hmin > bmin)
    ctx.emit(
      tight,
      `minLength ${bmin} -> ${hmin}${req ? `: ${nowRefused(h, "minLength", hmin - 1 > bmin ? `values of ${bmin}-${hmin - 1} characters` : `values of ${bmin} ${bmin === 1 ? "character" : "characters"}`)}` : ""}`,
      at,
    );
  if (hmin < bmin) ctx.emit(loose, `minLength ${bmin} -> ${hmin}`, at);
  const [bmax, hmax] = [maxLengthOf(b) ?? Infinity, maxLengthOf(h) ?? Infinity];
  const n = (v: number) => (v === Infinity ? "none" : String(v));
  if (hmax < bmax)
    ctx.emit(
      tight,
      `maxLength ${n(bmax)} -> ${n(hmax)}${req ? `: ${nowRefused(h, "maxLength", `values of ${hmax + 1}${bmax === Infinity ? " or more" : `-${bmax}`} characters`)}` : ""}`,
      at,
    );
  if (hmax > bmax) ctx.emit(loose, `maxLength ${n(bmax)} -> ${n(hmax)}`, at);
  comparePatterns(b, h, at, ctx);
  const [bf, hf] = [formatOf(b), formatOf(h)];
  if (bf !== hf) {
    // Another format is neither narrower nor wider: it rejects (request) or may carry (response) other values.
    if (hf === undefined) ctx.emit(loose, `format ${bf} removed`, at);
    else if (req) ctx.emit("request-format-added", `format ${bf ?? "none"} -> ${hf}`, at);
    else ctx.emit(bf === undefined ? "response-constraint-tightened" : "response-constraint-relaxed", `format ${bf ?? "none"} -> ${hf}`, at);
  }
  const [bm, hm] = [b.minimum ?? -Infinity, h.minimum ?? -Infinity];
  if (hm > bm) ctx.emit(req ? "request-minimum-raised" : "response-constraint-tightened", `minimum ${b.minimum ?? "none"} -> ${h.minimum}`, at);
  if (hm < bm) ctx.emit(loose, `minimum ${b.minimum} -> ${h.minimum ?? "none"}`, at);
}

/** Messages by keyword or id: a code change is breaking for whoever matches on it, a text change a warning. */
/**
 * Patterns, old and new shown. A request pattern that changed is breaking unless the new one provably
 * accepts every value the old one did (pattern-subset.ts); a response pattern that changed is a warning
 * unless the new one provably carries no value the old one could not.
 */
function comparePatterns(b: Field, h: Field, at: Location, ctx: SchemaContext): void {
  const [bp, hp] = [patternOf(b), patternOf(h)];
  if (bp === hp) return;
  const req = ctx.direction === "request";
  const rule = (f: Field) => ` (rule ${f.rule!.name})`;
  if (bp === undefined) return ctx.emit(req ? "request-pattern-added" : "response-constraint-tightened", `pattern added: ${json(hp)}${rule(h)}`, at);
  if (hp === undefined) return ctx.emit(req ? "request-constraint-relaxed" : "response-constraint-relaxed", `pattern removed: was ${json(bp)}${rule(b)}`, at);
  const rules = b.rule!.name === h.rule!.name ? rule(h) : ` (rule ${b.rule!.name} -> ${h.rule!.name})`;
  const change = `${json(bp)} -> ${json(hp)}${rules}`;
  if (req) {
    if (acceptsAll(hp, bp)) ctx.emit("request-constraint-relaxed", `pattern widened: ${change}`, at);
    else ctx.emit("request-pattern-changed", `pattern changed, not provably accepting every value it accepted: ${change}`, at);
  } else if (acceptsAll(bp, hp)) ctx.emit("response-constraint-tightened", `pattern narrowed: ${change}`, at);
  else ctx.emit("response-constraint-relaxed", `pattern changed, may carry values it could not: ${change}`, at);
}

export function compareMessages(
  b: Readonly<Record<string, { readonly code: string; readonly message: string }>>,
  h: Readonly<Record<string, { readonly code: string; readonly message: string }>>,
  at: Location,
  emit: Emit,
  label = "",
): void {
  for (const key of Object.keys(b).sort()) {
    const [bm, hm] = [b[key]!, h[key]];
    if (!hm) continue;
    if (bm.code !== hm.code) emit("validation-code-changed", `${label}${key}: code ${bm.code} -> ${hm.code}`, at);
    if (bm.message !== hm.message) emit("validation-message-changed", `${label}${key}: message ${json(bm.message)} -> ${json(hm.message)}`, at);
  }
  for (const key of Object.keys(h).sort()) {
    if (!b[key]) emit("validation-message-changed", `${label}${key}: now reports ${h[key]!.code} ${json(h[key]!.message)}`, at);
  }
  for (const key of Object.keys(b).sort()) {
    if (!h[key]) emit("validation-message-changed", `${label}${key}: no longer reports ${b[key]!.code} ${json(b[key]!.message)}`, at);
  }
}

export function compareProperties(
  bp: Readonly<Record<string, Field>>,
  hp: Readonly<Record<string, Field>>,
  path: string,
  ctx: SchemaContext,
  parent: { readonly base: SourcePos; readonly head: SourcePos },
  closed = false,
): void {
  const req = ctx.direction === "request";
  for (const name of Object.keys(bp)) {
    const b = bp[name]!;
    const h = hp[name];
    const p = `${path}/properties/${pointerKey(name)}`;
    if (h) {
      if (isRequired(b) !== isRequired(h)) {
        const nowRequired = isRequired(h);
        const id: CheckId = req
          ? nowRequired
            ? "request-property-became-required"
            : "request-property-became-optional"
          : nowRequired
            ? "response-property-became-required"
            : "response-property-became-optional";
        ctx.emit(id, `\`${name}\` is now ${nowRequired ? "required" : "optional"}`, where(ctx, p, b.pos, h.pos));
      }
      compareField(b, h, p, ctx);
      continue;
    }
    const at = where(ctx, p, b.pos, parent.head);
    if (req)
      ctx.emit(
        closed ? "request-property-rejected" : "request-property-removed",
        `\`${name}\` removed${closed ? " (unknown properties are rejected)" : ""}`,
        at,
      );
    else ctx.emit(b.deprecated ? "deprecated-property-removed" : "response-property-removed", `\`${name}\` removed`, at);
  }
  for (const name of Object.keys(hp)) {
    if (bp[name]) continue;
    const h = hp[name]!;
    const at = where(ctx, `${path}/properties/${pointerKey(name)}`, parent.base, h.pos);
    if (req)
      ctx.emit(
        isRequired(h) ? "request-property-required-added" : "request-property-optional-added",
        `\`${name}\` added${isRequired(h) ? " as required" : ""}`,
        at,
      );
    else ctx.emit("response-property-added", `\`${name}\` added`, at);
  }
}

function compareObject(b: Field, h: Field, path: string, ctx: SchemaContext): void {
  if (b.properties || h.properties)
    compareProperties(b.properties ?? {}, h.properties ?? {}, path, ctx, { base: b.pos, head: h.pos }, h.additionalProperties === false);
  const open = (f: Field) => f.additionalProperties !== false;
  const at = where(ctx, path, b.pos, h.pos);
  if (open(b) && !open(h) && (b.properties || h.properties))
    ctx.emit(
      ctx.direction === "request" ? "request-additional-properties-closed" : "response-constraint-tightened",
      "unknown properties are no longer accepted",
      at,
    );
  if (!open(b) && open(h))
    ctx.emit(ctx.direction === "request" ? "request-constraint-relaxed" : "response-constraint-relaxed", "unknown properties are now accepted", at);
  if (typeof b.additionalProperties === "object" && typeof h.additionalProperties === "object")
    compareField(b.additionalProperties, h.additionalProperties, `${path}/additionalProperties`, ctx);
  if (json(b.exactlyOneOf) !== json(h.exactlyOneOf))
    ctx.emit(
      ctx.direction === "request" ? "request-union-branch-removed" : "response-union-branch-added",
      `exactly one of ${list(b.exactlyOneOf ?? [])} -> ${list(h.exactlyOneOf ?? [])}`,
      at,
    );
}

const branchKey = (f: Field) => f.ref ?? json(f.const) ?? f.title ?? "";

function compareUnion(b: Field, h: Field, path: string, ctx: SchemaContext): void {
  if (!b.oneOf && !h.oneOf) return;
  const bb = b.oneOf ?? [];
  const hb = h.oneOf ?? [];
  const hk = hb.map(branchKey);
  const bk = bb.map(branchKey);
  bb.forEach((branch, i) => {
    const j = hk.indexOf(bk[i]!);
    if (j < 0)
      ctx.emit(
        pick(ctx, "request-union-branch-removed", "response-union-branch-removed"),
        `branch ${bk[i]} removed`,
        where(ctx, `${path}/oneOf/${i}`, branch.pos, h.pos),
      );
    else compareField(branch, hb[j]!, `${path}/oneOf/${j}`, ctx);
  });
  hb.forEach((branch, j) => {
    if (!bk.includes(hk[j]!))
      ctx.emit(
        pick(ctx, "request-union-branch-added", "response-union-branch-added"),
        `branch ${hk[j]} added`,
        where(ctx, `${path}/oneOf/${j}`, b.pos, branch.pos),
      );
  });
  if (b.discriminator !== h.discriminator)
    ctx.emit(
      pick(ctx, "request-union-branch-removed", "response-union-branch-added"),
      `discriminator ${b.discriminator ?? "none"} -> ${h.discriminator ?? "none"}`,
      where(ctx, path, b.pos, h.pos),
    );
}

/** A ref to the same shape: that shape is compared on its own. A ref elsewhere: compare the two targets here. */
function compareRef(b: Field, h: Field, path: string, ctx: SchemaContext): void {
  if (b.ref === h.ref) return;
  const bs = b.ref ? ctx.base.shapes[b.ref] : undefined;
  const hs = h.ref ? ctx.head.shapes[h.ref] : undefined;
  if (!bs || !hs) return;
  const key = `${ctx.direction}:${b.ref}->${h.ref}`;
  if (ctx.seen.has(key)) return;
  ctx.seen.add(key);
  compareField(bs, hs, path, ctx);
}

function compareWhen(b: Field, h: Field, path: string, ctx: SchemaContext): void {
  const key = (c: Field["when"][number]) => `${c.field}=${c.values.join("|")}`;
  const hk = h.when.map(key);
  b.when.forEach((c) => {
    const j = hk.indexOf(key(c));
    if (j >= 0) compareProperties(c.properties, h.when[j]!.properties, `${path}/allOf/${j}/then`, ctx, { base: b.pos, head: h.pos });
    else
      ctx.emit(
        ctx.direction === "request" ? "request-constraint-relaxed" : "response-constraint-relaxed",
        `the conditional rules when ${key(c)} were removed`,
        where(ctx, path, b.pos, h.pos),
      );
  });
  h.when.forEach((c) => {
    if (!b.when.some((x) => key(x) === key(c)))
      ctx.emit(
        ctx.direction === "request" ? "request-conditional-rule-added" : "response-constraint-tightened",
        `new conditional rules when ${key(c)}`,
        where(ctx, path, b.pos, h.pos),
      );
  });
}
