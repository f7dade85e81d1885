#!/usr/bin/env node
// Bin shim: run the TypeScript CLI through tsx (until the compiled CLI lands).
import { register } from "tsx/esm/api";
register();
await import("../generator/cli/bin.ts");
