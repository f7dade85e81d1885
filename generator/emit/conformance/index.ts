// Emits generated/conformance/: language-neutral vectors of what the service answers (requests), how a
// webhook is verified (webhooks) and what an event does to a verification (lifecycle), each file with the
// JSON Schema of its own format. Pure: the same spec gives the same bytes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { EmitContext } from "../../context.js";
import type { Model } from "../../model/types.js";
import { BANNER, jsonText, type OutputFile } from "../output.js";
import { FORMAT_VERSION, LIFECYCLE_FORMAT, REQUESTS_FORMAT, WEBHOOKS_FORMAT } from "./formats.js";
import { lifecycleCases } from "./lifecycle.js";
import { requestCases } from "./requests.js";
import { webhookCases } from "./webhooks.js";

export const CONFORMANCE_DIR = "conformance";

function file(name: string, description: string, body: Record<string, unknown>, model: Model): OutputFile {
  const value = {
    $schema: `./${name}.schema.json`,
    $comment: BANNER,
    format: `verispec-conformance-${name}`,
    formatVersion: FORMAT_VERSION,
    specVersion: model.versions.specVersion ?? "0.0.0",
    description,
    ...body,
  };
  return { path: `${CONFORMANCE_DIR}/${name}.json`, contents: linesText(value) };
}

/** JSON with one array item a line: each case (and each sequence) is one line, so a diff shows which changed. */
function linesText(value: Record<string, unknown>): string {
  const entries = Object.entries(value).map(([k, v]) => {
    const text = Array.isArray(v) ? (v.length ? `[\n${v.map((x) => `    ${JSON.stringify(x)}`).join(",\n")}\n  ]` : "[]") : JSON.stringify(v);
    return `  ${JSON.stringify(k)}: ${text}`;
  });
  return `{\n${entries.join(",\n")}\n}\n`;
}

const schemaFile = (name: string, schema: Record<string, unknown>): OutputFile => ({
  path: `${CONFORMANCE_DIR}/${name}.schema.json`,
  contents: jsonText({ ...schema, $comment: BANNER }),
});

/**
 * The Python runner of the vectors (standard library, plus jsonschema where installed), beside them, so
 * the package and every project's own output carry it: `python3 generated/conformance/run_conformance.py`.
 */
export const PYTHON_RUNNER = "run_conformance.py";
const pythonRunner = (root: string): OutputFile => ({
  path: `${CONFORMANCE_DIR}/${PYTHON_RUNNER}`,
  contents: readFileSync(join(root, "templates", PYTHON_RUNNER), "utf8").replace(/^(#![^\n]*\n)/, `$1# ${BANNER}\n`),
});

export function emitConformance(model: Model, ctx: EmitContext): OutputFile[] {
  const webhooks = webhookCases(model);
  return [
    pythonRunner(ctx.root),
    file(
      "requests",
      "Request bodies of every operation, built from the spec's rules, with the verdict and the exact issues of the service's 422 answer (docs/conformance.md).",
      { cases: requestCases(model) },
      model,
    ),
    file(
      "webhooks",
      "Webhook signature vectors of signature versions 1 and 2 (docs/conformance.md).",
      { toleranceMs: webhooks.toleranceMs, cases: webhooks.cases, sequences: webhooks.sequences },
      model,
    ),
    file(
      "lifecycle",
      "The verification life cycle: what each event does, from the transition table (docs/conformance.md).",
      { cases: lifecycleCases(model) },
      model,
    ),
    schemaFile("requests", REQUESTS_FORMAT),
    schemaFile("webhooks", WEBHOOKS_FORMAT),
    schemaFile("lifecycle", LIFECYCLE_FORMAT),
  ];
}
