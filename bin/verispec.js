#!/usr/bin/env node
// Bin shim: the compiled CLI (dist/, built by `npm run build`: by `prepack`, so a tarball ships it, and in
// the repository by the test setup or by hand).
await import("../dist/generator/cli/bin.js");
