#!/usr/bin/env node
// Bin shim: run the TypeScript CLI through tsx, print user errors without a stack.
import { register } from "tsx/esm/api";
register();
const { main } = await import("../generator/cli.ts");
process.exitCode = await main(process.argv.slice(2));
