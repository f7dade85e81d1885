// The user documentation as the tests read it: README.md and the guides under docs/ (engineering notes
// included), so a test that pins a table or an example finds it wherever the guide that owns it lives.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const DOCS_ROOT = join(import.meta.dirname, "..", "..");

/** README.md, CONTRIBUTING.md and every docs/**.md, as [path relative to the repository, text], in order. */
export function docFiles(root = DOCS_ROOT): [string, string][] {
  const under = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .flatMap((e) => (e.isDirectory() ? under(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : []));
  return ["README.md", "CONTRIBUTING.md", ...under("docs")].map((p) => [p, readFileSync(join(root, p), "utf8")]);
}

/** All of the documentation as one text. */
export const allDocs = (root = DOCS_ROOT): string =>
  docFiles(root)
    .map(([, text]) => text)
    .join("\n");

/** The text between `<!-- name:start -->` and `<!-- name:end -->`, in whichever file holds them. */
export function docSection(name: string, root = DOCS_ROOT): string {
  for (const [, text] of docFiles(root)) {
    const start = text.indexOf(`<!-- ${name}:start -->`);
    const end = text.indexOf(`<!-- ${name}:end -->`);
    if (start >= 0 && end > start) return text.slice(start, end);
  }
  throw new Error(`no file of the documentation has the ${name} markers`);
}
