// What a schema location of an Ajv error needs, worked out once per location and kept (the locations are
// bounded by the schemas): whether it is noise, the unions it lies in, its fixed code and message.
import { applicators, toIssue } from "./to-issue.js";
import type { AjvError, ErrorTable, MessageTemplates, ValidationIssue } from "./types.js";

type Path = (string | number)[];

/** A schema location's answer once computed: what the document path is followed by, code and message. */
export interface Answer {
  readonly code: string;
  readonly message: string;
  readonly suffix: readonly (string | number)[];
}

export interface Site {
  readonly keyword: string;
  /** Never reported: `if` wrappers, errors inside contains / not / if, the null branch of a nullable. */
  readonly noise: boolean;
  /** The oneOf/anyOf locations this one lies inside (errors inside a failed union are dropped). */
  readonly unionPrefixes: readonly string[];
  readonly isUnion: boolean;
  readonly hasOverride: boolean;
  /** Fixed keywords: one answer. */
  fixed: Answer | undefined;
  /** `required` by missing key, `type` by received type. */
  readonly byParam: Map<string, Answer>;
  /** quick-map.ts: the frozen issue of a fixed answer at each plain document path met (by its pointer). */
  issues: Map<object, ValidationIssue> | undefined;
}

export const FIXED = new Set([
  "enum",
  "const",
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "discriminator",
  "contains",
  "oneOf",
  "anyOf",
  "not",
]);
const isUnion = (e: AjvError) => e.keyword === "oneOf" || e.keyword === "anyOf";
const NULL_BRANCH = /\/(?:oneOf|anyOf)\/\d+\/type$/;
const sitesByTable = new WeakMap<ErrorTable, WeakMap<MessageTemplates, Map<string, Site>>>();

export function sitesOf(table: ErrorTable, messages: MessageTemplates): Map<string, Site> {
  let byMessages = sitesByTable.get(table);
  if (byMessages === undefined) sitesByTable.set(table, (byMessages = new WeakMap()));
  let sites = byMessages.get(messages);
  if (sites === undefined) byMessages.set(messages, (sites = new Map()));
  return sites;
}

export function newSite(e: AjvError, table: ErrorTable): Site {
  const found = applicators(e.schemaPath);
  let noise = e.keyword === "if" || (e.keyword === "type" && e.params.type === "null" && NULL_BRANCH.test(e.schemaPath));
  const unionPrefixes: string[] = [];
  for (const a of found) {
    if (a.keyword !== "oneOf" && a.keyword !== "anyOf") noise = true;
    else unionPrefixes.push(a.prefix);
  }
  return {
    keyword: e.keyword,
    noise,
    unionPrefixes,
    isUnion: isUnion(e),
    hasOverride: table[e.schemaPath]?.override !== undefined,
    fixed: undefined,
    byParam: new Map(),
    issues: undefined,
  };
}

/** The code and message of an error at a location, and what follows the document path in its issue. */
export function answer(e: AjvError, data: unknown, path: Path, table: ErrorTable, messages: MessageTemplates): Answer {
  const issue = toIssue(e, data, table, messages);
  const suffix = issue.path.slice(path.length);
  return { code: issue.code, message: issue.message, suffix };
}
