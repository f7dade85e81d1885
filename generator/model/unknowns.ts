// Model: every "not shown" of the service's specification (each `unknown:` of every spec file).
import { positionOf, type LoadedSpec } from "../load/load-spec.js";
import type { Raw } from "../load/spec-access.js";
import type { PathSegment } from "../pointer.js";
import type { Unknown } from "./types.js";

/** Every `unknown:` of every file, with the nearest `source:` section above it. */
export function collectUnknowns(spec: LoadedSpec): Unknown[] {
  const out: Unknown[] = [];
  for (const file of spec.files) {
    const walk = (v: unknown, path: PathSegment[], source: string | undefined) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i], source));
      else if (v && typeof v === "object") {
        const o = v as Raw;
        // `source` is also an ordinary field name (the /idform answer's), so only a section number counts.
        const here = typeof o.source === "string" && /^[0-9]+(\.[0-9]+)?$/.test(o.source) ? o.source : source;
        if (typeof o.unknown === "string") out.push({ source: here ?? "", text: o.unknown, pos: positionOf(file, [...path, "unknown"]) });
        for (const [k, x] of Object.entries(o)) if (k !== "unknown") walk(x, [...path, k], here);
      }
    };
    walk(file.data, [], undefined);
  }
  return out;
}
