// `verispec diff <base> [<head>]`: what changed between two versions of the spec, who it breaks.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { processIo } from "../../context.js";
import { UsageError } from "../../diagnostics.js";
import { CHECKS } from "../../diff/catalog.js";
import { diffSides } from "../../diff/diff.js";
import { CONFIG_FILE, exitCodeFor, readOverrides, type FailOn } from "../../diff/policy.js";
import { toJson, toMarkdown, toText } from "../../diff/report.js";
import { loadSide, sideFromDir } from "../../diff/sides.js";
import type { CommandCall } from "../command-call.js";
import { DIFF_USAGE } from "../usage.js";
import { requireSpecDir } from "./spec-dir.js";

const FORMATS = ["text", "json", "markdown"] as const;
type Format = (typeof FORMATS)[number];

function parse(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: "string" },
        "fail-on": { type: "string" },
        config: { type: "string" },
        spec: { type: "string" },
        checks: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${DIFF_USAGE}`);
  }
}

/** Colours only on a terminal, and never with NO_COLOR set; FORCE_COLOR forces them. */
function useColor(call: CommandCall): boolean {
  if (call.io.env.NO_COLOR) return false;
  if (call.io.env.FORCE_COLOR && call.io.env.FORCE_COLOR !== "0") return true;
  return call.io.stdout === processIo.stdout && process.stdout.isTTY === true;
}

export function diff(call: CommandCall): Promise<number> {
  const { io } = call;
  const { values, positionals } = parse(call.args);
  if (values.help) {
    io.stdout(`${DIFF_USAGE}\n`);
    return Promise.resolve(0);
  }
  if (values.checks) {
    const rows = Object.entries(CHECKS).map(([id, c]) => `${id.padEnd(40)}${c.severity.padEnd(10)}${c.audience.padEnd(11)}${c.summary}`);
    io.stdout(`${rows.join("\n")}\n`);
    return Promise.resolve(0);
  }
  if (positionals.length < 1 || positionals.length > 2)
    throw new UsageError(`diff takes a base and an optional head (a spec directory or a git revision)\n\n${DIFF_USAGE}`);
  const format = (values.format ?? "text") as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be text, json or markdown, not ${JSON.stringify(values.format)}`);
  const failOn = (values["fail-on"] ?? "breaking") as FailOn;
  if (failOn !== "breaking" && failOn !== "warning") throw new UsageError(`--fail-on must be breaking or warning, not ${JSON.stringify(values["fail-on"])}`);
  const overrides = readOverrides(resolve(io.cwd, values.config ?? CONFIG_FILE), values.config !== undefined);

  const specDir = values.spec !== undefined ? resolve(io.cwd, values.spec) : call.dirs.spec;
  const base = loadSide(positionals[0]!, io.cwd, specDir);
  const head =
    positionals[1] !== undefined ? loadSide(positionals[1], io.cwd, specDir) : sideFromDir(requireSpecDir({ ...call.dirs, spec: specDir }), "working tree");
  const result = diffSides(base, head, overrides);
  io.stdout(format === "json" ? toJson(result) : format === "markdown" ? toMarkdown(result) : toText(result, useColor(call)));
  return Promise.resolve(exitCodeFor(result.findings, failOn));
}
