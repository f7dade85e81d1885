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

function typeSet(field: Field): JsonType[] | undefined {
  if (field.type === undefined) return undefined;
  return Array.isArray(field.type) ? [...(field.type as JsonType[])] : [field.type as JsonType];
}

/** The closed list of values a field takes, or undefined when any value of its type goes. */
function valuesOf(field: Field): readonly unknown[] | undefined {
  return field.enum ?? field.values?.values;
}

const isCountryList = (f: Field) => f.values !== undefined && (f.values.name === "iso3" || f.values.countryGroup === true);

function isRequired(field: Field): boolean {
  return field.required === "yes";
}

const minLengthOf = (f: Field) => f.rule?.minLength;
const maxLengthOf = (f: Field) => f.rule?.maxLength;
const patternOf = (f: Field) => f.rule?.pattern;
/** The format a schema states: the field's own, else its rule's. */
const formatOf = (f: Field) => f.format ?? f.rule?.format;

export function compareField(base: Field, head: Field, path: string, ctx: SchemaContext): void {
  const at = where(ctx, path, base.pos, head.pos);
  const req = ctx.direction === "request";

  // Types and null.
  const baseTypes = typeSet(base);
  const headTypes = typeSet(head);
  if (baseTypes && headTypes) {
    const lost = baseTypes.filter((t) => !headTypes.includes(t));
    const gained = headTypes.filter((t) => !baseTypes.includes(t));
    if (lost.length > 0)
      ctx.emit(pick(ctx, "request-type-narrowed", "response-constraint-tightened"), `no longer ${req ? "accepts" : "carries"} ${lost.join(", ")}`, at);
    if (gained.length > 0) ctx.emit(pick(ctx, "request-constraint-relaxed", "response-type-widened"), `may now be ${gained.join(", ")}`, at);
  }
  if (base.nullable && !head.nullable) ctx.emit(pick(ctx, "request-type-narrowed", "response-constraint-tightened"), "no longer nullable", at);
  if (!base.nullable && head.nullable) ctx.emit(pick(ctx, "request-constraint-relaxed", "response-type-widened"), "may now be null", at);

  // Fixed values and closed lists.
  if (base.const !== undefined || head.const !== undefined) {
    if (json(base.const) !== json(head.const))
      ctx.emit(
        pick(ctx, "request-const-changed", "response-const-changed"),
        `fixed value ${base.const === undefined ? "none" : json(base.const)} -> ${head.const === undefined ? "none" : json(head.const)}`,
        at,
      );
  }
  compareValues(base, head, at, ctx);

  // String and number constraints.
  compareConstraints(base, head, at, ctx);

  // Deprecation (a property deprecated now: integrators should plan to move off it).
  if (!base.deprecated && head.deprecated) ctx.emit("deprecation-added", `${path || ctx.schema} is now deprecated`, at);
  if (base.deprecated && !head.deprecated) ctx.emit("deprecation-removed", `${path || ctx.schema} is no longer deprecated`, at);

  // Its own messages (integrators match on them).
  compareMessages(base.messages, head.messages, at, ctx.emit);

  // Structure.
  compareObject(base, head, path, ctx);
  if (base.items && head.items) compareField(base.items, head.items, `${path}/items`, ctx);
  compareUnion(base, head, path, ctx);
  compareRef(base, head, path, ctx);
  compareWhen(base, head, path, ctx);
}

function compareValues(base: Field, head: Field, at: Location, ctx: SchemaContext): void {
  const baseValues = valuesOf(base);
  const headValues = valuesOf(head);
  if (!baseValues && !headValues) return;
  const country = isCountryList(base) || isCountryList(head);
  const narrowed: CheckId = ctx.direction === "request" ? (country ? "request-country-removed" : "request-enum-value-removed") : "response-enum-value-removed";
  const widened: CheckId = ctx.direction === "request" ? (country ? "request-country-added" : "request-enum-value-added") : "response-enum-value-added";
  const set = head.values ?? base.values;
  const defined = set && ctx.definedAt?.(set);
  const what = `${country ? "countries" : "values"}${set ? ` of ${set.name}${defined ? ` (${defined})` : ""}` : ""}`;
  if (baseValues && !headValues) return ctx.emit(widened, `no longer limited to a list of ${what}`, at);
  if (!baseValues && headValues)
    return ctx.emit(narrowed, `now limited to ${headValues.length} ${what}: ${list(headValues.slice(0, 20))}${headValues.length > 20 ? ", ..." : ""}`, at);
  const headValueKeys = new Set(headValues!.map(json));
  const baseValueKeys = new Set(baseValues!.map(json));
  const lost = baseValues!.filter((v) => !headValueKeys.has(json(v)));
  const gained = headValues!.filter((v) => !baseValueKeys.has(json(v)));
  if (lost.length > 0) ctx.emit(narrowed, `${what} removed: ${list(lost)}`, at);
  if (gained.length > 0) ctx.emit(widened, `${what} added: ${list(gained)}`, at);
}

/** What a tightened request rule does to the values it newly refuses: "values of 100-199 characters now get 422 too_big". */
function nowRefused(head: Field, keyword: string, values: string): string {
  const message = head.rule?.messages[keyword];
  // The 422 and its code only where the rule names the service's message; otherwise only that they are refused.
  return message ? `${values} now get 422 ${message.code} ("${message.message}")` : `${values} are now refused`;
}

function compareConstraints(base: Field, head: Field, at: Location, ctx: SchemaContext): void {
  const req = ctx.direction === "request";
  const tight: CheckId = req ? "request-length-tightened" : "response-constraint-tightened";
  const loose: CheckId = req ? "request-constraint-relaxed" : "response-constraint-relaxed";
  const [bmin, hmin] = [minLengthOf(base) ?? 0, minLengthOf(head) ?? 0];
  if (hmin > bmin)
    ctx.emit(
      tight,
      `minLength ${bmin} -> ${hmin}${req ? `: ${nowRefused(head, "minLength", hmin - 1 > bmin ? `values of ${bmin}-${hmin - 1} characters` : `values of ${bmin} ${bmin === 1 ? "character" : "characters"}`)}` : ""}`,
      at,
    );
  if (hmin < bmin) ctx.emit(loose, `minLength ${bmin} -> ${hmin}`, at);
  const [bmax, hmax] = [maxLengthOf(base) ?? Infinity, maxLengthOf(head) ?? Infinity];
  const bound = (v: number) => (v === Infinity ? "none" : String(v));
  if (hmax < bmax)
    ctx.emit(
      tight,
      `maxLength ${bound(bmax)} -> ${bound(hmax)}${req ? `: ${nowRefused(head, "maxLength", `values of ${hmax + 1}${bmax === Infinity ? " or more" : `-${bmax}`} characters`)}` : ""}`,
      at,
    );
  if (hmax > bmax) ctx.emit(loose, `maxLength ${bound(bmax)} -> ${bound(hmax)}`, at);
  comparePatterns(base, head, at, ctx);
  const [baseFormat, headFormat] = [formatOf(base), formatOf(head)];
  if (baseFormat !== headFormat) {
    // Another format is neither narrower nor wider: it rejects (request) or may carry (response) other values.
    if (headFormat === undefined) ctx.emit(loose, `format ${baseFormat} removed`, at);
    else if (req) ctx.emit("request-format-added", `format ${baseFormat ?? "none"} -> ${headFormat}`, at);
    else
      ctx.emit(
        baseFormat === undefined ? "response-constraint-tightened" : "response-constraint-relaxed",
        `format ${baseFormat ?? "none"} -> ${headFormat}`,
        at,
      );
  }
  const [baseMinimum, headMinimum] = [base.minimum ?? -Infinity, head.minimum ?? -Infinity];
  if (headMinimum > baseMinimum)
    ctx.emit(req ? "request-minimum-raised" : "response-constraint-tightened", `minimum ${base.minimum ?? "none"} -> ${head.minimum}`, at);
  if (headMinimum < baseMinimum) ctx.emit(loose, `minimum ${base.minimum} -> ${head.minimum ?? "none"}`, at);
}

/** Messages by keyword or id: a code change is breaking for whoever matches on it, a text change a warning. */
/**
 * Patterns, old and new shown. A request pattern that changed is breaking unless the new one provably
 * accepts every value the old one did (pattern-subset.ts); a response pattern that changed is a warning
 * unless the new one provably carries no value the old one could not.
 */
function comparePatterns(base: Field, head: Field, at: Location, ctx: SchemaContext): void {
  const [basePattern, headPattern] = [patternOf(base), patternOf(head)];
  if (basePattern === headPattern) return;
  const req = ctx.direction === "request";
  const rule = (f: Field) => ` (rule ${f.rule!.name})`;
  if (basePattern === undefined)
    return ctx.emit(req ? "request-pattern-added" : "response-constraint-tightened", `pattern added: ${json(headPattern)}${rule(head)}`, at);
  if (headPattern === undefined)
    return ctx.emit(req ? "request-constraint-relaxed" : "response-constraint-relaxed", `pattern removed: was ${json(basePattern)}${rule(base)}`, at);
  const rules = base.rule!.name === head.rule!.name ? rule(head) : ` (rule ${base.rule!.name} -> ${head.rule!.name})`;
  const change = `${json(basePattern)} -> ${json(headPattern)}${rules}`;
  if (req) {
    if (acceptsAll(headPattern, basePattern)) ctx.emit("request-constraint-relaxed", `pattern widened: ${change}`, at);
    else ctx.emit("request-pattern-changed", `pattern changed, not provably accepting every value it accepted: ${change}`, at);
  } else if (acceptsAll(basePattern, headPattern)) ctx.emit("response-constraint-tightened", `pattern narrowed: ${change}`, at);
  else ctx.emit("response-constraint-relaxed", `pattern changed, may carry values it could not: ${change}`, at);
}

export function compareMessages(
  base: Readonly<Record<string, { readonly code: string; readonly message: string }>>,
  head: Readonly<Record<string, { readonly code: string; readonly message: string }>>,
  at: Location,
  emit: Emit,
  label = "",
): void {
  for (const key of Object.keys(base).sort()) {
    const [baseMessage, headMessage] = [base[key]!, head[key]];
    if (!headMessage) continue;
    if (baseMessage.code !== headMessage.code) emit("validation-code-changed", `${label}${key}: code ${baseMessage.code} -> ${headMessage.code}`, at);
    if (baseMessage.message !== headMessage.message)
      emit("validation-message-changed", `${label}${key}: message ${json(baseMessage.message)} -> ${json(headMessage.message)}`, at);
  }
  for (const key of Object.keys(head).sort()) {
    if (!base[key]) emit("validation-message-changed", `${label}${key}: now reports ${head[key]!.code} ${json(head[key]!.message)}`, at);
  }
  for (const key of Object.keys(base).sort()) {
    if (!head[key]) emit("validation-message-changed", `${label}${key}: no longer reports ${base[key]!.code} ${json(base[key]!.message)}`, at);
  }
}

export function compareProperties(
  baseProperties: Readonly<Record<string, Field>>,
  headProperties: Readonly<Record<string, Field>>,
  path: string,
  ctx: SchemaContext,
  parent: { readonly base: SourcePos; readonly head: SourcePos },
  closed = false,
): void {
  const req = ctx.direction === "request";
  for (const name of Object.keys(baseProperties)) {
    const base = baseProperties[name]!;
    const head = headProperties[name];
    const propertyPath = `${path}/properties/${pointerKey(name)}`;
    if (head) {
      if (isRequired(base) !== isRequired(head)) {
        const nowRequired = isRequired(head);
        const id: CheckId = req
          ? nowRequired
            ? "request-property-became-required"
            : "request-property-became-optional"
          : nowRequired
            ? "response-property-became-required"
            : "response-property-became-optional";
        ctx.emit(id, `\`${name}\` is now ${nowRequired ? "required" : "optional"}`, where(ctx, propertyPath, base.pos, head.pos));
      }
      compareField(base, head, propertyPath, ctx);
      continue;
    }
    const at = where(ctx, propertyPath, base.pos, parent.head);
    if (req)
      ctx.emit(
        closed ? "request-property-rejected" : "request-property-removed",
        `\`${name}\` removed${closed ? " (unknown properties are rejected)" : ""}`,
        at,
      );
    else ctx.emit(base.deprecated ? "deprecated-property-removed" : "response-property-removed", `\`${name}\` removed`, at);
  }
  for (const name of Object.keys(headProperties)) {
    if (baseProperties[name]) continue;
    const head = headProperties[name]!;
    const at = where(ctx, `${path}/properties/${pointerKey(name)}`, parent.base, head.pos);
    if (req)
      ctx.emit(
        isRequired(head) ? "request-property-required-added" : "request-property-optional-added",
        `\`${name}\` added${isRequired(head) ? " as required" : ""}`,
        at,
      );
    else ctx.emit("response-property-added", `\`${name}\` added`, at);
  }
}

function compareObject(base: Field, head: Field, path: string, ctx: SchemaContext): void {
  if (base.properties || head.properties)
    compareProperties(base.properties ?? {}, head.properties ?? {}, path, ctx, { base: base.pos, head: head.pos }, head.additionalProperties === false);
  const open = (f: Field) => f.additionalProperties !== false;
  const at = where(ctx, path, base.pos, head.pos);
  if (open(base) && !open(head) && (base.properties || head.properties))
    ctx.emit(
      ctx.direction === "request" ? "request-additional-properties-closed" : "response-constraint-tightened",
      "unknown properties are no longer accepted",
      at,
    );
  if (!open(base) && open(head))
    ctx.emit(ctx.direction === "request" ? "request-constraint-relaxed" : "response-constraint-relaxed", "unknown properties are now accepted", at);
  if (typeof base.additionalProperties === "object" && typeof head.additionalProperties === "object")
    compareField(base.additionalProperties, head.additionalProperties, `${path}/additionalProperties`, ctx);
  if (json(base.exactlyOneOf) !== json(head.exactlyOneOf))
    ctx.emit(
      ctx.direction === "request" ? "request-union-branch-removed" : "response-union-branch-added",
      `exactly one of ${list(base.exactlyOneOf ?? [])} -> ${list(head.exactlyOneOf ?? [])}`,
      at,
    );
}

const branchKey = (f: Field) => f.ref ?? json(f.const) ?? f.title ?? "";

function compareUnion(base: Field, head: Field, path: string, ctx: SchemaContext): void {
  if (!base.oneOf && !head.oneOf) return;
  const baseBranches = base.oneOf ?? [];
  const headBranches = head.oneOf ?? [];
  const headKeys = headBranches.map(branchKey);
  const baseKeys = baseBranches.map(branchKey);
  baseBranches.forEach((branch, baseIndex) => {
    const headIndex = headKeys.indexOf(baseKeys[baseIndex]!);
    if (headIndex < 0)
      ctx.emit(
        pick(ctx, "request-union-branch-removed", "response-union-branch-removed"),
        `branch ${baseKeys[baseIndex]} removed`,
        where(ctx, `${path}/oneOf/${baseIndex}`, branch.pos, head.pos),
      );
    else compareField(branch, headBranches[headIndex]!, `${path}/oneOf/${headIndex}`, ctx);
  });
  headBranches.forEach((branch, headIndex) => {
    if (!baseKeys.includes(headKeys[headIndex]!))
      ctx.emit(
        pick(ctx, "request-union-branch-added", "response-union-branch-added"),
        `branch ${headKeys[headIndex]} added`,
        where(ctx, `${path}/oneOf/${headIndex}`, base.pos, branch.pos),
      );
  });
  if (base.discriminator !== head.discriminator)
    ctx.emit(
      pick(ctx, "request-union-branch-removed", "response-union-branch-added"),
      `discriminator ${base.discriminator ?? "none"} -> ${head.discriminator ?? "none"}`,
      where(ctx, path, base.pos, head.pos),
    );
}

/** A ref to the same shape: that shape is compared on its own. A ref elsewhere: compare the two targets here. */
function compareRef(base: Field, head: Field, path: string, ctx: SchemaContext): void {
  if (base.ref === head.ref) return;
  const baseShape = base.ref ? ctx.base.shapes[base.ref] : undefined;
  const headShape = head.ref ? ctx.head.shapes[head.ref] : undefined;
  if (!baseShape || !headShape) return;
  const key = `${ctx.direction}:${base.ref}->${head.ref}`;
  if (ctx.seen.has(key)) return;
  ctx.seen.add(key);
  compareField(baseShape, headShape, path, ctx);
}

function compareWhen(base: Field, head: Field, path: string, ctx: SchemaContext): void {
  const key = (c: Field["when"][number]) => `${c.field}=${c.values.join("|")}`;
  const headKeys = head.when.map(key);
  base.when.forEach((condition) => {
    const headIndex = headKeys.indexOf(key(condition));
    if (headIndex >= 0)
      compareProperties(condition.properties, head.when[headIndex]!.properties, `${path}/allOf/${headIndex}/then`, ctx, { base: base.pos, head: head.pos });
    else
      ctx.emit(
        ctx.direction === "request" ? "request-constraint-relaxed" : "response-constraint-relaxed",
        `the conditional rules when ${key(condition)} were removed`,
        where(ctx, path, base.pos, head.pos),
      );
  });
  head.when.forEach((condition) => {
    if (!base.when.some((x) => key(x) === key(condition)))
      ctx.emit(
        ctx.direction === "request" ? "request-conditional-rule-added" : "response-constraint-tightened",
        `new conditional rules when ${key(condition)}`,
        where(ctx, path, base.pos, head.pos),
      );
  });
}
