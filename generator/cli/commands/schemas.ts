// `verispec schemas`: the published schema ids, one a line. Read from the generated manifest
// (./generated, --out, or the package's own), so that listing ten names does not build the model; with
// --spec, built from that spec.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../package-root.js";
import type { CommandCall } from "../command-call.js";
import { requireSpecDir } from "./spec-dir.js";

const MANIFEST = "manifest.json"; // emit/json-schemas.ts writes it; not imported, to keep this command light

export async function schemas({ dirs, io, values }: CommandCall): Promise<number> {
  let ids: readonly string[];
  if (values.spec !== undefined) {
    const [{ modelFromSpec }, { jsonSchemaDefinitions }] = await Promise.all([import("../../pipeline.js"), import("../../emit/schema-builder.js")]);
    ids = jsonSchemaDefinitions(modelFromSpec(requireSpecDir(dirs)))
      .filter((d) => d.published)
      .map((d) => d.id);
  } else {
    const local = join(dirs.out, MANIFEST);
    const manifest = dirs.outGiven || existsSync(local) ? local : join(PACKAGE_ROOT, "generated", MANIFEST);
    if (!existsSync(manifest)) {
      io.stderr(`verispec: no ${manifest}; run 'npx verispec generate' (or pass --spec)\n`);
      return 2;
    }
    ids = (JSON.parse(readFileSync(manifest, "utf8")) as { schemaIds: string[] }).schemaIds;
  }
  io.stdout(`${ids.join("\n")}\n`);
  return 0;
}
