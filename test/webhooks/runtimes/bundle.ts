// Bundles a runtime entry (entry.ts, worker.ts) with esbuild, platform "neutral": nothing of Node may be
// left in it, so a Node built-in anywhere in the webhook runtime's import graph fails the build here.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));

export async function bundle(entry: "entry.ts" | "worker.ts", format: "esm" | "iife"): Promise<string> {
  const result = await build({
    entryPoints: [`${HERE}${entry}`],
    bundle: true,
    write: false,
    platform: "neutral",
    format,
    ...(format === "iife" ? { globalName: "verispecVectors" } : {}),
    target: "es2022",
    // "neutral" resolves no main fields by default; packages such as @noble/hashes publish ESM under "exports".
    mainFields: ["module", "main"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
