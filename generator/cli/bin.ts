// The process entry: bin/verispec.js imports the compiled copy (dist/generator/cli/bin.js); repository
// scripts run this file from the sources with tsx. User errors are handled by main; anything else is an
// internal error and keeps its stack.
import { processIo } from "../context.js";
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2), processIo);
