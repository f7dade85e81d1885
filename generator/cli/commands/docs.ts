// `verispec docs`: writes generated/docs/index.html, a self-contained API reference of
// generated/openapi.json made with Redocly CLI `build-docs` (Redoc, bundled inline), and beside it the
// package's user guides (docs/*.md) as pages, with one navigation bar across all of them (docs-site.ts). The page loads
// nothing from the network: the Redoc scripts are embedded (`--inlineBundle`), the file is checked for
// external scripts, styles, fonts and images, and a Content-Security-Policy forbids any request when
// the page is viewed. generated/docs/ is not compared by `verispec check` and survives `generate`.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../../package-root.js";
import { isVerispecOutput, MANIFEST } from "../../write.js";
import type { CommandCall } from "../command-call.js";
import { guidePage, withSiteChrome } from "./docs-pages.js";
import { REFERENCE_PAGE, renderGuides, type Guide } from "./docs-site.js";

export const DOCS_TITLE = "Verification service (KYC and KYB): API reference";

/**
 * Allows the inline scripts and styles the bundle is made of, and data:/blob: for images, fonts and
 * Redoc's search worker; everything else (http, https, ws, ...) is refused by the browser.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline' 'unsafe-eval' blob:",
  "worker-src blob:",
  "style-src 'unsafe-inline'",
  "img-src data: blob:",
  "font-src data:",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** References that would make the browser fetch from elsewhere when the page is viewed. */
const EXTERNAL_LOADS: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: "external script", pattern: /<script\b[^>]*\bsrc\s*=\s*["']?(?!data:|blob:)[^"'\s>]+/gi },
  { what: "external stylesheet or preload", pattern: /<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+/gi },
  { what: "external CSS import", pattern: /@import\s+(?:url\()?["']?(?:https?:)?\/\/[^"')\s]+/gi },
  { what: "external CSS url()", pattern: /url\(\s*["']?(?:https?:)?\/\/[^"')\s]+/gi },
  { what: "external image or frame", pattern: /<(?:img|iframe|source|video|audio)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+/gi },
];

/** Every external load the HTML would make (empty for a self-contained page). */
export function externalLoads(html: string): string[] {
  const found: string[] = [];
  for (const { what, pattern } of EXTERNAL_LOADS) {
    for (const m of html.matchAll(pattern)) found.push(`${what}: ${m[0].slice(0, 160)}`);
  }
  return found;
}

/**
 * Redoc 3 shows its "API docs by Redocly" logo as an image from its CDN; the page shows the same
 * attribution from an inline SVG instead.
 */
const LOGO = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="20" viewBox="0 0 96 20"><text x="0" y="15" font-family="sans-serif" font-size="14" font-weight="bold" fill="#0044d4">Redoc</text></svg>',
).toString("base64")}`;
export const REPLACED_URLS: Readonly<Record<string, string>> = {
  "https://cdn.redoc.ly/redoc/logo-mini-full.svg": LOGO,
  "https://cdn.redoc.ly/redoc/logo-mini.svg": LOGO,
};

/**
 * Makes the built page offline: the CDN logo becomes inline, and Redoc's telemetry (OpenTelemetry traces
 * to Redocly) is off. Throws when the page is not shaped as expected, rather than publishing it.
 */
export function offlinePage(html: string): string {
  let out = html;
  for (const [from, to] of Object.entries(REPLACED_URLS)) out = out.replaceAll(from, to);
  const options = /const __redoc_options = (\{.*?\});\n/.exec(out);
  if (!options) throw new Error("the page built by Redocly has no __redoc_options");
  const parsed = JSON.parse(options[1]!) as Record<string, unknown>;
  const replacement = `const __redoc_options = ${JSON.stringify({ ...parsed, disableTelemetry: true })};\n`;
  out = out.replace(options[0], () => replacement);
  return withContentSecurityPolicy(out);
}

/** Puts the Content-Security-Policy first in <head>, so that it governs everything after it. */
export function withContentSecurityPolicy(html: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (!head) throw new Error("the page built by Redocly has no <head>");
  return `${html.slice(0, head.index + head[0].length)}\n${meta}${html.slice(head.index + head[0].length)}`;
}

/** The optional peer @redocly/cli, from the working directory or beside this package; undefined when absent. */
function redoclyCli(cwd: string): string | undefined {
  let pkgPath: string | undefined;
  for (const from of [join(cwd, "package.json"), import.meta.url]) {
    try {
      pkgPath = createRequire(from).resolve("@redocly/cli/package.json");
      break;
    } catch {
      // not installed there
    }
  }
  if (pkgPath === undefined) return undefined;
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { bin: string | Record<string, string> };
  const rel = typeof pkg.bin === "string" ? pkg.bin : (pkg.bin.redocly ?? Object.values(pkg.bin)[0]!);
  return join(dirname(pkgPath), rel);
}

function runNode(args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // No telemetry and no update check: Redocly CLI would otherwise contact its servers while building.
    const env = { ...process.env, NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
    const child = spawn(process.execPath, [...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** The package's user guides (docs/*.md; not docs/engineering/), rendered for the site. */
function packageGuides(): Guide[] {
  const dir = join(PACKAGE_ROOT, "docs");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".md")) : [];
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { repository?: { url?: string } };
  const repository = (pkg.repository?.url ?? "").replace(/^git\+/, "").replace(/\.git$/, "");
  return renderGuides(
    files.map((file) => ({ file, markdown: readFileSync(join(dir, file), "utf8") })),
    repository,
  );
}

/** Writes each guide's page into `work`, then moves it into `docsDir` (each file whole or not at all). */
function writeGuides(guides: readonly Guide[], work: string, docsDir: string): void {
  for (const g of guides) {
    writeFileSync(join(work, g.page), guidePage(g, guides, DOCS_TITLE));
    renameSync(join(work, g.page), join(docsDir, g.page));
  }
}

/**
 * Builds <out>/docs/index.html from <out>/openapi.json. Exit 0 when written; 1 when Redocly fails or the
 * page would load something from the network (nothing is written then); 2 when there is no document.
 */
export async function docs({ dirs, io }: CommandCall): Promise<number> {
  const cli = redoclyCli(io.cwd);
  if (cli === undefined) {
    io.stderr("verispec: docs needs the optional package @redocly/cli; install it: npm install --save-dev @redocly/cli\n");
    return 2;
  }
  const openapi = join(dirs.out, "openapi.json");
  if (!existsSync(openapi)) {
    io.stderr(`verispec: no ${openapi}; run 'npx verispec generate' first\n`);
    return 2;
  }
  // docs/ is written only into verispec's own output: never into a folder that merely has an openapi.json.
  if (!isVerispecOutput(dirs.out)) {
    io.stderr(`verispec: refusing to write docs/ into a directory verispec did not write (no ${MANIFEST}; run 'npx verispec generate'): ${dirs.out}\n`);
    return 2;
  }
  const docsDir = join(dirs.out, "docs");
  mkdirSync(docsDir, { recursive: true });
  const work = mkdtempSync(join(docsDir, ".build-"));
  try {
    const built = join(work, "index.html");
    const r = await runNode([cli, "build-docs", openapi, "--inlineBundle", "--title", DOCS_TITLE, "-o", built], io.cwd);
    if (r.code !== 0 || !existsSync(built)) {
      io.stderr(`verispec: redocly build-docs failed (exit ${r.code}):\n${r.output}\n`);
      return 1;
    }
    const guides = packageGuides();
    let html: string;
    try {
      html = withSiteChrome(offlinePage(readFileSync(built, "utf8")), guides, REFERENCE_PAGE);
    } catch (err) {
      io.stderr(`verispec: cannot make the reference page offline: ${(err as Error).message}\n`);
      return 1;
    }
    const external = externalLoads(html);
    if (external.length > 0) {
      io.stderr(`verispec: the reference page would load from the network:\n${external.map((e) => `  ${e}`).join("\n")}\n`);
      return 1;
    }
    writeFileSync(built, html);
    renameSync(built, join(docsDir, REFERENCE_PAGE));
    writeGuides(guides, work, docsDir);
    io.stdout(
      `verispec: wrote ${join(docsDir, REFERENCE_PAGE)} (self-contained, ${Math.round(html.length / 1024)} KiB) and ${guides.length} guide pages beside it\n`,
    );
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
