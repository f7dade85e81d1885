// Child of the fault-injection test: writes a set of files into argv[2] and kills itself (SIGKILL,
// no cleanup of any kind) at the argv[3]-th step of the write. Exits 0 when the write had fewer steps.
import { writeAtomically } from "../../generator/write.js";

const [outDir, killAt, label] = process.argv.slice(2) as [string, string, string];
const files = ["a.json", "b/c.json", "b/d.json", "e.ts"].map((path) => ({ path, contents: `${label} ${path}\n` }));
let steps = 0;
writeAtomically(outDir, files, {
  onStep: () => {
    if (steps++ === Number(killAt)) process.kill(process.pid, "SIGKILL");
  },
});
