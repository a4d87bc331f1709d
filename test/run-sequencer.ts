import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { startPackageStages } from "./helpers/packed-package.ts";

/**
 * The slowest test files, slowest first, as measured in `npm test` on the 2-core machine
 * (2026-11-26, seconds under the run's load): started first, they do not end the run alone on a
 * core while the others are idle. A file missing here keeps vitest's order (a fresh clone has no
 * durations cached, and vitest then starts the largest files first).
 */
const SLOWEST_FIRST = [
  "test/e2e/console.test.ts", // 98 (2026-11-27, alone, load average ~9: Chromium through 13 flows)
  "test/e2e/multi-node.test.ts", // 42 (2026-11-27)
  "test/e2e/provision-crash.test.ts", // 34
  "test/e2e/database-outage.test.ts", // 30 (2026-11-27)
  "test/emit/prettier-format.test.ts", // 25
  "test/validators/differential.test.ts", // 23
  "test/e2e/serve-cli.test.ts", // 19
  "test/behaviour/events.test.ts", // 17
  "test/e2e/migrate.test.ts", // 15
  "test/e2e/async.test.ts", // 15
  "test/e2e/packages.test.ts", // 14
  "test/e2e/client.test.ts", // 13
  "test/e2e/identity.test.ts", // 13
  "test/load/php-serve.test.ts", // 12
  "test/fuzz/bad-input.test.ts", // 12
];

/** Files that install the packed package go after this many others, when the packing started at the run's start is about done. */
const PACKED_AFTER = 8;

/**
 * The order of a run's test files: the slowest first; and, when a file of the run installs the
 * packed package (helpers/packed-package.ts), building and packing start in the background as the
 * run starts and those files come a little later, so that they find it made (the build and npm
 * installing ~7000 files: 15 s on two idle cores, more under the run) instead of holding workers
 * while they wait. Files that start `serve` processes need only the build (~5 s), which starts
 * with the run too; they keep their place. The sequencer sees the run's files after the global
 * setup has named the run.
 */
export class RunSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FIRST.indexOf(relative(root, f.moduleId).split("\\").join("/"));
      return i === -1 ? SLOWEST_FIRST.length : i;
    };
    const sources = new Map(sorted.map((f) => [f, readFileSync(f.moduleId, "utf8")]));
    const needsPack = new Set(sorted.filter((f) => sources.get(f)!.includes("packedInstall(")));
    if (needsPack.size > 0) startPackageStages(["build", "install"]);
    else if (sorted.some((f) => /\b(serveProcess|builtCli)\(/.test(sources.get(f)!))) startPackageStages(["build"]);
    // Within a project group (the timing project still runs last), slowest first, the rest as vitest had them.
    const group = (f: TestSpecification) => f.project.config.sequence.groupOrder;
    const out = sorted.filter((f) => !needsPack.has(f)).sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
    const first = out[0];
    const at = first === undefined ? 0 : Math.min(PACKED_AFTER, out.filter((f) => group(f) === group(first)).length);
    out.splice(at, 0, ...needsPack);
    return out;
  }
}
