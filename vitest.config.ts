import { defineConfig } from "vitest/config";

export default defineConfig({
  // "aps-gen/..." (imported by generated code and tests) resolves to the sources, not dist/.
  resolve: { conditions: ["aps-gen-source"] },
  ssr: { resolve: { conditions: ["aps-gen-source"], externalConditions: ["aps-gen-source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-teardown.ts"],
    testTimeout: 30_000,
    // Opening an embedded database and migrating it takes ~1 s alone and over 10 s on a loaded
    // 2-core machine (seen with the suite and other work running): hooks get the tests' bound.
    hookTimeout: 60_000,
    // Two test files at a time even on 2 cores (vitest's default there is one): most suites
    // wait on child processes, sockets and the database, so the whole run takes about half as
    // long (776 s -> 409 s on PostgreSQL on the 2-core machine) and still passes.
    maxWorkers: 2,
    execArgv: ["--conditions=aps-gen-source"],
    // Type tests: tsc over tsconfig.typetests.json, each type error failing the test it sits in.
    // tsconfig.json excludes these files, so `npm run typecheck` does not check them a second time.
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "tsconfig.typetests.json" },
  },
});
