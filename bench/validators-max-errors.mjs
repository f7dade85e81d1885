// One hostile document, one validation: time and heap of 10^6 invalid items (the README's maxErrors
// figures). Run each case in its own process so peak RSS is its own:
//   /usr/bin/time -f %M node --expose-gc bench/validators-max-errors.mjs [validators index] [maxErrors]
// maxErrors: a number, "Infinity", or "default" (the validators' default, 100).
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const [index = "generated/validators/index.js", mode = "default"] = process.argv.slice(2);
const { validate } = await import(pathToFileURL(resolve(index)).href);
const body = { type: "individual", tags: Array.from({ length: 1e6 }, (_, i) => i) };
globalThis.gc?.();
const t0 = performance.now();
const result = validate("v5.VerificationCreateRequest", body, mode === "default" ? undefined : { maxErrors: Number(mode) });
const ms = performance.now() - t0;
console.log(JSON.stringify({ index, maxErrors: mode, ms: Math.round(ms), issues: result.errors.length, last: result.errors.at(-1) }));
