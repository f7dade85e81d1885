#!/usr/bin/env node
// Bin shim: the compiled CLI (dist/, built by `npm run build`: on `prepare` after `npm ci`, and on `prepack`).
await import("../dist/generator/cli/bin.js");
