// The judgements conform makes of one answer, shared by the run (run.ts) and the proxy (proxy.ts): JSON by
// its Content-Type, a v5 envelope's statusCode equal to the HTTP status, an older error body that is JSON,
// the body against its schema, and the presence of its fields (the schema's `required`: a failed check;
// its `x-presence-not-shown`: a warning).
import type { Endpoint } from "../model/types.js";
import type { CheckResult } from "./report.js";
import type { Runtime } from "./runtime.js";

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
export const brief = (v: unknown, max = 300) => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined ? "nothing" : s.length > max ? `${s.slice(0, max)}…` : s;
};

/** What of an answer is judged: never its headers but the Content-Type. */
export interface Judged {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
  readonly json: unknown;
}

const result = (id: string, operation: string, ok: boolean, expected: string, got: string): CheckResult =>
  ok ? { id, operation, outcome: "held", expected } : { id, operation, outcome: "failed", expected, got };

/** Whether a Content-Type is `mediaType` (endpoints.yaml bodies), parameters aside. */
export const isMediaType = (contentType: string | undefined, mediaType: string) => contentType?.split(";")[0]?.trim().toLowerCase() === mediaType;

/** The checks every answer of a spec operation gets, whatever its status. */
export function answerChecks(e: Endpoint, mediaType: string, id: string, a: Judged): CheckResult[] {
  const out = [
    result(
      `${id}#content-type`,
      e.operationId,
      isMediaType(a.contentType, mediaType),
      `Content-Type ${mediaType} (the service's specification, section 4: all bodies are JSON)`,
      a.contentType === undefined ? "no Content-Type" : `Content-Type ${a.contentType}`,
    ),
  ];
  if (e.auth === "basic" && isObj(a.json) && "statusCode" in a.json) {
    out.push(
      result(
        `${id}#status-code`,
        e.operationId,
        a.json["statusCode"] === a.status,
        `the envelope's statusCode equal to the HTTP status (${a.status})`,
        `statusCode ${brief(a.json["statusCode"])} in an HTTP ${a.status} answer`,
      ),
    );
  }
  if (e.auth === "body" && (a.status < 200 || a.status > 299)) {
    out.push(
      result(
        `${id}#error-json`,
        e.operationId,
        a.json !== undefined,
        "a JSON error body (the service's specification, sections 4.1 and 7)",
        `HTTP ${a.status}: ${brief(a.text, 120)}`,
      ),
    );
  }
  return out;
}

export function schemaResult(rt: Runtime, id: string, operation: string, schema: string, body: unknown): CheckResult {
  const r = rt.validate(schema, body);
  return result(
    id,
    operation,
    r.valid,
    `a body valid against ${schema}`,
    r.valid
      ? ""
      : r.errors
          .slice(0, 3)
          .map((e) => `${e.path.join(".") || "(root)"}: ${e.message}`)
          .join("; "),
  );
}

/** A JSON Schema as far as presence reads it (other keywords are ignored). */
export interface SchemaNode {
  readonly [keyword: string]: unknown;
  readonly $ref?: string;
  readonly allOf?: readonly SchemaNode[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly required?: readonly string[];
  readonly "x-presence-not-shown"?: readonly string[];
  readonly $defs?: Readonly<Record<string, SchemaNode>>;
}

/** A node and what it is also, through `$ref` (beside its own keywords, as 2020-12 reads it) and `allOf`; a oneOf's branch is not guessed. */
function facets(root: SchemaNode, n: SchemaNode, depth = 0): SchemaNode[] {
  if (depth > 16) return [n];
  const m = n.$ref === undefined ? null : /^#\/\$defs\/(.+)$/.exec(n.$ref);
  const target = m ? root.$defs?.[m[1]!] : undefined;
  return [n, ...(target ? facets(root, target, depth + 1) : []), ...(n.allOf ?? []).flatMap((x) => facets(root, x, depth + 1))];
}

/** Of a body, the fields its schema says are always there and are not (`missing`), and those listed without a promise that are not (`unsure`), by path. */
export function absentFields(root: SchemaNode, body: unknown): { missing: string[]; unsure: string[] } {
  const missing = new Set<string>();
  const unsure = new Set<string>();
  const walk = (node: SchemaNode, value: unknown, at: string, depth: number) => {
    if (depth > 32) return;
    const all = facets(root, node);
    if (Array.isArray(value)) {
      for (const f of all) if (f.items) value.forEach((v, i) => walk(f.items!, v, `${at}[${i}]`, depth + 1));
      return;
    }
    if (!isObj(value)) return;
    const name = (k: string) => (at ? `${at}.${k}` : k);
    for (const f of all) {
      for (const k of f.required ?? []) if (!(k in value)) missing.add(name(k));
      for (const k of f["x-presence-not-shown"] ?? []) if (!(k in value)) unsure.add(name(k));
      for (const [k, p] of Object.entries(f.properties ?? {})) if (k in value) walk(p, value[k], name(k), depth + 1);
    }
  };
  walk(root, body, "", 0);
  return { missing: [...missing], unsure: [...unsure] };
}

/** Presence checks of a body against its schema: a failed check for an absent always-present field, a warning for an absent one whose presence is not shown. */
export function presenceChecks(schemaOf: (id: string) => unknown, id: string, operation: string, schemaId: string, body: unknown): CheckResult[] {
  const schema = schemaOf(schemaId) as SchemaNode | undefined;
  if (!schema || !isObj(body)) return [];
  const { missing, unsure } = absentFields(schema, body);
  const out = [
    result(`${id}#presence`, operation, missing.length === 0, `every field ${schemaId} always carries`, `missing: ${missing.slice(0, 10).join(", ")}`),
  ];
  if (unsure.length)
    out.push({
      id: `${id}#presence-not-shown`,
      operation,
      outcome: "warned",
      expected: `the fields ${schemaId} lists (their presence is not shown in the service's specification)`,
      got: `absent: ${unsure.slice(0, 10).join(", ")}`,
    });
  return out;
}
