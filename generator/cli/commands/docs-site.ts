// The user guides (the package's docs/*.md) as pages of the offline site `verispec docs` writes beside
// the API reference: Markdown to HTML with markdown-it, a link to another guide (`sandbox.md#section`)
// to its page (`sandbox.html#section`), a link to a file that is not a guide to the repository, every
// heading an id (GitHub's way of making one, which the guides' `#anchors` use), and one navigation bar
// on every page, the reference's included. Pure functions of their inputs: the command does the I/O.
import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";

export const REFERENCE_PAGE = "index.html";

export interface GuideSource {
  /** The file name under docs/, e.g. "sandbox.md". */
  readonly file: string;
  readonly markdown: string;
}

export interface Guide {
  readonly file: string;
  /** Its page in the site, e.g. "sandbox.html". */
  readonly page: string;
  /** Its first level-1 heading, as text. */
  readonly title: string;
  /** The rendered body. */
  readonly html: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2... */
export function slugger(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}-${n}` : base;
  };
}

/** Where a link of a guide points in the site: another guide's page, the repository, or unchanged. */
export function siteHref(href: string, guideFiles: ReadonlySet<string>, repository: string): string {
  if (/^[a-z][a-z0-9+.-]*:|^#|^\/\//i.test(href)) return href;
  const [path = "", fragment] = href.split("#", 2) as [string, string | undefined];
  const hash = fragment === undefined ? "" : `#${fragment}`;
  if (guideFiles.has(path)) return `${path.replace(/\.md$/, ".html")}${hash}`;
  // A file of the repository the site does not hold (README.md, docs/engineering/...): its page there.
  const inRepo = new URL(path, "https://repo.invalid/docs/").pathname.slice(1);
  return `${repository}/blob/main/${inRepo}${hash}`;
}

const inlineText = (t: Token | undefined) =>
  (t?.children ?? [])
    .filter((c) => c.type === "text" || c.type === "code_inline")
    .map((c) => c.content)
    .join("");

function renderer(guideFiles: ReadonlySet<string>, repository: string): MarkdownIt {
  // html: the guides hold HTML comments (section markers for the tests); they are the package's own text.
  const md = new MarkdownIt({ html: true, linkify: false, typographer: false });
  md.core.ruler.push("heading_ids", (state) => {
    const slug = slugger();
    state.tokens.forEach((t, i) => {
      if (t.type === "heading_open") t.attrSet("id", slug(inlineText(state.tokens[i + 1])));
    });
  });
  md.core.ruler.push("site_links", (state) => {
    for (const t of state.tokens) {
      for (const c of t.children ?? []) {
        if (c.type === "link_open") c.attrSet("href", siteHref(c.attrGet("href") ?? "", guideFiles, repository));
      }
    }
  });
  return md;
}

/** Every guide, rendered, in file-name order. `repository`: where files that are not guides are linked. */
export function renderGuides(sources: readonly GuideSource[], repository: string): Guide[] {
  const files = new Set(sources.map((s) => s.file));
  const md = renderer(files, repository);
  return [...sources]
    .sort((a, b) => (a.file < b.file ? -1 : 1))
    .map((s) => {
      const tokens = md.parse(s.markdown, {});
      const h1 = tokens.findIndex((t) => t.type === "heading_open" && t.tag === "h1");
      const title = h1 >= 0 ? inlineText(tokens[h1 + 1]) : s.file.replace(/\.md$/, "");
      return { file: s.file, page: s.file.replace(/\.md$/, ".html"), title, html: md.renderer.render(tokens, md.options, {}) };
    });
}

/**
 * The navigation bar: the reference, then every guide; the current page is marked. On a narrow screen
 * the list folds behind a button (a checkbox and its label: no script, so the guide pages' policy holds).
 */
export function siteNav(guides: readonly Pick<Guide, "page" | "title">[], current: string): string {
  const link = (page: string, title: string) => `<li><a href="${esc(page)}"${page === current ? ' aria-current="page"' : ""}>${esc(title)}</a></li>`;
  const toggle = `<input type="checkbox" id="${NAV_TOGGLE}" class="${NAV_TOGGLE}"><label for="${NAV_TOGGLE}" class="verispec-nav-button">Guides and reference (${guides.length + 1} pages)</label>`;
  return `<nav class="verispec-site-nav" aria-label="Documentation">${toggle}<ul>${link(REFERENCE_PAGE, "API reference")}${guides.map((g) => link(g.page, g.title)).join("")}</ul></nav>`;
}

/** The id of the checkbox that opens the folded navigation bar. */
export const NAV_TOGGLE = "verispec-nav-toggle";
