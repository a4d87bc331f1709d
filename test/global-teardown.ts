import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKED_PREFIX, PACKED_RUN_FILE } from "./helpers/packed-package.ts";
import { pgliteTemplateFolder } from "./helpers/pglite-template.ts";

/**
 * After the whole run, the packed installs and the embedded database template
 * (helpers/pglite-template.ts) this run made are removed (temporary folders do not pile up).
 * Only this run's: another checkout's test run may be using its own at the same time. The run id
 * reaches the test workers through the environment they inherit.
 */
export default function setup(): () => void {
  // Each vitest project (vitest.config.ts) runs this: the first one names the run and cleans up.
  if (process.env.APS_GEN_TEST_RUN) return () => {};
  const run = randomUUID();
  process.env.APS_GEN_TEST_RUN = run;
  return () => {
    const template = pgliteTemplateFolder(run);
    for (const name of readdirSync(tmpdir())) {
      const dir = join(tmpdir(), name);
      // The template and any staging folder a worker left when it was stopped mid-way.
      if (dir.startsWith(template)) rmSync(dir, { recursive: true, force: true });
      if (!name.startsWith(PACKED_PREFIX)) continue;
      const madeBy = join(dir, PACKED_RUN_FILE);
      if (existsSync(madeBy) && readFileSync(madeBy, "utf8") === run) rmSync(dir, { recursive: true, force: true });
    }
  };
}
