// Spec access: reading a loaded spec's raw values, and the few spec facts that check, model and emit all
// need. It sits below the three stages, so none of them imports another sideways.
import type { PathSegment } from "../pointer.js";
import type { SpecFile } from "./load-spec.js";

// biome-ignore lint/suspicious/noExplicitAny: a loaded spec's raw values, whose shapes the meta-schema guarantees (checked before any stage reads them)
export type Raw = Record<string, any>;

/** Where a raw value came from. */
export interface At {
  readonly file: SpecFile;
  readonly path: readonly PathSegment[];
}

export const at = (a: At, ...more: PathSegment[]): At => ({ file: a.file, path: [...a.path, ...more] });

/** The raw value at `a`. */
export function rawAt(a: At): Raw {
  let v: unknown = a.file.data;
  for (const s of a.path) v = (v as Raw)[s as string];
  return v as Raw;
}

/** The files that define shapes, in the order their definitions are read. */
export const SHAPE_FILES = ["stakeholders.yaml", "older.yaml", "webhooks.yaml", "v5.yaml"] as const;

/**
 * The envelope fields the client core adds itself (templates/client/core.ts, specification sections 2.1, 5): every
 * `auth: body` request has them, and the client's body types omit them.
 */
export const CREDENTIAL_FIELDS = ["metadata_version", "metadata_serviceUid", "metadata_secretKey"] as const;

/**
 * The digest headers each signature scheme of webhooks.yaml must have, by the scheme's key (section 6.4): the
 * webhook runtime signs and verifies with exactly these (emit/webhooks.ts signatureScheme; checked by VS441).
 */
export const SIGNATURE_DIGESTS = { "2": ["hmac-sha256"], "1": ["sha3-256", "keccak-256"] } as const;

/** The statuses of endpoints.yaml `responses` that answer success (2xx); an endpoint shows at most one (VS440). */
export const successStatuses = (responses: Readonly<Record<string, string>>): string[] => Object.keys(responses).filter((status) => /^2\d\d$/.test(status));

/** A code point range "0041-005A" as regex class text: BMP as \uXXXX, astral code points literally. */
function renderRange(range: string): string {
  const [from, to] = range.split("-").map((h) => parseInt(h, 16)) as [number, number | undefined];
  const one = (cp: number) => (cp > 0xffff ? String.fromCodePoint(cp) : `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`);
  return to === undefined ? one(from) : `${one(from)}-${one(to)}`;
}

const letterClasses = new WeakMap<readonly string[], string>();

/** The class text of unicode-letters.yaml's ranges, for `{unicodeLetter}` (once per list: the check and the model both ask). */
export function letterClass(ranges: readonly string[]): string {
  let text = letterClasses.get(ranges);
  if (text === undefined) letterClasses.set(ranges, (text = ranges.map(renderRange).join("")));
  return text;
}

/**
 * A rule's pattern with its placeholders expanded: `{unicodeLetter}` and the parts of rules.yaml's
 * `patternParts` (one home for a pattern several rules use). The check and the model builder use the same.
 */
export const expandPattern = (pattern: string, parts: Readonly<Record<string, string>>): string =>
  pattern.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => (Object.hasOwn(parts, name) ? parts[name]! : whole));
