// Size of the client core (templates/client, without validators) beside openapi-fetch,
// both bundled the same way: esbuild bundle + minify, ESM, platform neutral, then gzip.
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type BuildOptions } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Budget of the core, gzipped: 1.5 kB at first (issue 4), 2.25 kB since the hardening of issue 11
 * (redirects refused, response format and size checked, redaction in every encoding: about 700 B),
 * 2.5 kB since issue 23 (redaction of base64, hex, double URL-encoding, `\u` escapes and numeric
 * entities; a non-object 2xx refused; a fetch error's cause scrubbed: about 340 B), 2.625 kB since
 * issue 36 (a `serviceUid` or `secret` that is missing, empty or not a string refused in one line: about 60 B).
 */
export const CORE_GZIP_BUDGET = 2688;

export interface SizeRow {
  name: string;
  minified: number;
  gzipped: number;
}

const common: BuildOptions = { bundle: true, minify: true, format: "esm", platform: "neutral", write: false, logLevel: "silent" };

async function measureBuild(name: string, options: BuildOptions): Promise<SizeRow> {
  const result = await build({ ...common, ...options });
  const code = result.outputFiles?.[0]?.contents;
  if (!code) throw new Error(`esbuild produced no output for ${name}`);
  return { name, minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
}

/** The generated client loads the validators with a dynamic import, only when asked: they stay out. */
const validatorsApart: NonNullable<BuildOptions["plugins"]>[number] = {
  name: "validators-apart",
  setup(b) {
    b.onResolve({ filter: /\/validators\/index\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

/** Measures the core, openapi-fetch and the generated client; the core is the first row, openapi-fetch the second. */
export async function measureClientSize(): Promise<[SizeRow, SizeRow, SizeRow]> {
  return Promise.all([
    measureBuild("verispec client core", { entryPoints: [`${root}templates/client/index.ts`] }),
    measureBuild("openapi-fetch", {
      stdin: {
        contents: 'import createClient from "openapi-fetch";\nexport { createClient };\n',
        resolveDir: root,
        loader: "js",
      },
    }),
    measureBuild("verispec generated client (validators split off)", { entryPoints: [`${root}generated/index.js`], plugins: [validatorsApart] }),
  ]);
}

export default async function run(): Promise<void> {
  const [core, other, generated] = await measureClientSize();
  console.log("client size (esbuild bundle+minify, esm, neutral; gzip level 9)");
  console.table(
    [core, generated, other].map((r) => ({
      bundle: r.name,
      "minified (B)": r.minified,
      "gzipped (B)": r.gzipped,
      "gzipped / openapi-fetch": (r.gzipped / other.gzipped).toFixed(2),
    })),
  );
  console.log(`core budget: ${core.gzipped} / ${CORE_GZIP_BUDGET} B gzipped`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
