// The document path of an Ajv error (as resolvePath gives it), from its instancePath read once and kept:
// the one scan left per error on the hot path of map-errors.ts.
import type { AjvError } from "./types.js";

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

/** An instancePath read once: its segments (unescaped) and whether any could be an array index. */
export interface Pointer {
  readonly segments: readonly string[];
  readonly indices: readonly number[];
  /** No segment reads as a number: the path is the segments, whatever the document holds. */
  readonly plain: boolean;
}

// Bounded: instancePaths depend on the document (indices, unknown keys), so the cache starts over when full.
const POINTERS_MAX = 4096;
const pointers = new Map<string, Pointer>();

const pointersByBase = new Map<string, Map<string, Pointer>>();

/** The pointer of an error, by its instancePath's two parts where the generated code gives them. */
/** The base looked up last, and its map: the errors of one call of a compiled function share their base. */
let lastBase: string | undefined;
let lastByAt: Map<string, Pointer> | undefined;

export function pointerOfError(e: AjvError): Pointer {
  const { base, at } = e;
  if (base === undefined || at === undefined) return pointerOf(e.instancePath);
  let byAt = base === lastBase ? lastByAt : pointersByBase.get(base);
  if (byAt === undefined) {
    if (pointersByBase.size >= POINTERS_MAX) pointersByBase.clear();
    pointersByBase.set(base, (byAt = new Map()));
  }
  // A pointer depends on base + at alone, so a map dropped by the clear above is still right to read.
  lastBase = base;
  lastByAt = byAt;
  let pointer = byAt.get(at);
  if (pointer === undefined) byAt.set(at, (pointer = pointerOf(base + at)));
  return pointer;
}

function pointerOf(instancePath: string): Pointer {
  let pointer = pointers.get(instancePath);
  if (pointer !== undefined) return pointer;
  const segments: string[] = [];
  const indices: number[] = [];
  let plain = true;
  if (instancePath !== "") {
    for (const raw of instancePath.slice(1).split("/")) {
      const segment = raw.includes("~") ? raw.replace(/~1/g, "/").replace(/~0/g, "~") : raw;
      const index = Number(segment);
      if (!Number.isNaN(index)) plain = false;
      segments.push(segment);
      indices.push(index);
    }
  }
  if (pointers.size >= POINTERS_MAX) pointers.clear();
  pointers.set(instancePath, (pointer = { segments, indices, plain }));
  return pointer;
}

/** The value the last documentPath call with `needValue` found at the path. */
export let walked: unknown;

/**
 * The document path of an instancePath, as resolvePath gives it (indices as numbers where the value is
 * an array); with `needValue`, `walked` is set to the value found there.
 */
export function documentPath(data: unknown, e: AjvError, needValue: boolean): (string | number)[] {
  const { segments, indices, plain } = pointerOfError(e);
  if (plain && !needValue) return copyOf(segments);
  const path: (string | number)[] = [];
  let value = data;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (Array.isArray(value)) {
      path.push(indices[i]!);
      value = value[indices[i]!];
    } else {
      path.push(segment);
      value = value !== null && typeof value === "object" && hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
    }
  }
  walked = value;
  return path;
}

/** A fresh copy of a short path: an array literal of known length is cheaper for V8 than `slice`. */
function copyOf(segments: readonly string[]): (string | number)[] {
  switch (segments.length) {
    case 1:
      return [segments[0]!];
    case 2:
      return [segments[0]!, segments[1]!];
    case 3:
      return [segments[0]!, segments[1]!, segments[2]!];
    default:
      return segments.slice();
  }
}
