// One hostile document, one validation: time and memory of 10^6 invalid items (docs' maxErrors figures;
// targets: under 1 s and under 50 MB beyond the document, extraMB = RSS after minus RSS before validating). Run each case in its own process so peak RSS is its own:
//   /usr/bin/time -f %M node --expose-gc bench/validators-max-errors.mjs [validators index] [maxErrors]
// maxErrors: a number, "Infinity", or "default" (the validators' default, 100).
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const [index = "generated/validators/index.js", mode = "default"] = process.argv.slice(2);
const { validate } = await import(pathToFileURL(resolve(index)).href);
const body = { type: "individual", tags: Array.from({ length: 1e6 }, (_, i) => i) };
globalThis.gc?.();
const rss0 = process.memoryUsage().rss; // the document built: what validation adds is measured from here
const t0 = performance.now();
const result = validate("v5.VerificationCreateRequest", body, mode === "default" ? undefined : { maxErrors: Number(mode) });
const ms = performance.now() - t0;
const extraMB = Math.round((process.memoryUsage().rss - rss0) / 1048576);
console.log(JSON.stringify({ index, maxErrors: mode, ms: Math.round(ms), extraMB, issues: result.errors.length, last: result.errors.at(-1) }));
