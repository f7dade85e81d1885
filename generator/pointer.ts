// The one JSON Pointer helper (RFC 6901): escaping a name into a pointer and reading one back.

export type PathSegment = string | number;

/** "a/b~c" -> "a~1b~0c". */
export const escapePointerSegment = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** "a~1b~0c" -> "a/b~c". */
export const unescapePointerSegment = (s: string): string => s.replace(/~1/g, "/").replace(/~0/g, "~");

/** Segments as a pointer: ["a", 0] -> "/a/0". */
export const pathToPointer = (path: readonly PathSegment[]): string => path.map((s) => `/${escapePointerSegment(String(s))}`).join("");

/** A pointer as segments; all-digit segments become numbers (array indices): "/a/0" -> ["a", 0]. */
export function pointerToPath(pointer: string): PathSegment[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map(unescapePointerSegment)
    .map((s) => (/^[0-9]+$/.test(s) ? Number(s) : s));
}
