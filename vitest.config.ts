import { configDefaults, defineConfig } from "vitest/config";
import { RunSequencer } from "./test/run-sequencer.ts";

/**
 * Tests that measure latency: they run after every other file, alone, so that the other suites
 * on the same 2 cores do not make their figures (a test file beside one of them took its "quiet"
 * p99 from 15 ms to 580 ms). The console's time to interactive is measured there too. One at a
 * time: the console's Chromium beside the import took the import's p99 to 576 ms in CI.
 */
const TIMING = ["test/e2e/import-under-load.test.ts", "test/e2e/console-load.test.ts"];

export default defineConfig({
  // "aps-gen/..." (imported by generated code and tests) resolves to the sources, not dist/.
  resolve: { conditions: ["aps-gen-source"] },
  ssr: { resolve: { conditions: ["aps-gen-source"], externalConditions: ["aps-gen-source"] } },
  test: {
    globalSetup: ["test/global-setup.ts"],
    sequence: { sequencer: RunSequencer },
    testTimeout: 30_000,
    // Opening an embedded database and migrating it takes ~1 s alone and over 10 s on a loaded
    // 2-core machine (seen with the suite and other work running): hooks get the tests' bound.
    hookTimeout: 60_000,
    // Four test files at a time even on 2 cores (vitest's default there is one): most suites
    // wait on child processes, sockets and the database. `npm test` on PGlite in a fresh clone
    // on the 2-core machine, one run each: 2 workers 267 s, 3: 241 s,
    // 4: 209 s, 6: 223 s; on PostgreSQL and PGlite with 4: 240 s.
    maxWorkers: 4,
    // Test files of a worker share its module cache instead of each importing the controller,
    // the generator and their dependencies again (vitest's "import" time was ~100 s of a run).
    // So a test file that changes process-wide state (environment variables, umask) restores it
    // in afterAll, and module-level state is read once per worker (helpers/databases.ts).
    isolate: false,
    // --liftoff-only: PGlite's WebAssembly runs as V8 first compiles it, without TurboFan compiling
    // its hot functions again on a background thread, which a test worker does not win back (the
    // in-process controller suites, test/behaviour and test/controller: 56 s of CPU -> 45 s).
    execArgv: ["--conditions=aps-gen-source", "--liftoff-only"],
    // The run's one type-check (npm test has no separate tsc step): tsc over tsconfig.typetests.json,
    // every source and test plus the type tests, beside the test files instead of before them. A
    // type error in a type test fails that test; one anywhere else fails the run (a source error).
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "tsconfig.typetests.json" },
    projects: [
      {
        extends: true,
        test: {
          name: "suites",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...TIMING],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "timing",
          include: TIMING,
          maxWorkers: 1,
          typecheck: { enabled: false },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
