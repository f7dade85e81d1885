import { runAudit } from "./audit.js";
import { readFileSync } from "node:fs";
const r = runAudit(readFileSync("/work/shared/seed/000_c6ecb7e3d7e23e71.txt", "utf8"), process.argv[2]!);
console.log(JSON.stringify(r.counts));
for (const f of r.failures) console.log(f);
if (process.argv[3]) for (const row of r.rows) console.log(`${row.section} | ${row.row} | ${row.findings.map((f) => f.statement).join("; ")}`);
