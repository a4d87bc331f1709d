// Preloaded into a benchmarked process (node --import): at exit, writes the CPU time (user +
// system) and wall time the whole process took, start-up included, to $APS_CPU_REPORT.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  writeFileSync(
    process.env.APS_CPU_REPORT,
    JSON.stringify({ cpuMs: (user + system) / 1000, wallMs: performance.now() }),
  );
});
