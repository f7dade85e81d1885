// Reads the markdown tables of the service's specification (the seed): sections, their tables, rows and
// cells, with line numbers. No knowledge of fields or formats here: that is statements.ts.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface SeedTable {
  /** "2.7", "6.2", "3". */
  readonly section: string;
  readonly header: readonly string[];
  readonly rows: readonly SeedRow[];
  /** Line of the header (1-based). */
  readonly line: number;
  /** The text after the table up to the next heading or table ("Stakeholder roles for both: ..."). */
  readonly trail: string;
}

export interface SeedRow {
  readonly cells: readonly string[];
  readonly line: number;
  /** The text before the table since the last heading or table ("AUS (`type` = `unRegulatedTrust`):"). */
  readonly lead: string;
}

const HEADING = /^#{2,3} ([0-9]+(?:\.[0-9]+)?)\.? /;

/** Splits a markdown table line into trimmed cells (the seed's cells hold no escaped pipes). */
export function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split("|").map((c) => c.trim());
}

export function parseSeedTables(text: string): SeedTable[] {
  const lines = text.split(/\r?\n/);
  const tables: SeedTable[] = [];
  let section = "";
  let lead: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = HEADING.exec(line);
    if (heading) {
      section = heading[1]!;
      lead = [];
      continue;
    }
    if (!line.trim().startsWith("|")) {
      if (line.trim()) lead.push(line.trim());
      continue;
    }
    const header = cellsOf(line);
    const separator = lines[i + 1] ?? "";
    if (!/^\|?\s*:?-{3,}/.test(separator.trim())) continue;
    const rows: SeedRow[] = [];
    const leadText = lead.join(" ");
    let j = i + 2;
    for (; j < lines.length && lines[j]!.trim().startsWith("|"); j++) rows.push({ cells: cellsOf(lines[j]!), line: j + 1, lead: leadText });
    const trail: string[] = [];
    for (let k = j; k < lines.length && !HEADING.test(lines[k]!) && !lines[k]!.trim().startsWith("|"); k++) if (lines[k]!.trim()) trail.push(lines[k]!.trim());
    tables.push({ section, header, rows, line: i + 1, trail: trail.join("\n") });
    lead = [];
    i = j - 1;
  }
  return tables;
}

/**
 * Where the seed is: $VERISPEC_SPECIFICATION_DIR; else a `shared/seed/` directory found walking up from the
 * repository (the team's checkout keeps it beside the worktrees); else the test-only copy in
 * test/fixtures/specification/ (a fresh clone in CI has no `shared/`). Undefined when none holds a file.
 */
export function locateSeed(repoRoot: string, env: NodeJS.ProcessEnv = process.env): { file: string; origin: string } | undefined {
  const candidates: { dir: string; origin: string }[] = [];
  if (env.VERISPEC_SPECIFICATION_DIR) candidates.push({ dir: resolve(env.VERISPEC_SPECIFICATION_DIR), origin: "VERISPEC_SPECIFICATION_DIR" });
  for (let dir = resolve(repoRoot); ; dir = dirname(dir)) {
    candidates.push({ dir: join(dir, "shared", "seed"), origin: "shared/seed" });
    if (dirname(dir) === dir) break;
  }
  candidates.push({ dir: join(repoRoot, "test", "fixtures", "specification"), origin: "test/fixtures/specification (test-only copy)" });
  for (const c of candidates) {
    const file = seedFileIn(c.dir);
    if (file) return { file, origin: c.origin };
  }
  return undefined;
}

function seedFileIn(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((f) => /\.(txt|md)$/.test(f))
    .sort();
  return files.length ? join(dir, files[0]!) : undefined;
}

export const readSeed = (file: string) => readFileSync(file, "utf8");
