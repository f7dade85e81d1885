// The look of the offline site `verispec docs` writes: the navigation bar on every page, the guide pages'
// shell, and what the Redoc reference page needs to read well from 390 px (a phone) to a desktop:
// inline code never broken inside a word, a table wider than its column scrolls inside its own box
// (Redoc clips it otherwise), a picture fits the column, except on a narrow screen: there the status
// diagram keeps its size, so its labels stay readable, and scrolls inside its own box.
import { siteNav, type Guide } from "./docs-site.js";

/** Guide pages run no script and load nothing: styles inline, images only as data: URIs. */
export const GUIDE_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** Below this width (a phone, a narrow window) the navigation bar folds behind its button. */
export const NARROW_PX = 720;

const NAV_CSS = `
.verispec-site-nav{font:14px/1.5 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;background:#f4f6f9;border-bottom:1px solid #d9dee5;padding:6px 16px}
.verispec-site-nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:2px 16px}
.verispec-site-nav a{color:#1f4fa3;text-decoration:none}
.verispec-site-nav a[aria-current=page]{color:#1f2933;font-weight:600}
.verispec-site-nav a:hover{text-decoration:underline}
.verispec-nav-toggle{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.verispec-nav-button{display:none;cursor:pointer;color:#1f4fa3;font-weight:600;padding:4px 0}
.verispec-nav-button::before{content:"\\2630  "}
.verispec-nav-toggle:focus-visible+.verispec-nav-button{outline:2px solid #1f4fa3;outline-offset:2px}
@media (max-width:${NARROW_PX}px){
.verispec-nav-button{display:block}
.verispec-site-nav ul{display:none;flex-direction:column;padding:4px 0}
.verispec-nav-toggle:checked~ul{display:flex}
}`;

/** Redoc's own rules break code at any letter and clip wide tables; these win over them. */
const REFERENCE_CSS = `${NAV_CSS}
.api-content code,.api-info code{white-space:nowrap!important;word-break:normal!important;overflow-wrap:normal!important;display:inline-block;max-width:100%;overflow-x:auto;overflow-y:hidden;line-height:1.25;vertical-align:middle}
.api-content pre code,.api-info pre code{display:inline;white-space:pre!important}
.api-content table,.api-info table{display:block!important;overflow-x:auto!important;max-width:100%!important}
.api-content td,.api-content th,.api-info td,.api-info th{word-break:normal!important;overflow-wrap:normal!important}
.api-content img,.api-info img{max-width:100%;height:auto}
@media (max-width:${NARROW_PX}px){
.api-content img,.api-info img{max-width:none}
.api-content :has(>img),.api-info :has(>img){overflow-x:auto;overflow-y:hidden;max-width:100%}
}`;

const GUIDE_CSS = `${NAV_CSS}
body{margin:0;color:#1f2933;background:#fff;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
main{max-width:52rem;margin:0 auto;padding:8px 16px 48px;overflow-wrap:break-word}
h1,h2,h3{line-height:1.25}
code{font:0.875em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f6;border-radius:3px;padding:0.1em 0.3em;white-space:nowrap;display:inline-block;max-width:100%;box-sizing:border-box;overflow-x:auto;overflow-y:hidden;vertical-align:middle}
pre{background:#f6f8fa;border:1px solid #e1e5ea;border-radius:6px;padding:12px;overflow-x:auto}
pre code{display:inline;background:none;padding:0;white-space:pre}
table{display:block;overflow-x:auto;max-width:100%;border-collapse:collapse}
th,td{border:1px solid #d9dee5;padding:4px 8px;vertical-align:top}
th{background:#f4f6f9}
a{color:#1f4fa3}`;

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A guide as a whole HTML page of the site. */
export function guidePage(guide: Guide, guides: readonly Guide[], siteTitle: string): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${GUIDE_CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(guide.title)} · ${esc(siteTitle)}</title>`,
    `<style>${GUIDE_CSS}</style>`,
    "</head>",
    "<body>",
    siteNav(guides, guide.page),
    `<main>\n${guide.html}</main>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** The reference page with the site's navigation first in <body> and the reading fixes last in <head>. */
export function withSiteChrome(html: string, guides: readonly Pick<Guide, "page" | "title">[], current: string): string {
  const headEnd = html.search(/<\/head>/i);
  const body = /<body[^>]*>/i.exec(html);
  if (headEnd < 0 || !body) throw new Error("the page built by Redocly has no </head> or <body>");
  const bodyEnd = body.index + body[0].length;
  return `${html.slice(0, headEnd)}<style>${REFERENCE_CSS}</style>\n${html.slice(headEnd, bodyEnd)}\n${siteNav(guides, current)}${html.slice(bodyEnd)}`;
}
