import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { makeRunFolder } from "./helpers/run-folder.ts";

/**
 * Names the test run and gives it a temporary folder of its own (helpers/run-folder.ts), which
 * the packed install, the embedded database template and every test file's scratch folders go
 * into; after the whole run, the folder is removed, so temporary files do not pile up. The run
 * id and the folder reach the test workers through the environment they inherit.
 */
export default function setup(): () => void {
  // Each vitest project (vitest.config.ts) runs this: the first one names the run and cleans up.
  if (process.env.APS_GEN_TEST_RUN) return () => {};
  const run = randomUUID();
  process.env.APS_GEN_TEST_RUN = run;
  const folder = makeRunFolder(run);
  return () => rmSync(folder, { recursive: true, force: true });
}
