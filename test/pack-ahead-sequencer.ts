import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { startPackedInstall } from "./helpers/packed-package.ts";

/**
 * vitest's order of test files, plus one thing: when a file of the run installs the packed
 * package (helpers/packed-package.ts), packing starts in the background as the run starts, so the
 * files that need it find it made (`npm pack` builds dist/ and npm installs ~7000 files: ~15 s on
 * two idle cores). The sequencer sees the run's files after the global setup has named the run.
 */
export class PackAheadSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    if (files.some((f) => readFileSync(f.moduleId, "utf8").includes("packedInstall("))) startPackedInstall();
    return super.sort(files);
  }
}
