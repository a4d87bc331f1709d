import { defineConfig } from "vitest/config";

export default defineConfig({
  // "aps-gen/..." (imported by generated code and tests) resolves to the sources, not dist/.
  resolve: { conditions: ["aps-gen-source"] },
  ssr: { resolve: { conditions: ["aps-gen-source"], externalConditions: ["aps-gen-source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-teardown.ts"],
    testTimeout: 30_000,
    execArgv: ["--conditions=aps-gen-source"],
  },
});
