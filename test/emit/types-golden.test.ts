import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emitAll } from "../../generator/build.ts";
import { compile } from "../../generator/pipeline.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Golden files for the type emitter: test/golden/types/<package>/index.gen.ts holds the expected
 * output for test/fixtures/emit/golden. `npx vitest run test/emit/types-golden.test.ts -u`
 * rewrites them after an intended change, then review the diff. The golden files are inside tsconfig's include, so
 * `npm run typecheck` proves that they compile.
 */
const goldenDir = join(repoRoot, "test", "golden");

describe("type emitter golden output", () => {
  const { model, diagnostics } = compile(["test/fixtures/emit/golden"], { cwd: repoRoot });
  const files = emitAll(model).filter((f) => f.path.startsWith("types/golden/"));

  it("compiles the fixture without errors", () => {
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(files.map((f) => f.path)).toEqual(["types/golden/index.gen.ts"]);
  });

  it.each(files.map((f) => [f.path, f.content] as const))("%s matches its golden file", async (path, content) => {
    await expect(content).toMatchFileSnapshot(join(goldenDir, path));
  });

  it("emits the same bytes on a second run", () => {
    const again = emitAll(compile(["test/fixtures/emit/golden"], { cwd: repoRoot }).model).filter((f) =>
      f.path.startsWith("types/golden/"),
    );
    expect(again).toEqual(files);
  });
});
